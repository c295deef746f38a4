package document

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"
)

// Redacted hides what KIC's dumps hide (certificate keys, credential secrets; a key-auth key as
// a digest under the key given), keeps everything else, and leaves the original untouched.
func TestRedacted(t *testing.T) {
	d := New()
	d.Certificates = []*Certificate{{ID: kong.String("c1"), Cert: kong.String("CERT"), Key: kong.String("PRIVATE-KEY")}}
	d.Consumers = []*Consumer{{
		Consumer:    kong.Consumer{Username: kong.String("alice")},
		BasicAuths:  []*kong.BasicAuth{{Username: kong.String("alice"), Password: kong.String("pw-secret")}},
		HMACAuths:   []*kong.HMACAuth{{Username: kong.String("alice-h"), Secret: kong.String("hmac-secret")}},
		JWTAuths:    []*kong.JWTAuth{{Key: kong.String("issuer"), Secret: kong.String("jwt-secret"), Algorithm: kong.String("HS256")}},
		KeyAuths:    []*kong.KeyAuth{{Key: kong.String("api-key-secret")}},
		Oauth2Creds: []*kong.Oauth2Credential{{ClientID: kong.String("cid"), ClientSecret: kong.String("oauth-secret")}},
		ACLGroups:   []*kong.ACLGroup{{Group: kong.String("admins")}},
	}}
	d.Services = []*Service{{Service: kong.Service{Name: kong.String("svc")}}}
	before, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("test-key")
	out, err := JSON(Redacted(d, key))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, secret := range []string{"PRIVATE-KEY", "pw-secret", "hmac-secret", "jwt-secret", "api-key-secret", "oauth-secret"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted document still holds %q", secret)
		}
	}
	for _, kept := range []string{`"cert":"CERT"`, `"key":"issuer"`, `"client_id":"cid"`, `"group":"admins"`, `"name":"svc"`,
		`"password":"{vault://redacted-value}"`, `"key":"{vault://redacted-value}"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("redacted document lacks %s: %s", kept, got)
		}
	}
	// The key-auth key: 16 bytes of its HMAC under the key, never a plain hash (which would let
	// anyone with the dump test guesses of a short key).
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("api-key-secret"))
	if want := fmt.Sprintf(`"key":"{vault://%x}"`, mac.Sum(nil)[:16]); !strings.Contains(got, want) {
		t.Errorf("key-auth key not %s: %s", want, got)
	}
	plain := sha256.Sum256([]byte("api-key-secret"))
	if strings.Contains(got, fmt.Sprintf("%x", plain[:8])) {
		t.Error("the key-auth key is shown as its unsalted sha256")
	}
	other, _ := JSON(Redacted(d, []byte("other-key")))
	if string(other) == got {
		t.Error("the digest does not depend on the key")
	}
	again, _ := JSON(d)
	if string(again) != string(before) {
		t.Error("Redacted changed the original document")
	}
	if Redacted(nil, key) != nil || Redacted(New(), key).Certificates != nil {
		t.Error("nil or empty lists should stay nil")
	}
}

// secretFields is the one list of secret fields; Redacted's typed code must hide exactly the
// fields it names, in every entity type the Document holds, and change nothing else. A document
// with every field of the list set (and a neighbour that is no secret) is redacted, and the two
// trees compared field by field.
func TestRedactedFollowsSecretFields(t *testing.T) {
	const secret = "S3CRET-VALUE"
	cred := func(kind string) map[string]any {
		m := map[string]any{"id": kind + "-id", "tags": []any{"t"}}
		for _, f := range SecretFields(kind) {
			m[f] = secret
		}
		m["username"], m["client_id"] = "public-"+kind, "public-"+kind
		return m
	}
	consumer := map[string]any{"username": "alice", "id": "k1"}
	for _, n := range nested["consumer"] {
		consumer[n[0]] = []any{cred(n[1])}
	}
	cert := cred("certificate")
	cert["cert"] = "PUBLIC-CERT"
	lic := cred("license")
	delete(lic, "username")
	delete(lic, "client_id")
	delete(lic, "tags")
	tree := map[string]any{"_format_version": "3.0", "certificates": []any{cert}, "consumers": []any{consumer},
		"licenses": []any{lic}}
	b, _ := json.Marshal(tree)
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	before := flatten(decodeJSON(t, &d), false, nil)
	after := flatten(decodeJSON(t, Redacted(&d, []byte("k"))), false, nil)
	if len(before.all) != len(after.all) || len(before.all) < len(nested["consumer"])+3 {
		t.Fatalf("%d entities before, %d after", len(before.all), len(after.all))
	}
	hidden := map[string]bool{}
	for i, e := range before.all {
		a := after.all[i]
		for f, v := range e.fields {
			changed := fmt.Sprint(v) != fmt.Sprint(a.fields[f])
			listed := slices.Contains(SecretFields(e.typ), f)
			switch {
			case listed && (!changed || strings.Contains(fmt.Sprint(a.fields[f]), secret)):
				t.Errorf("%s.%s is in secretFields but Redacted keeps it", e.typ, f)
			case !listed && changed:
				t.Errorf("%s.%s changed by Redacted but is not in secretFields", e.typ, f)
			case listed:
				hidden[e.typ+"."+f] = true
			}
		}
	}
	// Every listed field the Document can hold was tried (certificate key_alt it cannot).
	for typ, fs := range secretFields {
		for _, f := range fs {
			if !hidden[typ+"."+f] && !(typ == "certificate" && f == "key_alt") {
				t.Errorf("%s.%s was not exercised", typ, f)
			}
		}
	}
}

func decodeJSON(t *testing.T, d *Document) map[string]any {
	t.Helper()
	b, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSecretFieldsAndNames(t *testing.T) {
	if got := SecretFields("keyauth_credentials"); !slices.Equal(got, []string{"key"}) {
		t.Errorf("by list name: %v", got)
	}
	if got := SecretFields("certificate"); !slices.Equal(got, []string{"key", "key_alt"}) {
		t.Errorf("by type: %v", got)
	}
	if SecretFields("service") != nil || SecretFields("acls") != nil {
		t.Error("services and ACL groups hold no secret")
	}
	if got := SecretFieldNames(); !slices.Equal(got, []string{"client_secret", "key", "key_alt", "password", "payload", "secret"}) {
		t.Errorf("names: %v", got)
	}
}

package document

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"
)

// Redacted hides what KIC's dumps hide (certificate keys, credential secrets; a key-auth key as
// a stable digest), keeps everything else, and leaves the original untouched.
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
	out, err := JSON(Redacted(d))
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
	// The key-auth key: sha256's first 16 bytes, as KIC's deterministic redaction.
	sum := sha256.Sum256([]byte("api-key-secret"))
	if want := fmt.Sprintf(`"key":"{vault://%x}"`, sum[:16]); !strings.Contains(got, want) {
		t.Errorf("key-auth key not %s: %s", want, got)
	}
	again, _ := JSON(d)
	if string(again) != string(before) {
		t.Error("Redacted changed the original document")
	}
	if Redacted(nil) != nil || Redacted(New()).Certificates != nil {
		t.Error("nil or empty lists should stay nil")
	}
}

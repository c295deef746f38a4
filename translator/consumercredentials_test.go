package translator

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func credSecret(kind string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Data: map[string][]byte{}}
	if kind != "" {
		s.Labels = map[string]string{labelCredential: kind}
	}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// credentialJSON renders the one entity a credential holds, for comparison.
func credentialJSON(t *testing.T, c *credential) string {
	t.Helper()
	if c == nil {
		return ""
	}
	var v any
	switch c.kind {
	case credKeyAuth:
		v = c.key
	case credBasicAuth:
		v = c.basic
	case credHMACAuth:
		v = c.hmac
	case credJWT:
		v = c.jwt
	case credOAuth2:
		v = c.oauth2
	case credACL:
		v = c.acl
	case credMTLSAuth:
		v = c.mtls
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return c.kind + " " + string(b)
}

func TestParseCredential(t *testing.T) {
	const uuid = "6b1a7c1e-1d1e-4d5b-9a4b-0d6f8a9f2c11"
	cases := []struct {
		name   string
		secret *corev1.Secret
		want   string // credential as "<kind> <json>", "" when skipped
		issues []string
	}{
		{"key-auth", credSecret("key-auth", map[string]string{"key": "k", "ttl": "30"}),
			`key-auth {"key":"k","ttl":30}`, nil},
		{"key-auth with id", credSecret("key-auth", map[string]string{"key": "k", "id": uuid}),
			`key-auth {"id":"` + uuid + `","key":"k"}`, nil},
		{"basic-auth", credSecret("basic-auth", map[string]string{"username": "u", "password": "p"}),
			`basic-auth {"username":"u","password":"p"}`, nil},
		{"hmac-auth without secret (Kong generates it)", credSecret("hmac-auth", map[string]string{"username": "u"}),
			`hmac-auth {"username":"u"}`, nil},
		{"jwt defaults to HS256", credSecret("jwt", map[string]string{"key": "k"}),
			`jwt {"algorithm":"HS256","key":"k"}`, nil},
		{"jwt empty algorithm is HS256", credSecret("jwt", map[string]string{"key": "k", "algorithm": ""}),
			`jwt {"algorithm":"HS256","key":"k"}`, nil},
		{"jwt RS256", credSecret("jwt", map[string]string{"key": "k", "algorithm": "RS256", "rsa_public_key": "PEM"}),
			`jwt {"algorithm":"RS256","key":"k","rsa_public_key":"PEM"}`, nil},
		{"oauth2 splits redirect_uris without trimming",
			credSecret("oauth2", map[string]string{"name": "n", "client_id": "c", "client_type": "public",
				"redirect_uris": "https://a/cb, https://b/cb", "hash_secret": "TRUE"}),
			`oauth2 {"name":"n","client_id":"c","client_type":"public","hash_secret":true,"redirect_uris":["https://a/cb"," https://b/cb"]}`, nil},
		{"acl", credSecret("acl", map[string]string{"group": "g", "unknown": "ignored"}), `acl {"group":"g"}`, nil},
		{"mtls-auth", credSecret("mtls-auth", map[string]string{"subject_name": "cn"}), `mtls-auth {"subject_name":"cn"}`, nil},
		{"field names match ignoring case", credSecret("key-auth", map[string]string{"KEY": "k"}),
			`key-auth {"key":"k"}`, nil},
		{"exact name wins over other cases", credSecret("key-auth", map[string]string{"Key": "b", "key": "a"}),
			`key-auth {"key":"a"}`, nil},
		{"smallest of several case variants", credSecret("key-auth", map[string]string{"kEY": "c", "Key": "b"}),
			`key-auth {"key":"b"}`, nil},
		{"non-ASCII keys fold too", credSecret("hmac-auth", map[string]string{"username": "u", "ſecret": "s"}),
			`hmac-auth {"username":"u","secret":"s"}`, nil},
		{"a dropped ttl lets a cased TTL in", credSecret("key-auth", map[string]string{"key": "k", "ttl": "x", "TTL": "5"}), "",
			[]string{`data[ttl]: "x" is not an integer; ttl left unset`,
				"!data[TTL]: cannot decode key-auth credential: field ttl takes an integer, not a string; credential skipped"}},
		{"bad ttl is dropped", credSecret("key-auth", map[string]string{"key": "k", "ttl": "1h"}),
			`key-auth {"key":"k"}`, []string{`data[ttl]: "1h" is not an integer; ttl left unset`}},
		{"ttl on another type is parsed but unused", credSecret("acl", map[string]string{"group": "g", "ttl": "x"}),
			`acl {"group":"g"}`, []string{`data[ttl]: "x" is not an integer; ttl left unset`}},
		{"bad hash_secret is false", credSecret("oauth2", map[string]string{"name": "n", "client_id": "c", "hash_secret": "yes"}),
			`oauth2 {"name":"n","client_id":"c","hash_secret":false}`,
			[]string{`data[hash_secret]: "yes" is not a boolean; hash_secret set to false`}},
		{"no label", credSecret("", map[string]string{"key": "k"}), "",
			[]string{"!metadata.labels[konghq.com/credential]: Secret is used as a credential but has no konghq.com/credential label; credential skipped"}},
		{"legacy kongCredType", credSecret("", map[string]string{"kongCredType": "key-auth", "key": "k"}), "",
			[]string{"!metadata.labels[konghq.com/credential]: Secret is used as a credential but has no konghq.com/credential label (the kongCredType data key is no longer read; move its value to the label); credential skipped"}},
		{"legacy type name", credSecret("keyauth_credential", map[string]string{"key": "k"}), "",
			[]string{`!metadata.labels[konghq.com/credential]: unsupported credential type "keyauth_credential" (want one of acl, basic-auth, hmac-auth, jwt, key-auth, mtls-auth, oauth2); credential skipped`}},
		{"missing key", credSecret("key-auth", nil), "", []string{"!data[key]: key-auth credential needs key; credential skipped"}},
		{"missing hmac username", credSecret("hmac-auth", map[string]string{"secret": "s"}), "",
			[]string{"!data[username]: hmac-auth credential needs username; credential skipped"}},
		{"missing oauth2 name", credSecret("oauth2", map[string]string{"client_id": "c"}), "",
			[]string{"!data[name]: oauth2 credential needs name; credential skipped"}},
		{"missing acl group", credSecret("acl", nil), "", []string{"!data[group]: acl credential needs group; credential skipped"}},
		{"missing mtls subject", credSecret("mtls-auth", nil), "",
			[]string{"!data[subject_name]: mtls-auth credential needs subject_name; credential skipped"}},
		{"basic-auth needs a password (Kong requires it)", credSecret("basic-auth", map[string]string{"username": "u"}), "",
			[]string{"!data[password]: basic-auth credential needs password; credential skipped"}},
		{"empty value", credSecret("basic-auth", map[string]string{"username": "u", "password": ""}), "",
			[]string{"!data[password]: password is empty, which Kong rejects; credential skipped"}},
		{"id not a UUID", credSecret("acl", map[string]string{"group": "g", "id": "abc"}), "",
			[]string{`!data[id]: "abc" is not a UUID, which Kong rejects; credential skipped`}},
		{"created_at is not decodable", credSecret("acl", map[string]string{"group": "g", "created_at": "1"}), "",
			[]string{"!data[created_at]: cannot decode acl credential: field created_at takes an integer, not a string; credential skipped"}},
		{"tags are not decodable", credSecret("acl", map[string]string{"group": "g", "tags": "a"}), "",
			[]string{"!data[tags]: cannot decode acl credential: field tags takes a list, not a string; credential skipped"}},
		{"ca_certificate is not decodable", credSecret("mtls-auth", map[string]string{"subject_name": "cn", "ca_certificate": uuid}), "",
			[]string{"!data[ca_certificate]: cannot decode mtls-auth credential: field ca_certificate takes an object, not a string; credential skipped"}},
		{"a cased TTL is a string", credSecret("key-auth", map[string]string{"key": "k", "TTL": "5"}), "",
			[]string{"!data[TTL]: cannot decode key-auth credential: field ttl takes an integer, not a string; credential skipped"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cred, issues := parseCredential(c.secret, nil)
			if got := credentialJSON(t, cred); got != c.want {
				t.Errorf("credential\n got %s\nwant %s", got, c.want)
			}
			var got []string
			for _, is := range issues {
				mark := ""
				if is.fatal {
					mark = "!"
				}
				got = append(got, mark+is.field+": "+is.reason)
			}
			if strings.Join(got, "\n") != strings.Join(c.issues, "\n") {
				t.Errorf("issues\n got %q\nwant %q", got, c.issues)
			}
		})
	}
}

func TestParseCredentialTagsAndStringData(t *testing.T) {
	s := credSecret("key-auth", map[string]string{"key": "from-data"})
	s.StringData = map[string]string{"key": "from-string-data"}
	tag := "k8s-name:s"
	cred, issues := parseCredential(s, []*string{&tag})
	if len(issues) != 0 || cred == nil {
		t.Fatalf("issues %v", issues)
	}
	if *cred.key.Key != "from-string-data" || len(cred.key.Tags) != 1 || *cred.key.Tags[0] != tag {
		t.Errorf("got %s", credentialJSON(t, cred))
	}
	if string(s.Data["key"]) != "from-data" {
		t.Error("parsing modified the Secret")
	}
}

func TestCredentialUniqueKey(t *testing.T) {
	for _, c := range []struct {
		kind string
		data map[string]string
		want string
	}{
		{credKeyAuth, map[string]string{"key": "v"}, "key-auth key\x00v"},
		{credBasicAuth, map[string]string{"username": "v", "password": "p"}, "basic-auth username\x00v"},
		{credHMACAuth, map[string]string{"username": "v"}, "hmac-auth username\x00v"},
		{credJWT, map[string]string{"key": "v"}, "jwt-auth key\x00v"},
		{credOAuth2, map[string]string{"client_id": "v", "name": "n"}, "oauth2-credentials client_id\x00v"},
		{credACL, map[string]string{"group": "v"}, ""},
		{credMTLSAuth, map[string]string{"subject_name": "v"}, ""},
	} {
		cred, issues := parseCredential(credSecret(c.kind, c.data), nil)
		if cred == nil {
			t.Fatalf("%s: %v", c.kind, issues)
		}
		if got := cred.uniqueKey(); got != c.want {
			t.Errorf("%s: uniqueKey %q, want %q", c.kind, got, c.want)
		}
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"6b1a7c1e-1d1e-4d5b-9a4b-0d6f8a9f2c11": true,
		"6B1A7C1E-1D1E-4D5B-9A4B-0D6F8A9F2C11": true,
		"6b1a7c1e-1d1e-4d5b-9a4b-0d6f8a9f2c1":  false,
		"6b1a7c1e11d1e-4d5b-9a4b-0d6f8a9f2c11": false,
		"6b1a7c1e-1d1e-4d5b-9a4b-0d6f8a9f2c1g": false,
		"":                                     false,
	} {
		if got := isUUID(s); got != want {
			t.Errorf("isUUID(%q) = %v, want %v", s, got, want)
		}
	}
}

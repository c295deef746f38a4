package document

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// What kongsync posts (decK's nesting, plugins naming their route) and what a real Kong exports
// for it (flat lists, parents by id, defaults and timestamps filled in) are the same config.
const nestedConfig = `{"_format_version":"3.0",
 "services":[{"name":"ns.web.80","id":"s1","host":"web.ns.80.svc","port":80,"tags":["k8s-name:web"],
   "routes":[{"name":"ns.web.web.example.com.80","id":"r1","paths":["/a","/b"],"hosts":["web.example.com"],"strip_path":false}]}],
 "upstreams":[{"name":"web.ns.80.svc","id":"u1","targets":[{"target":"10.0.0.1:8080","weight":100}]}],
 "certificates":[{"id":"c1","cert":"CERT","key":"KEY","snis":[{"name":"web.example.com","certificate":{"id":"c1"}}]}],
 "consumers":[{"username":"alice","id":"k1","keyauth_credentials":[{"key":"secret"}]}],
 "plugins":[{"name":"rate-limiting","route":"ns.web.web.example.com.80","config":{"minute":5}}]}`

const exportedConfig = `{"_format_version":"3.0","_transform":false,
 "services":[{"name":"ns.web.80","id":"s1","host":"web.ns.80.svc","port":80,"tags":["k8s-name:web"],"protocol":"http","retries":5,"created_at":1,"updated_at":2}],
 "routes":[{"name":"ns.web.web.example.com.80","id":"r1","paths":["/a","/b"],"hosts":["web.example.com"],"strip_path":false,
   "service":{"id":"s1"},"regex_priority":0,"preserve_host":false,"created_at":1}],
 "upstreams":[{"name":"web.ns.80.svc","id":"u1","algorithm":"round-robin"}],
 "targets":[{"target":"10.0.0.1:8080","weight":100,"upstream":{"id":"u1"},"id":"t-generated"}],
 "certificates":[{"id":"c1","cert":"CERT","key":"KEY"}],
 "snis":[{"name":"web.example.com","certificate":{"id":"c1"},"id":"sni-generated"}],
 "consumers":[{"username":"alice","id":"k1"}],
 "keyauth_credentials":[{"key":"secret","consumer":{"id":"k1"},"id":"ka-generated"}],
 "plugins":[{"name":"rate-limiting","route":{"id":"r1"},"config":{"minute":5,"hour":null,"policy":"local"},"enabled":true,"id":"p-generated"}]}`

func TestCompareNestedWithExport(t *testing.T) {
	if d := Compare(decode(t, nestedConfig), decode(t, nestedConfig), CompareOptions{}); len(d) != 0 {
		t.Errorf("a config differs from itself: %v", d)
	}
	if d := Compare(decode(t, nestedConfig), decode(t, exportedConfig), CompareOptions{}); len(d) != 0 {
		t.Errorf("nested and exported forms of one config differ: %v", d)
	}
	strict := Compare(decode(t, nestedConfig), decode(t, exportedConfig), CompareOptions{Strict: true})
	var fields []string
	for _, d := range strict {
		fields = append(fields, d.Entity+" "+d.Field)
	}
	for _, want := range []string{"service ns.web.80 protocol", "plugin rate-limiting (route ns.web.web.example.com.80) config.policy",
		"target 10.0.0.1:8080 (upstream web.ns.80.svc) id"} {
		if !strings.Contains(strings.Join(fields, "\n"), want) {
			t.Errorf("strict comparison lacks %q: %v", want, fields)
		}
	}
}

func TestCompareReportsEachDifference(t *testing.T) {
	exp := decode(t, nestedConfig)
	act := decode(t, exportedConfig)
	routes := act["routes"].([]any)
	routes[0].(map[string]any)["paths"] = []any{"/b", "/a"}                             // order matters
	act["plugins"].([]any)[0].(map[string]any)["config"].(map[string]any)["minute"] = 6 // a value
	act["services"] = append(act["services"].([]any), map[string]any{"name": "extra", "host": "x"})
	act["keyauth_credentials"] = []any{}                         // a credential gone
	act["certificates"].([]any)[0].(map[string]any)["id"] = "c2" // another certificate
	act["snis"].([]any)[0].(map[string]any)["certificate"] = map[string]any{"id": "c2"}
	var got []string
	for _, d := range Compare(exp, act, CompareOptions{ShowSecrets: true}) {
		got = append(got, d.String())
	}
	want := []string{
		"- certificate c1: only in the expected configuration",
		"+ certificate c2: only in the actual configuration",
		`~ sni web.example.com: certificate: expected "certificate c1", actual "certificate c2"`,
		"- keyauth_credential secret (consumer alice): only in the expected configuration",
		"+ service extra: only in the actual configuration",
		`~ route ns.web.web.example.com.80: paths[0]: expected "/a", actual "/b"`,
		`~ route ns.web.web.example.com.80: paths[1]: expected "/b", actual "/a"`,
		"~ plugin rate-limiting (route ns.web.web.example.com.80): config.minute: expected 5, actual 6",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Matched by PEM, the certificates are one; their ids are ignored.
	for _, d := range Compare(exp, act, CompareOptions{IgnoreIDs: true}) {
		if strings.HasPrefix(d.Entity, "certificate") || strings.HasPrefix(d.Entity, "sni") {
			t.Errorf("with ids ignored: %s", d)
		}
	}
}

// Secrets are compared, never shown: on both sides (what Kong holds, what the manifests make)
// each secret field of secretFields is replaced by a digest under a key; a changed value is a
// difference printed "<redacted, differs>", a key-auth key naming its credential is its digest,
// and the same key gives the same digests, another key others. ShowSecrets shows them.
func TestCompareRedactsSecrets(t *testing.T) {
	const exp = `{"certificates":[{"id":"c1","cert":"CERT","key":"OLD-PRIVATE-KEY"}],
	 "consumers":[{"username":"alice",
	   "basicauth_credentials":[{"username":"alice","password":"hunter2"}],
	   "hmacauth_credentials":[{"username":"alice-h","secret":"hmac-old"}],
	   "jwt_secrets":[{"key":"issuer","secret":"jwt-old","algorithm":"HS256"}],
	   "keyauth_credentials":[{"key":"api-key-one"}],
	   "oauth2_credentials":[{"client_id":"cid","client_secret":"oauth-old","name":"app"}]}]}`
	act := strings.NewReplacer("OLD-PRIVATE-KEY", "NEW-PRIVATE-KEY", "hunter2", "hunter3", "hmac-old", "hmac-new",
		"jwt-old", "jwt-new", "api-key-one", "api-key-two", "oauth-old", "oauth-new").Replace(exp)
	key := []byte("fixed")
	diffs := Compare(decode(t, exp), decode(t, act), CompareOptions{SecretKey: key})
	var lines []string
	for _, d := range diffs {
		lines = append(lines, d.String())
	}
	text := strings.Join(lines, "\n")
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(Report(diffs))
	b := buf.String()
	for _, secret := range []string{"PRIVATE-KEY", "hunter", "hmac-", "jwt-", "api-key-", "oauth-"} {
		if strings.Contains(text, secret) || strings.Contains(b, secret) {
			t.Errorf("%q shown:\n%s\n%s", secret, text, b)
		}
	}
	digest := func(s string) string { return string(secretMasker(key)(s).(secretDigest)) }
	want := []string{
		"~ certificate c1: key: <redacted, differs>",
		"~ basicauth_credential alice (consumer alice): password: <redacted, differs>",
		"~ hmacauth_credential alice-h (consumer alice): secret: <redacted, differs>",
		"~ jwt_secret issuer (consumer alice): secret: <redacted, differs>",
		"- keyauth_credential <redacted:" + digest("api-key-one") + "> (consumer alice): only in the expected configuration",
		"+ keyauth_credential <redacted:" + digest("api-key-two") + "> (consumer alice): only in the actual configuration",
		"~ oauth2_credential cid (consumer alice): client_secret: <redacted, differs>",
	}
	slices.Sort(want)
	slices.Sort(lines)
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(b, `{"field":"password","expected":"<redacted>","actual":"<redacted>","redacted":true}`) {
		t.Errorf("JSON report: %s", b)
	}
	if d := Compare(decode(t, exp), decode(t, exp), CompareOptions{}); len(d) != 0 {
		t.Errorf("equal secrets differ: %v", d)
	}
	// A secret only one side sets: the other side is "(unset)".
	gone := strings.Replace(exp, `,"password":"hunter2"`, "", 1)
	d := Compare(decode(t, exp), decode(t, gone), CompareOptions{})
	if len(d) != 1 || d[0].String() != "~ basicauth_credential alice (consumer alice): password: expected <redacted>, actual (unset)" {
		t.Errorf("one side unset: %v", d)
	}
	// Without a key, each comparison draws its own: digests are not comparable across runs.
	a, b2 := Compare(decode(t, exp), decode(t, act), CompareOptions{}), Compare(decode(t, exp), decode(t, act), CompareOptions{})
	if fmt.Sprint(a) == fmt.Sprint(b2) {
		t.Error("two comparisons without a key gave the same digests")
	}
	shown := Compare(decode(t, exp), decode(t, act), CompareOptions{ShowSecrets: true})
	if !strings.Contains(fmt.Sprint(shown), `expected "hunter2", actual "hunter3"`) {
		t.Errorf("ShowSecrets: %v", shown)
	}
}

// Names and config keys from objects reach the text escaped; values are JSON (escaped by
// encoding/json) but for the format characters JSON leaves alone.
func TestDifferenceStringEscapes(t *testing.T) {
	d := Difference{Op: "~", Entity: "route ns.\x1b[2Jweb\r", Field: "config.a\u202eb", Expected: "\"x\u2066\"", Actual: `"y"`}
	got := d.String()
	for _, raw := range []string{"\x1b", "\r", "\u202e", "\u2066"} {
		if strings.Contains(got, raw) {
			t.Errorf("%q holds %q raw", got, raw)
		}
	}
	if want := `~ route ns.\x1b[2Jweb\r: config.a\u202eb: expected "x\u2066", actual "y"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

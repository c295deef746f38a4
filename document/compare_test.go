package document

import (
	"encoding/json"
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
	for _, d := range Compare(exp, act, CompareOptions{}) {
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

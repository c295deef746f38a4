package v1

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The CRD's JSON: snake_case upstream fields (Kong's names), healthchecks as Kong's.
const kongIngressJSON = `{"apiVersion":"configuration.konghq.com/v1","kind":"KongIngress",
"metadata":{"name":"k","namespace":"n","labels":{"x":"1"}},
"proxy":{"retries":1},"route":{"methods":["GET"]},
"upstream":{"host_header":"h","algorithm":"consistent-hashing","slots":100,"hash_on":"header","hash_on_header":"x",
 "hash_fallback":"cookie","hash_on_cookie":"c","hash_on_cookie_path":"/c","hash_fallback_header":"fh",
 "hash_on_query_arg":"q","hash_fallback_query_arg":"fq","hash_on_uri_capture":"u","hash_fallback_uri_capture":"fu",
 "healthchecks":{"threshold":50,"active":{"type":"http","http_path":"/st","concurrency":2,"headers":{"X":["a"]},
  "healthy":{"http_statuses":[200],"interval":1,"successes":2}},"passive":{"unhealthy":{"tcp_failures":6}}}}}`

func TestKongIngressJSONShape(t *testing.T) {
	var k KongIngress
	if err := json.Unmarshal([]byte(kongIngressJSON), &k); err != nil {
		t.Fatal(err)
	}
	u := k.Upstream
	if *u.HostHeader != "h" || *u.Algorithm != "consistent-hashing" || *u.Slots != 100 || *u.HashOnHeader != "x" ||
		*u.HashFallback != "cookie" || *u.HashOnCookiePath != "/c" || *u.HashFallbackHeader != "fh" || *u.HashOnQueryArg != "q" ||
		*u.HashFallbackQueryArg != "fq" || *u.HashOnURICapture != "u" || *u.HashFallbackURICapture != "fu" ||
		*u.Healthchecks.Threshold != 50 || *u.Healthchecks.Active.HTTPPath != "/st" || u.Healthchecks.Active.Headers["X"][0] != "a" ||
		*u.Healthchecks.Passive.Unhealthy.TCPFailures != 6 || string(k.Proxy) != `{"retries":1}` || len(k.Route) == 0 {
		t.Fatalf("decoded %+v", k)
	}
}

func TestKongIngressDeepCopyIsIndependent(t *testing.T) {
	var k KongIngress
	if err := json.Unmarshal([]byte(kongIngressJSON), &k); err != nil {
		t.Fatal(err)
	}
	orig, _ := json.Marshal(&k)
	c := k.DeepCopyObject().(*KongIngress)
	if !reflect.DeepEqual(&k, c) {
		t.Fatalf("copy differs:\n%+v\n%+v", k, *c)
	}
	*c.Upstream.HostHeader, *c.Upstream.Slots, *c.Upstream.Healthchecks.Active.HTTPPath = "x", 1, "/x"
	c.Upstream.Healthchecks.Active.Headers["X"][0], c.Proxy[0], c.Labels["x"] = "b", '[', "2"
	after, _ := json.Marshal(&k)
	if string(orig) != string(after) {
		t.Fatalf("copy shares memory with the original:\n%s\n%s", orig, after)
	}
	if (*KongIngress)(nil).DeepCopy() != nil {
		t.Fatal("nil copies to nil")
	}
}

package v1beta1

import (
	"encoding/json"
	"reflect"
	"testing"
)

const policyJSON = `{"apiVersion":"configuration.konghq.com/v1beta1","kind":"KongUpstreamPolicy",
"metadata":{"name":"p","namespace":"n","labels":{"x":"1"}},
"spec":{"algorithm":"consistent-hashing","slots":100,
"hashOn":{"header":"h","cookie":"c","cookiePath":"/c","queryArg":"q","uriCapture":"u","input":"ip"},
"hashOnFallback":{"input":"consumer"},
"stickySessions":{"cookie":"s","cookiePath":"/s"},
"healthchecks":{"threshold":50,
 "active":{"type":"http","concurrency":2,"httpPath":"/st","httpsSni":"e.com","httpsVerifyCertificate":false,"timeout":3,
  "headers":{"X":["a","b"]},"healthy":{"httpStatuses":[200],"interval":1,"successes":2},
  "unhealthy":{"httpFailures":1,"httpStatuses":[500],"tcpFailures":2,"timeouts":3,"interval":4}},
 "passive":{"type":"tcp","healthy":{"successes":5},"unhealthy":{"tcpFailures":6}}}}}`

func TestJSONShapeMatchesCRD(t *testing.T) {
	var p KongUpstreamPolicy
	if err := json.Unmarshal([]byte(policyJSON), &p); err != nil {
		t.Fatal(err)
	}
	s := p.Spec
	if *s.Algorithm != "consistent-hashing" || *s.Slots != 100 || *s.HashOn.Header != "h" || *s.HashOn.CookiePath != "/c" ||
		*s.HashOn.URICapture != "u" || *s.HashOnFallback.Input != "consumer" || s.StickySessions.Cookie != "s" ||
		*s.Healthchecks.Threshold != 50 || *s.Healthchecks.Active.HTTPSSNI != "e.com" ||
		*s.Healthchecks.Active.HTTPSVerifyCertificate || s.Healthchecks.Active.Headers["X"][1] != "b" ||
		s.Healthchecks.Active.Unhealthy.HTTPStatuses[0] != 500 || *s.Healthchecks.Passive.Unhealthy.TCPFailures != 6 {
		t.Fatalf("decoded %+v", s)
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	var p KongUpstreamPolicy
	if err := json.Unmarshal([]byte(policyJSON), &p); err != nil {
		t.Fatal(err)
	}
	orig, _ := json.Marshal(&p)
	q := p.DeepCopyObject().(*KongUpstreamPolicy)
	if !reflect.DeepEqual(&p, q) {
		t.Fatalf("copy differs:\n%+v\n%+v", p, *q)
	}
	*q.Spec.Algorithm, *q.Spec.Slots, *q.Spec.HashOn.Header, *q.Spec.HashOnFallback.Input = "x", 1, "x", "x"
	*q.Spec.StickySessions.CookiePath, q.Labels["x"] = "x", "2"
	hc := q.Spec.Healthchecks
	*hc.Threshold, *hc.Active.Type, hc.Active.Headers["X"][0] = 1, "x", "x"
	hc.Active.Healthy.HTTPStatuses[0], *hc.Active.Unhealthy.Interval, *hc.Passive.Healthy.Successes = 1, 1, 1
	after, _ := json.Marshal(&p)
	if string(orig) != string(after) {
		t.Fatalf("copy shares memory with the original:\n%s\n%s", orig, after)
	}
	if (*KongUpstreamPolicy)(nil).DeepCopy() != nil {
		t.Fatal("nil copies to nil")
	}
}

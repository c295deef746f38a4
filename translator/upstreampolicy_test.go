package translator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"

	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
)

func TestValidatePolicy(t *testing.T) {
	cases := []struct {
		spec string
		errs []string // "field: reason substring"
	}{
		{`{}`, nil},
		{`{"algorithm":"round-robin","slots":10}`, nil},
		{`{"slots":65536}`, nil},
		{`{"slots":65537}`, []string{"spec.slots: not between"}},
		{`{"algorithm":"consistent-hashing","hashOn":{"cookie":"c","cookiePath":"/"}}`, nil},
		{`{"algorithm":"consistent-hashing","hashOn":{"cookie":"c"}}`, []string{"spec.hashOn.cookiePath: is required"}},
		{`{"algorithm":"consistent-hashing","hashOn":{"cookiePath":"/"}}`, []string{"spec.hashOn.cookie: is required"}},
		{`{"algorithm":"consistent-hashing","hashOn":{"cookie":"c","cookiePath":"/"},"hashOnFallback":{"input":"ip"}}`,
			[]string{"spec.hashOnFallback: must not be set"}},
		{`{"algorithm":"sticky-sessions","hashOn":{"header":"h"}}`, nil},
		{`{"algorithm":"sticky-sessions","hashOn":{"input":"ip"},"hashOnFallback":{"input":"path"}}`,
			[]string{`spec.algorithm: must be "consistent-hashing"`}},
		{`{"hashOn":{"input":"ip"}}`, []string{"spec.algorithm: must be"}},
		{`{"algorithm":"consistent-hashing","hashOnFallback":{"header":"h","queryArg":"q"}}`,
			[]string{"spec.hashOnFallback: sets more than one of input, header"}},
		{`{"algorithm":"consistent-hashing","hashOnFallback":{"input":"bogus"}}`,
			[]string{`spec.hashOnFallback.input: "bogus" is not one of`}},
		{`{"algorithm":"sticky-sessions","hashOn":{"input":"none"},"stickySessions":{"cookie":"s"}}`, nil},
		{`{"algorithm":"sticky-sessions","hashOn":{"input":"ip"},"stickySessions":{"cookie":"s"}}`,
			[]string{"spec.hashOn: must be exactly {input: none}"}},
		{`{"healthchecks":{"threshold":0,"active":{"type":"grpcs","concurrency":1,"timeout":0,"httpPath":"/"},
			"passive":{"type":"tcp","healthy":{"successes":0},"unhealthy":{"timeouts":0}}}}`, nil},
		{`{"healthchecks":{"passive":{"unhealthy":{"httpStatuses":[100,599,42]}}}}`,
			[]string{"spec.healthchecks.passive.unhealthy.httpStatuses[2]: 42 is not"}},
	}
	for _, c := range cases {
		var s kup.KongUpstreamPolicySpec
		if err := json.Unmarshal([]byte(c.spec), &s); err != nil {
			t.Fatal(err)
		}
		errs := validatePolicy(&s)
		if len(errs) != len(c.errs) {
			t.Errorf("%s: errors %v, want %v", c.spec, errs, c.errs)
			continue
		}
		for i, e := range errs {
			if got := e.field + ": " + e.reason; !strings.HasPrefix(got, c.errs[i][:strings.Index(c.errs[i], ":")]) ||
				!strings.Contains(got, c.errs[i][strings.Index(c.errs[i], ":")+2:]) {
				t.Errorf("%s: error %q, want like %q", c.spec, got, c.errs[i])
			}
		}
	}
}

// TestApplyUpstreamPolicyMapping: KIC's field mapping for what the golden cases do not show:
// unset fields keep the upstream's values, and hash_on_cookie falls back to hashOnFallback's.
func TestApplyUpstreamPolicyMapping(t *testing.T) {
	var p kup.KongUpstreamPolicy
	spec := `{"algorithm":"consistent-hashing","hashOn":{"input":"ip"},"hashOnFallback":{"cookie":"fb","cookiePath":"/fb"}}`
	if err := json.Unmarshal([]byte(spec), &p.Spec); err != nil {
		t.Fatal(err)
	}
	u := kong.Upstream{Algorithm: kong.String("round-robin"), Slots: kong.Int(7), HostHeader: kong.String("h")}
	tr := &translation{}
	tr.applyUpstreamPolicy(&u, &p, nil)
	if len(tr.problems) != 0 {
		t.Fatalf("problems: %v", tr.problems)
	}
	if *u.Algorithm != "consistent-hashing" || *u.Slots != 7 || *u.HostHeader != "h" || *u.HashOn != "ip" ||
		*u.HashFallback != "cookie" || *u.HashOnCookie != "fb" || *u.HashOnCookiePath != "/fb" || u.Healthchecks != nil {
		t.Fatalf("upstream %+v", u)
	}
	*p.Spec.Algorithm = "latency" // the upstream holds copies, not the policy's pointers
	if *u.Algorithm != "consistent-hashing" {
		t.Fatal("upstream shares the policy's algorithm pointer")
	}
	tr.applyUpstreamPolicy(&u, nil, nil)
	if len(tr.problems) != 0 {
		t.Fatal("a nil policy is no problem")
	}
}

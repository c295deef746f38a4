package admission

import (
	"net/http"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kongsync/kongsync/translator"
)

// The webhook judges with the router flavor the sync loop translates for, read at each review:
// the flavor chosen from the replicas' GET / reaches the engine, and a change of it too.
// (What the translator makes of expressions is its own tests' business.)
func TestReviewUsesLoopRouterFlavor(t *testing.T) {
	v := newTestValidator(t, true)
	flavor := translator.RouterExpressions
	v.RouterFlavor = func() translator.RouterFlavor { return flavor }
	h := Handler(v, logr.Discard(), nil)
	for _, want := range []translator.RouterFlavor{translator.RouterExpressions, translator.RouterTraditional} {
		flavor = want
		code, resp, body := review(t, h, admissionv1.Create, ingresses, ingress("fl", "", "web"), "")
		if code != http.StatusOK || !resp.Allowed {
			t.Fatalf("review: HTTP %d allowed %v %s", code, resp.Allowed, body)
		}
		v.mu.Lock()
		got := v.engine.Options().RouterFlavor
		v.mu.Unlock()
		if got != want {
			t.Errorf("judged with router flavor %q, want the loop's %q", got, want)
		}
	}
}

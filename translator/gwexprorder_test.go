package translator

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// TestExprTieOrderWarmEqualsCold drives HTTPRoutes and GRPCRoutes whose split matches tie on
// their base priority (paths, services and hostnames of few lengths, creation timestamps of few
// values) through random edits under expressions, and compares every warm build with a cold
// one: the tie groups gatewayPart keeps must give the priorities a full pass gives.
func TestExprTieOrderWarmEqualsCold(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { exprTieRun(t, seed) })
	}
}

func exprTieRun(t *testing.T, seed uint64) {
	opts := DefaultOptions()
	opts.RouterFlavor = RouterExpressions
	opts.AssumeMissingGateways = true
	r := rand.New(rand.NewPCG(23, seed))
	paths := []string{"/a", "/b", "/cc", "/dd", "/", "/eee"}
	hosts := []string{"a.example.com", "b.example.com", "*.example.com", "c.example.org"}
	var objs []store.Object
	httpRoute := func(i int) *gatewayv1.HTTPRoute {
		var rules []gatewayv1.HTTPRouteRule
		for k := 0; k < 1+r.IntN(2); k++ {
			var ms []gatewayv1.HTTPRouteMatch
			for j := 0; j < r.IntN(3); j++ {
				p := paths[r.IntN(len(paths))]
				ms = append(ms, gatewayv1.HTTPRouteMatch{Path: &gatewayv1.HTTPPathMatch{Type: ptrOf(gatewayv1.PathMatchPathPrefix), Value: &p}})
			}
			rules = append(rules, gatewayv1.HTTPRouteRule{Matches: ms})
		}
		var hs []gatewayv1.Hostname
		for k := 0; k < r.IntN(3); k++ {
			hs = append(hs, gatewayv1.Hostname(hosts[r.IntN(len(hosts))]))
		}
		return &gatewayv1.HTTPRoute{
			TypeMeta: metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("r%02d", i), ResourceVersion: fmt.Sprint(r.Int()),
				CreationTimestamp: metav1.NewTime(time.Unix(int64(r.IntN(3)), 0))},
			Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "kong"}}},
				Hostnames: dedupHostnames(hs), Rules: rules},
		}
	}
	grpcRoute := func(i int) *gatewayv1.GRPCRoute {
		svc, method := []string{"a.S", "b.S", "cc.S"}[r.IntN(3)], "M"
		return &gatewayv1.GRPCRoute{
			TypeMeta: metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GRPCRoute"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("g%02d", i), ResourceVersion: fmt.Sprint(r.Int()),
				CreationTimestamp: metav1.NewTime(time.Unix(int64(r.IntN(2)), 0))},
			Spec: gatewayv1.GRPCRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "kong"}}},
				Rules: []gatewayv1.GRPCRouteRule{{Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: &svc, Method: &method}}}}}},
		}
	}
	for i := 0; i < 30; i++ {
		objs = append(objs, httpRoute(i))
	}
	for i := 0; i < 10; i++ {
		objs = append(objs, grpcRoute(i))
	}
	st, _ := store.Load(objs)
	eng := NewEngine(opts)
	for step := 0; step < 300; step++ {
		var o store.Object
		if r.IntN(4) == 0 {
			o = grpcRoute(r.IntN(10))
		} else {
			o = httpRoute(r.IntN(30))
		}
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
		warmMatchesCold(t, eng, st.Snapshot(), opts, fmt.Sprintf("step %d (%s %s)", step, o.GetObjectKind().GroupVersionKind().Kind, o.GetName()))
	}
}

func dedupHostnames(hs []gatewayv1.Hostname) []gatewayv1.Hostname {
	var out []gatewayv1.Hostname
	for _, h := range hs {
		dup := false
		for _, o := range out {
			dup = dup || o == h
		}
		if !dup {
			out = append(out, h)
		}
	}
	return out
}

// firstDiff shows where two encodings part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("warm: %s\ncold: %s", a[from:min(len(a), i+100)], b[from:min(len(b), i+100)])
}

// TestExprTieOrderBeyondRelativeBits ties more GRPCRoute split matches than the 8 relative bits
// order (300 routes, one base priority), moves random routes into and out of the tie, and
// compares every warm build with a cold one (the cold one sets the priorities on its own pieces,
// the warm one on copies), and the cold one with KIC's rule written out: the i-th oldest takes
// base + 255 - i, and those past the 256th take the base.
func TestExprTieOrderBeyondRelativeBits(t *testing.T) {
	opts := DefaultOptions()
	opts.RouterFlavor = RouterExpressions
	opts.AssumeMissingGateways = true
	r := rand.New(rand.NewPCG(29, 1))
	const n = 300
	route := func(i int, svc string) *gatewayv1.GRPCRoute {
		method := "M"
		return &gatewayv1.GRPCRoute{
			TypeMeta: metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GRPCRoute"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("g%03d", i), ResourceVersion: fmt.Sprint(r.Int()),
				CreationTimestamp: metav1.NewTime(time.Unix(int64(i%7), 0))},
			Spec: gatewayv1.GRPCRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "kong"}}},
				Rules: []gatewayv1.GRPCRouteRule{{Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: &svc, Method: &method}}}}}},
		}
	}
	svcs := make([]string, n)
	var objs []store.Object
	for i := range n {
		svcs[i] = "a.S"
		objs = append(objs, route(i, svcs[i]))
	}
	st, _ := store.Load(objs)
	eng := NewEngine(opts)
	for step := range 60 {
		i := r.IntN(n)
		svcs[i] = []string{"a.S", "bb.S"}[r.IntN(2)]
		if _, err := st.Upsert(route(i, svcs[i])); err != nil {
			t.Fatal(err)
		}
		want := warmMatchesCold(t, eng, st.Snapshot(), opts, fmt.Sprintf("step %d", step))
		checkTieRule(t, step, want.Document.Services, svcs)
	}
}

// checkTieRule checks the priorities of the routes of TestExprTieOrderBeyondRelativeBits
// against KIC's rule: by creation (i%7), then name, each group of one service length.
func checkTieRule(t *testing.T, step int, services []*document.Service, svcs []string) {
	t.Helper()
	got := map[string]uint64{}
	for _, s := range services {
		for _, rt := range s.Routes {
			got[*rt.Name] = *rt.Priority
		}
	}
	for _, svc := range []string{"a.S", "bb.S"} {
		var members []int
		for i, s := range svcs {
			if s == svc {
				members = append(members, i)
			}
		}
		slices.SortStableFunc(members, func(a, b int) int { return cmp.Compare(a%7, b%7) })
		base := uint64(1)<<44 + uint64(len(svc))<<24 + uint64(1)<<13
		for k, i := range members {
			want := base
			if k < 255 {
				want += 255 - uint64(k)
			}
			name := fmt.Sprintf("grpcroute.default.g%03d._.0.0", i)
			if got[name] != want {
				t.Fatalf("step %d: %s has priority %d, want %d (place %d of %d)", step, name, got[name], want, k, len(members))
			}
		}
	}
}

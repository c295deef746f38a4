package perf_test

import (
	"fmt"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// benchOptions are the options timedColdBuild and runIncremental translate with: the defaults,
// but for BenchmarkGatewayFlavors, which sets the router flavor of each of its runs.
var benchOptions = translator.DefaultOptions()

// BenchmarkGatewayFlavors is BenchmarkGatewayFullBuild and the HTTPRoute change of
// BenchmarkGatewayIncremental at 10k HTTPRoutes under Kong's default router flavor and under
// expressions, interleaved (issue 23: the expressions full build ≤ 1.2× the traditional one, one
// change ≤ 20 ms). Every workload HTTPRoute has a hostname of one length and the path "/", so
// all 10k split matches tie on their base priority: the expressions build orders them, and a
// change of route-00010 (early in the order) moves the priorities of the 4,085 after it that
// have relative bits left; route-05000 (past them) moves none.
func BenchmarkGatewayFlavors(b *testing.B) {
	const n = 10000
	defer func() { benchOptions = translator.DefaultOptions() }()
	flavorFullBuilds(b, n, routesLoaded)
	for _, f := range benchFlavors {
		for _, name := range []string{"route-05000", "route-00010", "route-00010-move"} {
			b.Run(fmt.Sprintf("change/n=%d/%s/%s", n, name, f), func(b *testing.B) {
				useFlavor(f)
				runIncremental(b, routesLoaded(b, n), pathChange(name))
			})
		}
	}
}

// pathChange edits the path of the HTTPRoute named by the sub-benchmark: /v0 and /v1 in turn
// (after the first op, each keeps the route's base priority), or, for "<route>-move", /v1 and
// the workload's / in turn, so that every op moves the route into or out of the 10k tie: the
// worst case of KIC's relative order, where ~4,085 routes after it change priority.
func pathChange(name string) func(st *store.Store, i int) store.Object {
	route, move := strings.CutSuffix(name, "-move")
	return func(st *store.Store, i int) store.Object {
		o, _ := st.Get(store.Ref{Kind: store.KindHTTPRoute, Namespace: "default", Name: route})
		r := o.(*gatewayv1.HTTPRoute).DeepCopy()
		v := fmt.Sprintf("/v%d", i%2)
		if move && i%2 == 1 {
			v = "/"
		}
		r.Spec.Rules[0].Matches[0].Path.Value = &v
		return r
	}
}

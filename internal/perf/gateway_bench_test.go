package perf_test

import (
	"fmt"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

// routesLoaded is a store holding issue 12's workload of n HTTPRoutes (`genworkload
// -httproutes N`: one Gateway, N HTTPRoutes each with one rule, one match and its own Service
// and EndpointSlice).
func routesLoaded(b *testing.B, n int) *store.Store {
	b.Helper()
	return loadedConfig(b, workload.Config{HTTPRoutes: n, Namespaces: 1, UIDs: true})
}

// BenchmarkGatewayFullBuild is BenchmarkFullBuild for N HTTPRoutes (issue 12: 10k in ≤ 150 ms,
// linear to 100k): snapshot, translate, encode, hash, cold.
func BenchmarkGatewayFullBuild(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		b.ReportAllocs()
		var cpu cpuMeter
		routes := 0
		for b.Loop() {
			b.StopTimer()
			built := timedColdBuild(b, &cpu, routesLoaded(b, n))
			routes = 0
			for _, s := range built.Document.Services {
				routes += len(s.Routes)
			}
			if len(built.Problems) != 0 || routes != n {
				b.Fatalf("%d routes, problems %v", routes, built.Problems)
			}
			b.StartTimer()
		}
		cpu.Report(b)
	})
}

// BenchmarkGatewayIncremental is one HTTPRoute change (its path) or one of its backends'
// EndpointSlice changes at N = 10k HTTPRoutes, from "store changed" to "new document hashed",
// the Engine warm (issue 12: ≤ 20 ms). Each op alternates two versions of the object.
func BenchmarkGatewayIncremental(b *testing.B) {
	const n = 10000
	changes := map[string]func(st *store.Store, i int) store.Object{
		"httproute": func(st *store.Store, i int) store.Object {
			o, _ := st.Get(store.Ref{Kind: store.KindHTTPRoute, Namespace: "default", Name: "route-05000"})
			r := o.(*gatewayv1.HTTPRoute).DeepCopy()
			v := fmt.Sprintf("/v%d", i%2)
			r.Spec.Rules[0].Matches[0].Path.Value = &v
			return r
		},
		"endpointslice": func(st *store.Store, i int) store.Object {
			o, _ := st.Get(store.Ref{Kind: store.KindEndpointSlice, Namespace: "default", Name: "route-05000-1"})
			es := o.(*discoveryv1.EndpointSlice).DeepCopy()
			es.Endpoints[0].Addresses[0] = fmt.Sprintf("10.201.0.%d", 2+i%2)
			return es
		},
	}
	for _, kind := range []string{"httproute", "endpointslice"} {
		b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
			runIncremental(b, routesLoaded(b, n), changes[kind])
		})
	}
}

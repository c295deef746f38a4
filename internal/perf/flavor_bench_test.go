package perf_test

import (
	"fmt"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// BenchmarkFlavor is BenchmarkFullBuild's cold build of 10k Ingresses under the traditional and
// the expressions router, interleaved in one run (one build of each per op, each on a fresh
// store), so that the machine's load weighs on both alike. It reports each flavor's CPU time per
// build and their ratio (issue 23: expressions ≤ 1.2× traditional), and each one's allocation.
func BenchmarkFlavor(b *testing.B) {
	const n = 10000
	flavors := []translator.RouterFlavor{translator.RouterTraditionalCompatible, translator.RouterExpressions}
	var cpu [2]cpuMeter
	var alloc [2]uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i, f := range flavors {
			st := loaded(b, n)
			opts := translator.DefaultOptions()
			opts.RouterFlavor = f
			before := totalAlloc()
			cpu[i].Start()
			b.StartTimer()
			built, err := translator.BuildOnce(st.Snapshot(), opts)
			if err != nil {
				b.Fatal(err)
			}
			built.Config.Hash()
			b.StopTimer()
			cpu[i].Stop()
			alloc[i] += totalAlloc() - before
		}
		b.StartTimer()
	}
	perBuild := func(i int) float64 { return float64(cpu[i].total.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(perBuild(0), "trad-cpu-ms/build")
	b.ReportMetric(perBuild(1), "expr-cpu-ms/build")
	b.ReportMetric(perBuild(1)/perBuild(0), "expr/trad")
	b.ReportMetric(float64(alloc[0])/float64(b.N)/n, "trad-alloc-B/ingress")
	b.ReportMetric(float64(alloc[1])/float64(b.N)/n, "expr-alloc-B/ingress")
}

// BenchmarkIngressFlavors is BenchmarkFullBuild and the Ingress change of BenchmarkIncremental
// at 10k Ingresses under Kong's default router flavor and under expressions, as sub-benchmarks
// of one run (issue 23: the expressions full build ≤ 1.2× the traditional one, one change
// ≤ 20 ms); BenchmarkGatewayFlavors is the same for HTTPRoutes. hack/bench-flavors.sh runs both
// and the whole `kongsync dump` of each flavor, interleaved.
func BenchmarkIngressFlavors(b *testing.B) {
	const n = 10000
	defer func() { benchOptions = translator.DefaultOptions() }()
	flavorFullBuilds(b, n, loaded)
	for _, f := range benchFlavors {
		b.Run(fmt.Sprintf("change/n=%d/%s", n, f), func(b *testing.B) {
			useFlavor(f)
			runIncremental(b, loaded(b, n), func(st *store.Store, i int) store.Object {
				o, _ := st.Get(store.Ref{Kind: store.KindIngress, Namespace: "default", Name: "app-05000"})
				ing := o.(*networkingv1.Ingress).DeepCopy()
				ing.Spec.Rules[0].HTTP.Paths[0].Path = fmt.Sprintf("/v%d", i%2)
				return ing
			})
		})
	}
}

// benchFlavors are the router flavors the flavor benchmarks compare, Kong's default first.
var benchFlavors = []translator.RouterFlavor{translator.RouterTraditionalCompatible, translator.RouterExpressions}

// useFlavor makes timedColdBuild and runIncremental translate for f.
func useFlavor(f translator.RouterFlavor) {
	benchOptions = translator.DefaultOptions()
	benchOptions.RouterFlavor = f
}

// flavorFullBuilds runs a cold full build of load's n objects under each flavor, as the
// sub-benchmarks full/n=N/<flavor> (hack/bench-flavors.sh reads these names).
func flavorFullBuilds(b *testing.B, n int, load func(*testing.B, int) *store.Store) {
	for _, f := range benchFlavors {
		b.Run(fmt.Sprintf("full/n=%d/%s", n, f), func(b *testing.B) {
			useFlavor(f)
			b.ReportAllocs()
			var cpu cpuMeter
			for b.Loop() {
				b.StopTimer()
				timedColdBuild(b, &cpu, load(b, n))
				b.StartTimer()
			}
			cpu.Report(b)
		})
	}
}

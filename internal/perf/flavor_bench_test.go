package perf_test

import (
	"testing"

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

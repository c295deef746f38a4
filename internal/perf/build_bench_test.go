package perf_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// benchSizes are the Ingress counts of issue 4's targets: 10k in ≤ 100 ms, 100k linear.
var benchSizes = []int{100, 1000, 10000, 100000}

// workloads caches generated objects per configuration: generating 100k Ingresses takes seconds and
// every benchmark below reads the same objects without modifying them.
var workloads sync.Map

func objects(b *testing.B, n int) []store.Object { return configObjects(b, workload.Defaults(n)) }

// configObjects generates (once per configuration) the objects of a workload.
func configObjects(b *testing.B, c workload.Config) []store.Object {
	b.Helper()
	if v, ok := workloads.Load(c); ok {
		return v.([]store.Object)
	}
	objs := workloadObjects(b, c)
	workloads.Store(c, objs)
	return objs
}

// workloadObjects generates the objects of a workload as store objects.
func workloadObjects(tb testing.TB, c workload.Config) []store.Object {
	tb.Helper()
	raw, err := workload.Objects(c)
	if err != nil {
		tb.Fatal(err)
	}
	objs := make([]store.Object, len(raw))
	for i, o := range raw {
		objs[i] = o.(store.Object)
	}
	return objs
}

// loaded returns a store holding the workload of size n, never snapshotted.
func loaded(b *testing.B, n int) *store.Store { return loadedConfig(b, workload.Defaults(n)) }

func loadedConfig(b *testing.B, c workload.Config) *store.Store {
	b.Helper()
	st, notes := store.Load(configObjects(b, c))
	if len(notes) != 0 {
		b.Fatal(notes)
	}
	return st
}

func eachSize(b *testing.B, f func(b *testing.B, n int)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { f(b, n) })
	}
}

// BenchmarkFullBuild is what one change costs without incremental caching: snapshot of a store
// whose every kind changed, translate, encode as the sync loop sends it (document.EncodeConfig:
// pieces, never joined), and hash. Building the
// store is excluded. alloc-B/ingress is the allocation target (≤ 10 KB); json-B/ingress is the
// size of the config each Ingress contributes.
func BenchmarkFullBuild(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		b.ReportAllocs()
		var alloc uint64
		var size int
		var cpu cpuMeter
		for b.Loop() {
			b.StopTimer()
			st := loaded(b, n)
			before := totalAlloc()
			built := timedColdBuild(b, &cpu, st)
			alloc += totalAlloc() - before
			size = built.Config.Len()
			b.StartTimer()
		}
		cpu.Report(b)
		b.ReportMetric(float64(alloc)/float64(b.N)/float64(n), "alloc-B/ingress")
		b.ReportMetric(float64(size)/float64(n), "json-B/ingress")
	})
}

// timedColdBuild is BuildOnce of st's snapshot with the default options and the md5 of its
// config, the part of a full-build benchmark op that is timed: it runs the timer and cpu only
// for that, and returns with the timer stopped.
func timedColdBuild(b *testing.B, cpu *cpuMeter, st *store.Store) translator.Built {
	cpu.Start()
	b.StartTimer()
	built, err := translator.BuildOnce(st.Snapshot(), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	built.Config.Hash()
	b.StopTimer()
	cpu.Stop()
	return built
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// BenchmarkLoad is the store stage: Upsert of every object (3n + 1) into an empty store.
func BenchmarkLoad(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		objs := objects(b, n)
		b.ReportAllocs()
		loopCPU(b, func() {
			st := store.New()
			for _, o := range objs {
				if _, err := st.Upsert(o); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkSnapshot is the first snapshot of a loaded store: sorting every kind and building
// the EndpointSlice index.
func BenchmarkSnapshot(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		b.ReportAllocs()
		var cpu cpuMeter
		for b.Loop() {
			b.StopTimer()
			st := loaded(b, n)
			cpu.Start()
			b.StartTimer()
			st.Snapshot()
			cpu.Stop()
		}
		cpu.Report(b)
	})
}

// BenchmarkTranslate is a cold translator.Engine build (translation and encoding, without the
// md5) of a snapshot taken once.
func BenchmarkTranslate(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		snap := loaded(b, n).Snapshot()
		opts := translator.DefaultOptions()
		b.ReportAllocs()
		loopCPU(b, func() { mustBuild(b, snap, opts) })
	})
}

func translated(b *testing.B, n int) *document.Document {
	b.Helper()
	return mustBuild(b, loaded(b, n).Snapshot(), translator.DefaultOptions()).Document
}

// BenchmarkEncodeJSON is document.JSON: the bytes posted to Kong.
func BenchmarkEncodeJSON(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		doc := translated(b, n)
		b.ReportAllocs()
		loopCPU(b, func() {
			if _, err := document.JSON(doc); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkEncodeYAML is document.YAML: what kongsync dump prints.
func BenchmarkEncodeYAML(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		doc := translated(b, n)
		b.ReportAllocs()
		loopCPU(b, func() {
			if _, err := document.YAML(doc); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkHash is the md5 of the JSON config.
func BenchmarkHash(b *testing.B) {
	eachSize(b, func(b *testing.B, n int) {
		js, err := document.JSON(translated(b, n))
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(js)))
		loopCPU(b, func() { document.Hash(js) })
	})
}

// mustBuild is a cold translator.Engine build.
func mustBuild(b testing.TB, snap *store.Snapshot, opts translator.Options) translator.Built {
	b.Helper()
	built, err := translator.BuildOnce(snap, opts)
	if err != nil {
		b.Fatal(err)
	}
	return built
}

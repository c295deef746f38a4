package perf_test

import (
	"crypto/md5"
	"fmt"
	"slices"
	"testing"
	"time"
)

// floorSink keeps the floor's copy alive, so that the compiler cannot drop it.
var floorSink []byte

// BenchmarkFloor is issue 21's "toward the floor": the full build of n Ingresses (as
// BenchmarkFullBuild: snapshot, cold translate, encode, md5) against the least any build of the
// same config must do — one md5 over its encoded bytes and one copy of them into fresh memory
// (floor) — timed in the same op, one after the other, so that both meet the same machine.
// It reports the medians of both (build-ms, floor-ms), x-floor, their ratio (the target: ≤ 3),
// and the build's CPU time (cpu-ms/op, as BenchmarkFullBuild). ns/op, B/op and allocs/op are
// the build and the floor together (the floor allocates its one copy).
func BenchmarkFloor(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			js := configBytes(b, n)
			b.ReportAllocs()
			var builds, floors []time.Duration
			var cpu cpuMeter
			for b.Loop() {
				b.StopTimer()
				st := loaded(b, n)
				start := time.Now()
				built := timedColdBuild(b, &cpu, st)
				builds = append(builds, time.Since(start))
				if built.Config.Len() != len(js) {
					b.Fatalf("config is %d bytes, the floor's %d", built.Config.Len(), len(js))
				}
				start = time.Now()
				b.StartTimer() // b.Loop wants it running; it stops at the next op's start
				floor(js)
				floors = append(floors, time.Since(start))
			}
			build, fl := median(builds), median(floors)
			b.ReportMetric(ms(build), "build-ms")
			b.ReportMetric(ms(fl), "floor-ms")
			b.ReportMetric(float64(build)/float64(fl), "x-floor")
			cpu.Report(b)
		})
	}
}

// floor is the md5 of a config and one copy of it into fresh memory: what remains of a build
// that had nothing to decide and nothing to encode.
func floor(js []byte) {
	md5.Sum(js)
	floorSink = append(make([]byte, 0, len(js)), js...)
}

// configBytes is the encoded config of the n-Ingress workload, contiguous.
func configBytes(b *testing.B, n int) []byte {
	b.Helper()
	st := loaded(b, n)
	return mustBuild(b, st.Snapshot(), benchOptions).Config.Bytes()
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

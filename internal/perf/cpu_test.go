package perf_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time so far. On a shared machine wall-clock ns/op
// rises with other load; CPU time per op (including GC and helper goroutines) mostly does not,
// so benchmarks report both.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter accumulates CPU time over the timed parts of a benchmark.
type cpuMeter struct {
	total time.Duration
	start time.Duration
}

func (m *cpuMeter) Start() { m.start = cpuTime() }
func (m *cpuMeter) Stop()  { m.total += cpuTime() - m.start }

// Report adds cpu-ms/op to the benchmark's results.
func (m *cpuMeter) Report(b *testing.B) {
	b.ReportMetric(float64(m.total.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// loopCPU runs f b.N times (b.Loop) and reports CPU time per op.
func loopCPU(b *testing.B, f func()) {
	var m cpuMeter
	m.Start()
	for b.Loop() {
		f()
	}
	m.Stop()
	m.Report(b)
}

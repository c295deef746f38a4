// Package parallel is kongsync's one work-sharing loop: a fixed number of goroutines taking
// indexes in turn, for the per-object work a cold build, a snapshot or a manifest decode
// splits across the CPUs.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i in [0, n) on min(workers, n) goroutines, each taking the next
// index not taken yet (an uneven load evens out), and returns when every call returned. A
// panic in f is not recovered here: callers whose f may panic recover inside it.
func Each(n, workers int, f func(i int)) {
	Start(n, workers, f)()
}

// Start is Each without the waiting: it returns at once, with the function that waits, so
// that the caller can consume results while they are made.
func Start(n, workers int, f func(i int)) (wait func()) {
	workers = min(workers, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	return wg.Wait
}

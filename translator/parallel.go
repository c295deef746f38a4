package translator

import (
	gosync "sync"
	"sync/atomic"
)

// A cold build that keeps nothing for a next one (BuildOnce: `kongsync dump`, the full-build
// benchmarks) spends most of its translation in two per-object loops of the Ingress family:
// the pieces of the served Ingresses, and the settings and upstream pieces of the Kong
// services. Without memos these are functions of the snapshot that only report problems, so
// they run split across the CPUs, each worker with its own copy of the build context (fork).
// The problems are joined in the order a sequential loop reports them (finishProblems sorts
// them anyway), and what the workers make is the same values, so the build's bytes are the
// same (TestParallelBuildEqualsSequential builds every golden case both ways).

// splits reports whether a loop over n objects runs in parallel.
func (t *translation) splits(n int) bool {
	return !t.keep && t.par.workers > 1 && n >= max(t.par.min, t.par.workers)
}

// fork returns a build context for a worker: the same snapshot, options and shared values,
// with no problems and its own caches. Its fields are listed, not copied wholesale: a field
// added to translation starts out zero in a fork, so that no worker appends to a slice or
// writes a cache another one uses.
func (t *translation) fork() *translation {
	return &translation{
		snap:         view{snap: t.snap.snap},
		opts:         t.opts,
		gen:          t.gen,
		kinds:        t.kinds,
		keep:         t.keep,
		defaultClass: t.defaultClass,
		defaults:     t.defaults.fork(),
		ids:          t.ids,
		seed:         t.seed,
		groupGen:     t.groupGen,
	}
}

// inParallel runs f over [0, n) in contiguous chunks taken in turn by one goroutine per worker
// (the caller's among them), each with its own fork of t: f(w, worker, from, to) may be called
// several times per worker, never twice for a chunk. Taking chunks in turn rather than one
// fixed half each keeps both CPUs busy to the end when one runs slower (a busy neighbour on a
// virtual machine, a GC worker), where a fixed split waits for the slower half. The forks'
// problems are appended to t's in chunk order, as a sequential loop reports them. A panic in a
// worker is raised again in the caller, where the sync loop's recovery sees it.
func (t *translation) inParallel(n int, f func(w *translation, worker, from, to int)) {
	workers := min(t.par.workers, n)
	size := chunkSize(n, workers, t.par.min)
	chunks := make([]chunkProblems, (n+size-1)/size)
	forks := make([]*translation, workers)
	panics := make([]any, workers)
	var next atomic.Int64
	var wg gosync.WaitGroup
	run := func(i int) {
		defer func() {
			if v := recover(); v != nil {
				panics[i] = v
			}
		}()
		w := t.fork()
		forks[i] = w
		for c := int(next.Add(1) - 1); c < len(chunks); c = int(next.Add(1) - 1) {
			from := len(w.problems)
			f(w, i, c*size, min((c+1)*size, n))
			chunks[c] = chunkProblems{fork: i, from: from, to: len(w.problems)}
		}
	}
	for i := range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(i)
		}()
	}
	run(workers - 1)
	wg.Wait()
	for _, v := range panics {
		if v != nil {
			panic(v)
		}
	}
	for _, c := range chunks {
		t.problems = append(t.problems, forks[c.fork].problems[c.from:c.to]...)
	}
}

// chunkProblems says where the problems of one chunk of inParallel are: in which fork, at
// which positions.
type chunkProblems struct{ fork, from, to int }

// chunkSize is the length of inParallel's chunks: about eight per worker, so that a slower
// worker leaves the other little to wait for, and at least an eighth of the fewest objects a
// loop splits for (32 by default), so that taking a chunk costs nothing next to translating it.
func chunkSize(n, workers, splitMin int) int {
	return max(1, splitMin/8, (n+8*workers-1)/(8*workers))
}

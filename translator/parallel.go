package translator

import gosync "sync"

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

// inParallel runs f over [0, n) in contiguous runs (numbered from 0), one per worker, each
// with a fork of t (the caller's goroutine takes the last run); the forks' problems are
// appended to t's in run order. A panic in a worker is raised again in the caller, where the
// sync loop's recovery sees it. It returns the number of runs.
func (t *translation) inParallel(n int, f func(w *translation, run, from, to int)) int {
	workers := min(t.par.workers, n)
	forks := make([]*translation, workers)
	panics := make([]any, workers)
	var wg gosync.WaitGroup
	run := func(i int) {
		defer func() {
			if v := recover(); v != nil {
				panics[i] = v
			}
		}()
		forks[i] = t.fork()
		f(forks[i], i, i*n/workers, (i+1)*n/workers)
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
	for _, w := range forks {
		t.problems = append(t.problems, w.problems...)
	}
	return workers
}

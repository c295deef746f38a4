package translator

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kongsync/kongsync/store"
)

// TestParallelBuildEqualsSequential builds snapshots cold twice, with the per-object loops split
// over three workers from one object on (parallel.go) and sequentially: every golden case, and
// the worlds of a few random-change seeds after each of their first changes. The configs,
// hashes, problems and statuses must be the same. Run it under -race too: a worker that writes
// what another reads shows there.
func TestParallelBuildEqualsSequential(t *testing.T) {
	check := func(t *testing.T, what string, snap *store.Snapshot, opts Options) {
		t.Helper()
		seq := buildSplit(t, snap, opts, parallelism{workers: 1})
		par := buildSplit(t, snap, opts, parallelism{workers: 3, min: 1})
		if msg := builtMismatch(par, seq); msg != "" {
			t.Errorf("%s: parallel (\"warm\") and sequential (\"cold\") builds differ:\n%s", what, msg)
		}
	}
	for _, dir := range goldenCases(t) {
		check(t, filepath.Base(dir), snapshotOf(t, loadObjects(t, dir)), caseOptions(t, dir))
	}
	steps := 60
	if testing.Short() {
		steps = 15
	}
	for seed := uint64(1); seed <= 4; seed++ {
		w := newWorld(t, seed)
		opts := randomOptions(seed)
		for step := range steps {
			w.change()
			check(t, fmt.Sprintf("seed %d step %d", seed, step), w.st.Snapshot(), opts)
		}
	}
}

// buildSplit is a cold build (BuildOnce) whose loops split as par says.
func buildSplit(t *testing.T, snap *store.Snapshot, opts Options, par parallelism) Built {
	t.Helper()
	e := newEngine(opts)
	e.par = par
	b, err := e.Build(snap)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

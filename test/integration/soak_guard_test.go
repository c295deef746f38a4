//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// The invariants the hostile tenant (soak_hostile_test.go) adds, beside the others: kongsync
// never dies of it (no Run returns unasked, no panic, no heap blow-up), the victims translate
// exactly as they would without it (isolation), and no check stalls.

const (
	// soakBuildBound bounds each cold build the checks make: issue 20 bounds `dump` to 10 s, and
	// the soak's world builds in milliseconds; a translator stuck in work super-linear in a
	// tenant's input shows here first.
	soakBuildBound = 10 * time.Second
	// soakHeapLimit is the process's heap (live and not yet collected, both kongsyncs, the
	// doubles and the soak) that fails the soak at once. Runs measured live heaps under 100 MiB
	// (docs/reliability.md); an alias bomb expanded to gigabytes passes it within a second,
	// before the machine's OOM killer would end the run without evidence.
	soakHeapLimit = 1536 << 20
	// soakCheckSlack is what a check may take beyond its convergence and Event bounds (reading
	// the cluster back, the isolation builds) before the soak calls it stalled.
	soakCheckSlack = 60 * time.Second
)

// checkHostile checks, after the others, that no kongsync incarnation has stopped on its own and
// that the victims are isolated from the hostile tenant.
func (s *soak) checkHostile(phase int, snap *store.Snapshot, exp *expectation) {
	if gone := s.procs.exited(); len(gone) > 0 {
		s.violation(fmt.Sprintf("after phase %d kongsync stopped unasked: %s", phase, strings.Join(gone, "; ")), exp, nil)
	}
	s.count("check: no kongsync stopped unasked")
	with, err := s.refusedByKong(snap)
	if err != nil {
		s.violation(fmt.Sprintf("isolation after phase %d: %v", phase, err), exp, nil)
	}
	without, err := s.refusedByKong(snap.Without(namespaceRefs(snap, s.world.evil.ns)...))
	if err != nil {
		s.violation(fmt.Sprintf("isolation after phase %d, without the hostile tenant: %v", phase, err), exp, nil)
	}
	if diffs := isolationDiffs(with, without, s.world.evil.ns); len(diffs) > 0 {
		_ = os.WriteFile(s.path("isolation.txt"), []byte(strings.Join(diffs, "\n")+"\n"), 0o644)
		if len(diffs) > 20 {
			diffs = append(diffs[:20], fmt.Sprintf("… %d more in isolation.txt", len(diffs)-20))
		}
		s.violation(fmt.Sprintf("after phase %d the hostile tenant changes what others translate to: %s", phase, strings.Join(diffs, "; ")), with, nil)
	}
	s.count("check: victims isolated from the hostile tenant")
}

// namespaceRefs are every object of namespace ns in snap, and the Namespace itself.
func namespaceRefs(snap *store.Snapshot, ns string) []store.Ref {
	refs := []store.Ref{{Kind: store.KindNamespace, Name: ns}}
	for _, k := range store.Kinds {
		for _, o := range snap.Objects(k) {
			if o.GetNamespace() == ns {
				refs = append(refs, store.Ref{Kind: k, Namespace: ns, Name: o.GetName()})
			}
		}
	}
	return refs
}

// isolationDiffs is the isolation property: the config built with namespace ns, less the
// entities tagged with ns, equals the config built without ns's objects (document.Compare,
// strict), and the problems of objects outside ns are the same in both. It returns the ways
// they differ.
func isolationDiffs(with, without *expectation, ns string) []string {
	var out []string
	for _, d := range document.Compare(without.doc, withoutNamespace(with.doc, ns), document.CompareOptions{Strict: true}) {
		switch d.Op {
		case "-":
			out = append(out, fmt.Sprintf("config: %s only without the hostile tenant", d.Entity))
		case "+":
			out = append(out, fmt.Sprintf("config: %s only with the hostile tenant", d.Entity))
		default:
			out = append(out, fmt.Sprintf("config: %s: %s is %q without the hostile tenant, %q with it", d.Entity, d.Field, d.Expected, d.Actual))
		}
	}
	a, b := problemsOutside(with.built.Problems, ns), problemsOutside(without.built.Problems, ns)
	for _, p := range a {
		if !slices.Contains(b, p) {
			out = append(out, "problem only with the hostile tenant: "+p)
		}
	}
	for _, p := range b {
		if !slices.Contains(a, p) {
			out = append(out, "problem only without the hostile tenant: "+p)
		}
	}
	return out
}

func problemsOutside(ps []translator.Problem, ns string) []string {
	var out []string
	for _, p := range ps {
		if p.Object.Namespace != ns {
			out = append(out, p.String())
		}
	}
	return out
}

// withoutNamespace is doc without the entities tagged k8s-namespace:ns, and what they nest. It
// looks into every list of entities, not into a plugin's config (the user's own data).
func withoutNamespace(doc map[string]any, ns string) map[string]any {
	return dropTagged(doc, translator.TagNamespace+ns)
}

func dropTagged(m map[string]any, tag string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		l, ok := v.([]any)
		if !ok || k == "config" || k == "tags" {
			out[k] = v
			continue
		}
		kept := make([]any, 0, len(l))
		for _, x := range l {
			e, ok := x.(map[string]any)
			switch {
			case !ok:
				kept = append(kept, x)
			case !hasTag(e, tag):
				kept = append(kept, dropTagged(e, tag))
			}
		}
		out[k] = kept
	}
	return out
}

func hasTag(e map[string]any, tag string) bool {
	tags, _ := e["tags"].([]any)
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

// exited lists the current incarnations whose Run returned though no fault stopped them: a
// kongsync that died (in a Pod, restarted) of what it read.
func (ps *procs) exited() []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []string
	for _, slot := range []string{"a", "b"} {
		p := ps.cur[slot]
		if p == nil || p.dead {
			continue
		}
		select {
		case err := <-p.in.done:
			p.in.done <- err // stop() still finds it
			out = append(out, fmt.Sprintf("%s returned %v", p.id, err))
		default:
		}
	}
	return out
}

// watchHeap samples the process's heap every 100 ms until ctx ends and aborts the soak past
// soakHeapLimit: an in-process kongsync that would be OOM-killed in a container.
func (s *soak) watchHeap(ctx context.Context) {
	sample := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(100 * time.Millisecond)
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			rtmetrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > soakHeapLimit {
				s.abort(fmt.Sprintf("the heap reached %d MiB (limit %d MiB): kongsync would be OOM-killed", v>>20, soakHeapLimit>>20))
			}
		}
	}()
}

// watchCheck aborts the soak when the check of phase has not ended within limit; the returned
// function ends the watch.
func (s *soak) watchCheck(phase int, limit time.Duration) func() bool {
	return time.AfterFunc(limit, func() {
		s.abort(fmt.Sprintf("the check after phase %d has not ended within %s: stalled", phase, limit))
	}).Stop
}

// abort ends the soak from a goroutine that cannot fail the test (a watch): it writes the
// violation, every goroutine's stack and a heap profile beside the change log, and panics.
func (s *soak) abort(msg string) {
	s.logf("VIOLATION: %s", msg)
	_ = os.WriteFile(s.path("violation.txt"), []byte(msg+"\n"), 0o644)
	buf := make([]byte, 16<<20)
	_ = os.WriteFile(s.path("goroutines.txt"), buf[:runtime.Stack(buf, true)], 0o644)
	if f, err := os.Create(s.path("heap.pprof")); err == nil {
		_ = pprof.WriteHeapProfile(f)
		_ = f.Close()
	}
	panic(fmt.Sprintf("soak: %s\nevidence: %s\nreplay: SOAK_SEED=%d SOAK_DURATION=%s make soak", msg, s.out, s.seed, s.dur))
}

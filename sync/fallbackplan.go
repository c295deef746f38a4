package sync

import (
	"errors"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
)

// errLastValidWithoutGate is KIC's refusal of --use-last-valid-config-for-fallback alone.
var errLastValidWithoutGate = errors.New("sync: UseLastValidConfigForFallback needs FallbackConfiguration")

// plan decides what a build of snap leaves out, given the rejected objects it holds unchanged
// (broken, sorted) and the last valid snapshot (nil when none or not asked for), and whether
// that is a fallback configuration in KIC's sense (the gate on and something rejected):
//
//   - FallbackConfiguration off (KIC's default gate value, kongsync's own default behaviour):
//     only the objects Kong named are left out;
//   - on: those and every object depending on them, transitively, by KIC's rules;
//   - on, with UseLastValidConfigForFallback: as on, then the last valid versions put back.
//
// It runs on the loop goroutine (it keeps the last valid snapshot's graph).
func (l *Loop) plan(snap *store.Snapshot, broken []store.Ref, lastValid *store.Snapshot) (fallback.Plan, bool) {
	if len(broken) == 0 {
		return fallback.Plan{}, false
	}
	if !l.cfg.FallbackConfiguration {
		p := fallback.Plan{Broken: broken, Excluded: make([]fallback.Affected, 0, len(broken))}
		for _, r := range broken {
			if obj, ok := snap.Get(r); ok {
				p.Excluded = append(p.Excluded, fallback.Affected{Ref: r, Object: obj, Causes: []store.Ref{r}})
			}
		}
		return p, false
	}
	l.graph = l.graph.For(snap)
	g := l.graph
	if !l.cfg.UseLastValidConfigForFallback {
		return fallback.Exclude(g, broken), true
	}
	return fallback.Backfill(g, l.graphOf(lastValid), broken), true
}

// graphOf returns the dependants graph of the last valid snapshot, built once per snapshot
// (loop goroutine only); nil for nil.
func (l *Loop) graphOf(snap *store.Snapshot) *fallback.Graph {
	if snap == nil {
		return nil
	}
	if l.lastGraphOf != snap {
		l.lastGraph, l.lastGraphOf = fallback.NewGraph(snap), snap
	}
	return l.lastGraph
}

// lastValidSnapshot is the snapshot of the last configuration every replica took, when
// backfilling is on (nil otherwise).
func (l *Loop) lastValidSnapshot() *store.Snapshot {
	if !l.cfg.UseLastValidConfigForFallback {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastValid
}

// noteValid keeps the snapshot p was translated from (exclusions and backfills applied) as the
// last valid one once every replica holds p, as KIC keeps its last valid cache only when every
// gateway took the configuration. Called by a worker after its replica took p; a later payload
// never gives way to an earlier one.
func (l *Loop) noteValid(p *Payload) {
	if !l.cfg.UseLastValidConfigForFallback || p.translated == nil {
		return
	}
	ws := l.workerList()
	for _, w := range ws {
		if st := w.status(); !st.FlavorMismatch && st.AcceptedHash != p.Hash() {
			return
		}
	}
	l.mu.Lock()
	if p.seq > l.lastValidSeq {
		l.lastValid, l.lastValidSeq = p.translated, p.seq
	}
	l.mu.Unlock()
}

// Fallback returns what the latest configuration built left out and put back: the objects Kong
// rejected (Broken), those left out (Excluded: with FallbackConfiguration, their dependants
// too) and those put back from the last valid configuration (Backfilled). Empty when nothing
// was rejected. KIC's /debug/config/fallback serves it.
func (l *Loop) Fallback() fallback.Plan {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.current == nil {
		return fallback.Plan{}
	}
	return l.current.plan
}

package fallback

import (
	"slices"

	"github.com/kongsync/kongsync/store"
)

// Plan is what a fallback configuration is made of: KIC's GeneratedCacheMetadata.
type Plan struct {
	// Broken are the objects Kong rejected, sorted.
	Broken []store.Ref
	// Excluded are the objects left out: the broken ones the snapshot holds and every object
	// depending on them, with the broken objects that took each down.
	Excluded []Affected
	// Backfilled are the objects put back from the last valid snapshot (their versions there),
	// with the excluded objects that caused each (--use-last-valid-config-for-fallback).
	Backfilled []Affected
}

// Exclude plans the fallback of snap when Kong rejected the broken objects: those and their
// dependants, transitively, are left out. g must be NewGraph(snap).
func Exclude(g *Graph, broken []store.Ref) Plan {
	b := slices.Clone(broken)
	slices.SortFunc(b, CompareRefs)
	return Plan{Broken: slices.Compact(b), Excluded: g.Reach(b)}
}

// Backfill plans as Exclude does, then puts back, from the last valid snapshot (last, with its
// graph lastGraph), each excluded object that it holds with the same UID, and everything that
// depended on that object there, in their versions there, as KIC's
// GenerateBackfillingBrokenObjects does. Those versions replace the current ones, even of objects
// the current snapshot no longer holds or holds unexcluded (KIC's rule: the last valid state of
// what the broken objects touched). A nil lastGraph (nothing valid yet) backfills nothing.
func Backfill(g, lastGraph *Graph, broken []store.Ref) Plan {
	p := Exclude(g, broken)
	if lastGraph == nil {
		return p
	}
	var roots []store.Ref
	for _, a := range p.Excluded {
		if old, ok := lastGraph.Object(a.Ref); ok && old.GetUID() == a.Object.GetUID() {
			roots = append(roots, a.Ref)
		}
	}
	p.Backfilled = lastGraph.Reach(roots)
	return p
}

// Triggered reports whether the plan changes anything.
func (p Plan) Triggered() bool { return len(p.Excluded) > 0 || len(p.Backfilled) > 0 }

// ExcludedRefs lists the refs of the excluded objects, sorted.
func (p Plan) ExcludedRefs() []store.Ref { return refsOf(p.Excluded) }

// BackfilledRefs lists the refs of the backfilled objects, sorted.
func (p Plan) BackfilledRefs() []store.Ref { return refsOf(p.Backfilled) }

func refsOf(as []Affected) []store.Ref {
	out := make([]store.Ref, len(as))
	for i, a := range as {
		out[i] = a.Ref
	}
	return out
}

// Apply returns snap without the excluded objects and with the backfilled ones: the snapshot
// the fallback configuration is translated from. Kinds the plan does not touch share snap's
// views (store.Snapshot.Without and With).
func (p Plan) Apply(snap *store.Snapshot) (*store.Snapshot, error) {
	out := snap.Without(p.ExcludedRefs()...)
	if len(p.Backfilled) == 0 {
		return out, nil
	}
	objs := make([]store.Object, len(p.Backfilled))
	for i, a := range p.Backfilled {
		objs[i] = a.Object
	}
	return out.With(objs...)
}

package status

import (
	"context"
	"slices"
	"strings"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// routes reconciles every route's status.parents with its verdicts. A pass runs after every
// translation, so over 10k unchanged routes it must cost little: the verdicts are walked in
// step with the snapshot (the translator emits them in the same order), and a route version
// already found in sync with the same verdicts is skipped.
func (w *GatewayWriter) routes(ctx context.Context, r *passRun) {
	o := r.o
	if o.refProbs == nil {
		o.refProbs = indexRefProblems(o.problems)
		o.ordered = inVisitOrder(o.parents)
		if !o.ordered {
			o.byRoute = byRoute(o.parents)
		}
	}
	w.passes++
	next := 0 // the walk's position in o.parents
	for _, kind := range routeKinds {
		for _, obj := range o.snap.Objects(kind) {
			ref := store.Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
			var want []translator.ParentStatus
			if o.ordered {
				want, next = runAt(o.parents, next, ref)
			} else {
				want = o.byRoute[ref]
			}
			rs, ok := routeStatus(obj)
			if !ok || (len(want) == 0 && !w.hasOurs(rs.Parents)) {
				continue
			}
			r.sum.Checked++
			msgs := o.refProbs.failing(ref, want)
			prog := w.held.of(ref, obj)
			if m := w.synced[obj]; m != nil && m.prog == prog && slices.EqualFunc(m.want, want, equalVerdict) && slices.Equal(m.msgs, msgs) {
				m.pass = w.passes
				continue
			}
			in := &routeInput{ns: ref.Namespace, gen: obj.GetGeneration(), want: want, programmed: prog,
				resolvedMsg: func(reason string) string { return o.refProbs.message(ref, reason) },
				controller:  w.opts.ControllerName, reconciles: w.reconciles, now: r.now}
			parents, changed := routeParents(rs.Parents, in)
			if changed {
				w.apply(ctx, r, ref, obj, map[string]any{"parents": parents})
				continue
			}
			w.synced[obj] = &routeMemo{want: slices.Clone(want), msgs: msgs, prog: prog, pass: w.passes}
		}
	}
	if len(w.synced) > 2*r.sum.Checked+64 {
		for obj, m := range w.synced {
			if m.pass != w.passes {
				delete(w.synced, obj)
			}
		}
	}
}

// routeMemo remembers the verdicts a route version's status was found to match: while they
// stay the same, later passes skip the route without building its status. want is a copy (the
// offer's array would otherwise stay alive with it).
type routeMemo struct {
	want []translator.ParentStatus
	msgs []string
	prog routeVerdict
	pass uint64 // the last pass that saw it (older ones are swept)
}

// reconciles reports whether the Gateway namespace/name is one this instance reconciles: any of
// our classes, or only the one --gateway-to-reconcile names.
func (w *GatewayWriter) reconciles(namespace, name string) bool {
	g := w.opts.GatewayToReconcile
	return g == "" || g == namespace+"/"+name
}

// inVisitOrder reports whether the verdicts come grouped by route, routes in the order a pass
// visits them (routeKinds, then namespace and name), which is how the translator emits them.
func inVisitOrder(ps []translator.ParentStatus) bool {
	rank := make(map[store.Kind]int, len(routeKinds))
	for i, k := range routeKinds {
		rank[k] = i + 1
	}
	for i := range ps {
		if rank[ps[i].Route.Kind] == 0 {
			return false
		}
		if i > 0 && ps[i].Route != ps[i-1].Route && !refBefore(ps[i-1].Route, ps[i].Route, rank) {
			return false
		}
	}
	return true
}

func refBefore(a, b store.Ref, rank map[store.Kind]int) bool {
	if a.Kind != b.Kind {
		return rank[a.Kind] < rank[b.Kind]
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c < 0
	}
	return a.Name < b.Name
}

// runAt returns the verdicts of ref if they start at ps[i], and where the walk goes on.
func runAt(ps []translator.ParentStatus, i int, ref store.Ref) ([]translator.ParentStatus, int) {
	if i >= len(ps) || ps[i].Route != ref {
		return nil, i
	}
	j := i + 1
	for j < len(ps) && ps[j].Route == ref {
		j++
	}
	return ps[i:j:j], j
}

// byRoute indexes verdicts by route, for verdicts not in visiting order.
func byRoute(ps []translator.ParentStatus) map[store.Ref][]translator.ParentStatus {
	m := map[store.Ref][]translator.ParentStatus{}
	for i := 0; i < len(ps); {
		want, j := runAt(ps, i, ps[i].Route)
		m[ps[i].Route] = append(m[ps[i].Route], want...)
		i = j
	}
	return m
}

// failing are the ResolvedRefs messages of route's verdicts whose refs do not resolve.
func (rp refProblems) failing(route store.Ref, want []translator.ParentStatus) []string {
	var out []string
	for i := range want {
		if !want[i].ResolvedRefs && want[i].ResolvedRefsReason != "" {
			out = append(out, rp.message(route, want[i].ResolvedRefsReason))
		}
	}
	return out
}

func equalVerdict(a, b translator.ParentStatus) bool {
	return a.Route == b.Route && a.Index == b.Index && a.Gateway == b.Gateway && a.SectionName == b.SectionName &&
		a.Port == b.Port && a.Accepted == b.Accepted && a.Reason == b.Reason && a.Message == b.Message &&
		a.ResolvedRefs == b.ResolvedRefs && a.ResolvedRefsReason == b.ResolvedRefsReason &&
		a.ResolvedRefsMessage == b.ResolvedRefsMessage && a.Assumed == b.Assumed &&
		slices.Equal(a.Listeners, b.Listeners)
}

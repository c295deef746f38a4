package translator

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
)

// Assemble is linear, but most of a build's objects are unchanged, and walking 10,000 Kong
// services to find that each is what it was costs more than the change itself. So assemble's
// stages that work per Ingress piece or per Kong service — the pieces of the served Ingresses,
// grouping their routes into Kong services, emitting service and upstream entities — keep what
// they produced and, on the next build, redo only what the changes reach:
//
//   - which objects changed comes from the snapshot diff the memos already use (kindGens);
//   - which stage outputs that reaches comes from what the pieces record: the Ingress pieces in
//     the served order, the identities their routes use, and, for upstream pieces, what they
//     read (an index from each read to the identities whose upstream read it).
//
// Every decision across objects (TLS claims, the default backend, certificates, ambiguous
// paths, plugins, consumers) still runs whole on every build; these stages only avoid
// recomputing per-object results nothing changed. Whenever a change is not of a shape a stage
// can follow (a different number of served Ingresses, a default backend involved, a Kong
// service appearing or disappearing, a kind whose changes are unknown), the stage runs whole.
// The property and warm golden tests compare every build with a cold one.

// servedPieces returns the pieces of the served Ingresses, in order, and the positions whose
// piece differs from the last build's (nil with full: every position).
func (t *ingressBuild) servedPieces(served *servedIngresses) (ps []*ingressPiece, changed []int, full bool) {
	st := &t.memos.stages
	ings := served.list
	if t.keep && st.gen != 0 && st.gen == t.gen-1 && st.epoch == t.memos.idents.epoch && len(ings) == len(st.served.list) &&
		t.kinds.unchangedSince(st.mask, st.gen) {
		prev := st.served.list
		if served == st.served {
			t.replayPieceProblems(nil, nil)
			return st.ps, nil, false
		}
		t.memos.ingresses.takeMask()
		ps = st.reusePS(len(ings))
		for i, ing := range ings {
			if ing == prev[i] {
				ps[i] = st.ps[i]
				continue
			}
			if changed = append(changed, i); len(changed) > maxDelta {
				break
			}
		}
		if len(changed) <= maxDelta {
			t.replayPieceProblems(changed, func(i int) { ps[i] = t.ingressPiece(ings[i]) })
			st.mask |= t.memos.ingresses.takeMask()
			return ps, changed, false
		}
	}
	t.memos.ingresses.takeMask()
	ps = t.allPieces(ings)
	st.mask = t.memos.ingresses.takeMask()
	return ps, nil, true
}

// allPieces looks up the piece of every served Ingress, noting which have problems.
func (t *ingressBuild) allPieces(ings []*networkingv1.Ingress) []*ingressPiece {
	st := &t.memos.stages
	ps := make([]*ingressPiece, len(ings))
	st.probs = st.probs[:0]
	if t.splits(len(ings)) {
		t.piecesInParallel(ings, ps)
		return ps
	}
	for i, ing := range ings {
		before := len(t.problems)
		ps[i] = t.ingressPiece(ing)
		if t.keep && len(t.problems) > before {
			st.probs = append(st.probs, posProblems{i, slices.Clone(t.problems[before:])})
		}
	}
	return ps
}

// piecesInParallel makes the pieces of a build that keeps nothing split across the CPUs
// (parallel.go). Each worker interns the identities its pieces name in a table of its own, so
// that the workers share no lock; adoptIdents then makes one table of them. Which worker's
// identity of a name the build keeps does not matter: identities of one name are made from
// the same objects, and hold the same values.
func (t *ingressBuild) piecesInParallel(ings []*networkingv1.Ingress, ps []*ingressPiece) {
	locals := make([]*identTable, t.par.workers)
	t.inParallel(len(ings), func(w *translation, worker, from, to int) {
		if locals[worker] == nil {
			n := len(ings) / t.par.workers // about one identity per Ingress; the first worker's table may become the build's
			if worker == 0 && len(t.memos.idents.m) == 0 {
				n = len(ings)
			}
			locals[worker] = &identTable{m: make(map[string]*ksIdent, n), pending: make([]*ksIdent, 0, n)}
		}
		wb := ingressBuild{translation: w, memos: t.memos, tls: t.tls, local: locals[worker]}
		for i := from; i < to; i++ {
			ps[i] = wb.ingressPiece(ings[i])
		}
	})
	t.adoptIdents(slices.DeleteFunc(locals, func(l *identTable) bool { return l == nil }), ps)
}

// adoptIdents interns the workers' identities in the build's table, in worker order: a name a
// worker or the table already has keeps its first identity, and the pieces naming a later one
// are pointed at it (a facade's merged Service they hold is made from the same objects).
func (t *ingressBuild) adoptIdents(locals []*identTable, ps []*ingressPiece) {
	tb := &t.memos.idents
	if len(tb.m) == 0 && len(tb.pending) == 0 { // the first worker's table, sized for all, is the build's
		tb.m, tb.pending, locals = locals[0].m, locals[0].pending, locals[1:]
	}
	var dup map[*ksIdent]*ksIdent
	for _, l := range locals {
		for _, id := range l.pending {
			if first := tb.add(id); first != id {
				if dup == nil {
					dup = map[*ksIdent]*ksIdent{}
				}
				dup[id] = first
			}
		}
	}
	if dup == nil {
		return
	}
	for _, p := range ps {
		for j := range p.uses {
			if first, ok := dup[p.uses[j].be.ident]; ok {
				p.uses[j].be.ident = first
			}
		}
		if p.def != nil && dup[p.def.be.ident] != nil {
			p.def.be.ident = dup[p.def.be.ident]
		}
	}
}

// replayPieceProblems reports the kept pieces' problems again, those at the changed positions
// from their pieces, looked up by lookup(i).
func (t *ingressBuild) replayPieceProblems(changed []int, lookup func(int)) {
	st := &t.memos.stages
	var next []posProblems
	c := 0
	for _, pp := range st.probs {
		for c < len(changed) && changed[c] < pp.pos {
			next = t.lookupNoting(changed[c], lookup, next)
			c++
		}
		if c < len(changed) && changed[c] == pp.pos {
			next = t.lookupNoting(changed[c], lookup, next)
			c++
			continue
		}
		t.problems = append(t.problems, pp.problems...)
		next = append(next, pp)
	}
	for ; c < len(changed); c++ {
		next = t.lookupNoting(changed[c], lookup, next)
	}
	st.probs = next
}

func (t *ingressBuild) lookupNoting(i int, lookup func(int), next []posProblems) []posProblems {
	before := len(t.problems)
	lookup(i)
	if len(t.problems) > before {
		next = append(next, posProblems{i, slices.Clone(t.problems[before:])})
	}
	return next
}

// group attaches the pieces' routes to this build's Kong services. After a build whose grouping
// the identities still hold, it moves only the routes of the changed positions, provided no
// default backend is involved, and returns the identities whose routes changed; otherwise it
// groups every piece afresh (regrouped). The default backend's route is attached by
// translateDefaultBackend when regrouped.
func (t *ingressBuild) group(ps []*ingressPiece, changed []int, full bool) (dirty []*ksIdent, regrouped bool) {
	st := &t.memos.stages
	if !full && st.groupGen != 0 {
		t.groupGen = st.groupGen
		if dirty, ok := t.moveRoutes(st.ps, ps, changed); ok {
			return dirty, false
		}
	}
	t.groupGen = t.gen
	t.memos.idents.used = 0
	for _, p := range ps {
		t.attachRules(p)
	}
	return nil, true
}

// moveRoutes detaches the routes of the old pieces at the changed positions from their Kong
// services and attaches the new pieces' ones. false: a default backend is involved, or the
// grouping is not what the old pieces made; the caller then regroups (which resets every Kong
// service, so a half-done move leaves nothing behind).
func (t *ingressBuild) moveRoutes(old, cur []*ingressPiece, changed []int) ([]*ksIdent, bool) {
	var dirty []*ksIdent
	for _, i := range changed {
		if old[i].def != nil || cur[i].def != nil {
			return nil, false
		}
	}
	for _, i := range changed {
		for j := range old[i].uses {
			u := &old[i].uses[j]
			id := u.be.ident
			if id.gen != t.groupGen || !id.ks.detach(u.route, t.memos.stages.defaultRoute) {
				return nil, false
			}
			dirty = append(dirty, id)
		}
	}
	for _, i := range changed {
		for j := range cur[i].uses {
			u := &cur[i].uses[j]
			ks := t.kongService(&u.be)
			ks.fromRules = true
			ks.routes = append(ks.routes, u.route)
			dirty = append(dirty, u.be.ident)
		}
	}
	return dirty, true
}

// emit emits the Kong services and upstreams: the last build's lists with the entities of the
// dirty identities (and those depending on certificates) replaced, when the grouping was kept
// or moved, no Kong service appears or disappears, and what Service-settings and upstream
// pieces read changed only in known objects; otherwise buildServices walks every identity.
func (t *ingressBuild) emit(dirty []*ksIdent, regrouped bool) ([]*document.Service, []*document.Upstream) {
	st := &t.memos.stages
	if !t.keep || regrouped || st.svcs == nil || len(t.memos.idents.pending) > 0 {
		return t.fullEmit()
	}
	readDirty, ok := t.readDirty()
	if !ok {
		return t.fullEmit()
	}
	lists := emitLists{svcs: st.svcs, ups: st.ups}
	var again, certs []*ksIdent
	for _, list := range [][]*ksIdent{dirty, readDirty, st.always} {
		for _, id := range list {
			if id.emitGen == t.gen {
				continue
			}
			if !t.reemit(id, &lists) {
				return t.fullEmit()
			}
			id.emitGen = t.gen
			again = append(again, id)
			if resolvesCerts(id) {
				certs = append(certs, id)
			}
		}
	}
	// A Kong service re-emitted with certificates to resolve (a CA Secret its Service names
	// appeared) is resolved again on every build from now on, as fullEmit would have it.
	st.always = st.always[:0]
	for _, id := range certs {
		st.always = append(st.always, id)
	}
	t.replaySlotProblems(again)
	st.svcs, st.ups = lists.svcs, lists.ups
	t.emitted = true
	return lists.svcs, lists.ups
}

// emitLists are the last build's emitted lists, copied on the first write: the last document
// holds them, and an edit that changes a route but not its upstream leaves the upstreams as
// they were (10k Ingresses: 80 KB per such build not copied).
type emitLists struct {
	svcs        []*document.Service
	ups         []*document.Upstream
	svcsC, upsC bool // copied
}

func (l *emitLists) setService(i int, s *document.Service) { setCopied(&l.svcs, &l.svcsC, i, s) }

func (l *emitLists) setUpstream(i int, u *document.Upstream) { setCopied(&l.ups, &l.upsC, i, u) }

// setCopied writes v at i of *list, copying the list first unless *copied (then setting it).
func setCopied[T comparable](list *[]T, copied *bool, i int, v T) {
	if (*list)[i] == v {
		return
	}
	if !*copied {
		*list, *copied = slices.Clone(*list), true
	}
	(*list)[i] = v
}

// replaySlotProblems reports again the problems of the Service-settings and upstream pieces of
// the Kong services not emitted again in this build, and notes which have problems now.
func (t *ingressBuild) replaySlotProblems(again []*ksIdent) {
	st := &t.memos.stages
	kept := st.withProblems[:0]
	for _, id := range st.withProblems {
		if id.emitGen != t.gen {
			t.problems = append(t.problems, slotProblems(id.info.e)...)
			t.problems = append(t.problems, slotProblems(id.up.e)...)
			kept = append(kept, id)
		}
	}
	for _, id := range again {
		if id.svcPos >= 0 && len(slotProblems(id.info.e))+len(slotProblems(id.up.e)) > 0 {
			kept = append(kept, id)
		}
	}
	st.withProblems = kept
}

func slotProblems[V any](e *entry[V]) []Problem {
	if e == nil {
		return nil
	}
	return e.problems
}

// reemit replaces one Kong service's entities in place; false when it appears or disappears.
func (t *ingressBuild) reemit(id *ksIdent, lists *emitLists) bool {
	ks := id.current(t.groupGen)
	present := ks != nil && len(ks.routes) > 0
	if present != (id.svcPos >= 0) || (present && !t.consistentAnnotations(ks.ident.name, []*corev1.Service{ks.svc})) {
		return false
	}
	if !present {
		return true
	}
	info := t.serviceInfoFor(ks)
	lists.setService(id.svcPos, t.serviceFor(ks, info))
	ks.upstream = t.upstreamFor(ks, info)
	lists.setUpstream(id.upPos, ks.upstream)
	return true
}

// fullEmit is buildServices, remembering its lists and each identity's place in them.
func (t *ingressBuild) fullEmit() ([]*document.Service, []*document.Upstream) {
	svcs, ups, byName, byHost := t.buildServices()
	if !t.keep {
		return svcs, ups
	}
	st := &t.memos.stages
	st.svcs, st.ups, st.always = svcs, ups, st.always[:0]
	for _, id := range t.memos.idents.byName {
		id.svcPos, id.upPos = -1, -1
	}
	st.withProblems = st.withProblems[:0]
	for i, id := range byName { // ascending; svcs is descending
		id.svcPos = len(svcs) - 1 - i
		if len(slotProblems(id.info.e))+len(slotProblems(id.up.e)) > 0 {
			st.withProblems = append(st.withProblems, id)
		}
		if resolvesCerts(id) {
			st.always = append(st.always, id)
		}
	}
	for i, id := range byHost {
		id.upPos = i
	}
	return svcs, ups
}

// readDirty are the identities whose Service-settings or upstream piece read an object that
// changed since the last build (through the readers index); false when that is not known.
func (t *ingressBuild) readDirty() ([]*ksIdent, bool) {
	st, k := &t.memos.stages, t.kinds
	if k.unchangedSince(st.svcMask, st.gen) {
		return nil, true
	}
	if st.gen != t.gen-1 {
		return nil, false
	}
	return st.readers.changed(k, st.svcMask, st.gen, nil)
}

// rebuildReaders rebuilds the readers index from the identities' pieces, after identities were
// dropped (the index only ever grows otherwise: a stale entry costs a needless re-emit).
func (st *stages) rebuildReaders(tb *identTable) {
	st.readers.reset()
	for _, id := range tb.byName {
		for _, r := range []*reads{readsOf(id.info.e), readsOf(id.up.e)} {
			if r != nil {
				st.readers.add(id, r)
			}
		}
	}
}

func readsOf[V any](e *entry[V]) *reads {
	if e == nil {
		return nil
	}
	return &e.reads
}

// settle records this build's stages for the next one.
func (t *ingressBuild) settle(served *servedIngresses, ps []*ingressPiece, regrouped bool) (prevPS []*ingressPiece, prevServed *servedIngresses) {
	if !t.keep {
		return nil, nil
	}
	st := &t.memos.stages
	if regrouped {
		st.svcMask = 0
	}
	prevPS, prevServed = st.ps, st.served
	st.sparePS, st.spareServed, st.droppedServed = nil, st.droppedServed, nil
	if len(prevPS) > 0 && (len(ps) == 0 || &prevPS[0] != &ps[0]) {
		st.sparePS = prevPS // the plugin stage reads it in this build only
	}
	st.gen, st.served, st.ps, st.epoch = t.gen, served, ps, t.memos.idents.epoch
	st.groupGen, st.defaultRoute = t.groupGen, t.defaultRoute
	st.svcMask |= t.svcMask
	return prevPS, prevServed
}

// resolvesCerts reports whether a Kong service's Service names a client certificate or CA
// certificates, which assemble resolves on every build.
func resolvesCerts(id *ksIdent) bool {
	info := id.info.e
	return info != nil && info.val.claimsCerts()
}

package translator

import (
	"reflect"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// gatewayPart is assemble's Gateway API part: the piece of every route, their Kong services and
// upstreams merged into the Ingress ones (both lists are by name, descending), and the route
// statuses. The lists are kept between builds (gwKept) and patched when only a few pieces changed
// without changing their entities' names.
func (t *gwBuild) gatewayPart(svcs []*document.Service, ups []*document.Upstream) ([]*document.Service, []*document.Upstream, []*routePiece) {
	k := &t.memos.gw
	all, ok := k.visitChanged(t)
	if !ok {
		all = k.visitAll(t)
	}
	if !t.keep || !k.patch(t, all) {
		k.full(t, all)
	}
	t.parents = k.parents
	if len(k.svcs) == 0 && len(k.ups) == 0 {
		return svcs, ups, k.served
	}
	return mergeDesc(svcs, k.svcs, func(s *document.Service) string { return *s.Name }),
		mergeDesc(ups, k.ups, func(u *document.Upstream) string { return *u.Name }), k.served
}

// gwKept is what gatewayPart keeps from one build to the next: every route's piece in visiting
// order, their parents (with each piece's offset), the served pieces (with each piece's
// position among them), and the served pieces' entities sorted by name, descending.
type gwKept struct {
	gen uint64
	all []*routePiece
	// refPos is each route's position in all; readers the positions of the pieces that made
	// each read (memoreaders.go), mask the kinds any of them read:
	// with them a build visits only the pieces a change can reach (visitChanged).
	refPos  map[store.Ref]int32
	readers readersIndex[int32]
	mask    uint32
	// noisy are the positions whose piece reported problems (sorted): a piece not looked up
	// again still reports them.
	noisy []int32
	// base counts the reads visitAll indexed, grown those indexed since: a recomputed piece
	// adds its reads again (old entries stay, costing a needless look-up), so once the index
	// has doubled the next build visits every piece and rebuilds it.
	base, grown int
	parentOff   []int32
	servedPos   []int32 // -1 for a piece not served
	parents     []ParentStatus
	served      []*routePiece
	svcs        []*document.Service
	ups         []*document.Upstream
	certs       bool      // a served piece's services name certificates: resolved per build, never kept
	order       exprOrder // the ties of split matches under expressions (gwexprorder.go)
}

// full makes the kept lists from all the pieces.
func (k *gwKept) full(t *gwBuild, all []*routePiece) {
	np, ns, nsvc, nup := 0, 0, 0, 0
	for _, p := range all {
		np += len(p.parents)
		if p.served {
			ns, nsvc, nup = ns+1, nsvc+len(p.services), nup+len(p.upstreams)
		}
	}
	off := make([]int32, 2*len(all))
	*k = gwKept{gen: t.gen, all: all, parentOff: off[:len(all)], servedPos: off[len(all):],
		refPos: k.refPos, readers: k.readers, mask: k.mask, noisy: k.noisy, base: k.base, grown: k.grown,
		parents: make([]ParentStatus, 0, np), served: make([]*routePiece, 0, ns),
		svcs: make([]*document.Service, 0, nsvc), ups: make([]*document.Upstream, 0, nup)}
	for i, p := range all {
		k.parentOff[i], k.servedPos[i] = int32(len(k.parents)), -1
		k.parents = append(k.parents, p.parents...)
		if !p.served {
			continue
		}
		k.servedPos[i] = int32(len(k.served))
		k.served = append(k.served, p)
		k.svcs = append(k.svcs, t.resolvedRouteServices(p)...)
		k.ups = append(k.ups, p.upstreams...)
		k.certs = k.certs || len(p.certs) > 0
	}
	slices.SortFunc(k.svcs, func(a, b *document.Service) int { return strings.Compare(*b.Name, *a.Name) })
	slices.SortFunc(k.ups, func(a, b *document.Upstream) int { return strings.Compare(*b.Name, *a.Name) })
	k.order.full(all, k.servedPos, k.svcs, !t.keep)
}

// patch updates the kept lists in place of a full pass when the last build kept them, the
// routes are the same ones in the same order, and at most 64 pieces changed, each into one with
// the same parents count, served state and entity names (a route edited in place). It returns
// false, keeping nothing, otherwise.
func (k *gwKept) patch(t *gwBuild, all []*routePiece) bool {
	if k.gen != t.gen-1 || k.certs || len(all) != len(k.all) {
		return false
	}
	var changed []int
	for i := range all {
		if all[i] != k.all[i] {
			if len(changed) == 64 || !sameShape(k.all[i], all[i]) {
				return false
			}
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		k.gen, k.all = t.gen, all
		return true
	}
	olds := make([]*routePiece, len(changed))
	for n, i := range changed {
		olds[n] = k.all[i]
		keepEqualEntities(k.all[i], all[i])
	}
	k.gen, k.all = t.gen, all
	if len(changed) == 0 {
		return true
	}
	k.served, k.svcs, k.ups = slices.Clone(k.served), slices.Clone(k.svcs), slices.Clone(k.ups)
	cloned := false
	for _, i := range changed {
		p := all[i]
		if at := k.parents[k.parentOff[i]:]; !slices.EqualFunc(p.parents, at[:len(p.parents)], sameParent) {
			if !cloned {
				k.parents, cloned = slices.Clone(k.parents), true // the last build's Result holds the old one
			}
			copy(k.parents[k.parentOff[i]:], p.parents)
		}
		if pos := k.servedPos[i]; pos >= 0 {
			k.served[pos] = p
			replaceByName(k.svcs, p.services, func(s *document.Service) string { return *s.Name })
			replaceByName(k.ups, p.upstreams, func(u *document.Upstream) string { return *u.Name })
		}
	}
	k.order.patch(olds, changed, all, k.servedPos, k.svcs)
	return true
}

// sameShape reports whether a changed piece can replace the old one in place: the same served
// state and number of parents, the same names of Kong services and upstreams, no certificates.
func sameShape(old, cur *routePiece) bool {
	if old.served != cur.served || len(old.parents) != len(cur.parents) || len(cur.certs) > 0 ||
		len(old.services) != len(cur.services) || len(old.upstreams) != len(cur.upstreams) {
		return false
	}
	for i := range old.services {
		if *old.services[i].Name != *cur.services[i].Name {
			return false
		}
	}
	for i := range old.upstreams {
		if *old.upstreams[i].Name != *cur.upstreams[i].Name {
			return false
		}
	}
	return true
}

// sameParent compares two parent statuses.
func sameParent(a, b ParentStatus) bool {
	return a.Route == b.Route && a.Index == b.Index && a.Gateway == b.Gateway && a.SectionName == b.SectionName &&
		a.Port == b.Port && a.Accepted == b.Accepted && a.Reason == b.Reason && a.Message == b.Message &&
		a.ResolvedRefs == b.ResolvedRefs && a.ResolvedRefsReason == b.ResolvedRefsReason &&
		a.ResolvedRefsMessage == b.ResolvedRefsMessage && a.Assumed == b.Assumed &&
		slices.Equal(a.Listeners, b.Listeners)
}

// keepEqualEntities puts the old piece's entities in place of the new piece's where they are
// equal (a piece recomputed because an EndpointSlice changed keeps its Kong service): the
// encoder then reuses their bytes and resumes the hash after them. The new piece is this
// build's own, not yet handed out.
func keepEqualEntities(old, cur *routePiece) {
	for i := range cur.services {
		if reflect.DeepEqual(old.services[i], cur.services[i]) {
			cur.services[i] = old.services[i]
		}
	}
	for i := range cur.upstreams {
		if reflect.DeepEqual(old.upstreams[i], cur.upstreams[i]) {
			cur.upstreams[i] = old.upstreams[i]
		}
	}
}

// visitAll looks up the piece of every route, in visiting order, and (when the engine keeps
// entities) rebuilds the readers index from what they read and drops the pieces of routes gone.
func (k *gwKept) visitAll(t *gwBuild) []*routePiece {
	all := make([]*routePiece, 0, len(k.all))
	if t.keep {
		k.refPos, k.mask = map[store.Ref]int32{}, 0
		k.readers.reset()
		k.noisy, k.base, k.grown = k.noisy[:0], 0, 0
	}
	if !t.keep {
		return t.allPiecesOnce(all)
	}
	for _, kind := range routeKinds {
		for _, obj := range t.snap.snap.Objects(kind) {
			all = append(all, piece(t.translation, t.memos.routes, obj, func() *routePiece { return t.routePiece(kind, obj) }))
			if t.keep {
				pos := int32(len(all) - 1)
				k.refPos[routeRef(kind, obj)] = pos
				e := t.memos.routes.m[obj]
				k.index(pos, &e.reads)
				k.base += len(e.reads.objs) + len(e.reads.lists) + len(e.reads.kinds)
				if len(e.problems) > 0 {
					k.noisy = append(k.noisy, pos)
				}
			}
		}
	}
	if t.keep {
		t.memos.routes.sweep(t.gen)
	}
	return all
}

// allPiecesOnce is visitAll for a build that keeps nothing: a piece is a function of its route
// and what it reads, so the routes split across the CPUs (parallel.go), each worker with its
// own build context and scratch; the pieces come out in visiting order all the same.
func (t *gwBuild) allPiecesOnce(all []*routePiece) []*routePiece {
	type routeObj struct {
		kind store.Kind
		obj  store.Object
	}
	var objs []routeObj
	for _, kind := range routeKinds {
		for _, obj := range t.snap.snap.Objects(kind) {
			objs = append(objs, routeObj{kind, obj})
		}
	}
	all = slices.Grow(all, len(objs))[:len(objs)]
	if !t.splits(len(objs)) {
		for i, o := range objs {
			all[i] = t.routePiece(o.kind, o.obj)
		}
		return all
	}
	wbs := make([]*gwBuild, t.par.workers) // one per worker, for all the chunks it takes
	t.inParallel(len(objs), func(w *translation, worker, from, to int) {
		if wbs[worker] == nil {
			wbs[worker] = &gwBuild{translation: w, memos: t.memos, tls: t.tls}
		}
		wb := wbs[worker]
		for i := from; i < to; i++ {
			all[i] = wb.routePiece(objs[i].kind, objs[i].obj)
		}
	})
	return all
}

// index records that the piece at pos made the reads r.
func (k *gwKept) index(pos int32, r *reads) {
	k.mask |= r.mask
	k.readers.add(pos, r)
}

// visitChanged is visitAll for a build right after the one that kept the lists, when every
// kind that changed since changed in known objects and no route came or went: only the pieces
// of changed routes and of the routes whose pieces read a changed object are looked up again;
// the others are the last build's. False when that does not hold.
func (k *gwKept) visitChanged(t *gwBuild) ([]*routePiece, bool) {
	kg := t.kinds
	if !t.keep || k.gen != t.gen-1 || k.refPos == nil || k.grown > k.base+64 {
		return nil, false
	}
	var touched []int32
	for _, kind := range routeKinds {
		i := kindIndex(kind)
		if kg.gen[i] <= k.gen {
			continue
		}
		if kg.delta[i] == nil {
			return nil, false
		}
		for _, c := range kg.changes[i] {
			if c.old == nil || c.cur == nil {
				return nil, false // a route came or went: positions move
			}
			touched = append(touched, k.refPos[routeRef(kind, c.cur)])
		}
	}
	more, ok := k.readersOfChanges(kg)
	if !ok {
		return nil, false
	}
	touched = append(touched, more...)
	slices.Sort(touched)
	touched = slices.Compact(touched)
	all := slices.Clone(k.all)
	objs := map[store.Kind][]store.Object{}
	noisy := make([]int32, 0, len(k.noisy)+len(touched))
	for _, pos := range k.noisy { // the untouched pieces' problems, as piece would replay them
		if _, found := slices.BinarySearch(touched, pos); !found {
			_, obj := k.routeAt(t, pos, objs)
			t.problems = append(t.problems, t.memos.routes.m[obj].problems...)
			noisy = append(noisy, pos)
		}
	}
	for _, pos := range touched {
		kind, obj := k.routeAt(t, pos, objs)
		before := t.memos.routes.m[obj]
		all[pos] = piece(t.translation, t.memos.routes, obj, func() *routePiece { return t.routePiece(kind, obj) })
		e := t.memos.routes.m[obj]
		if e != before { // recomputed: its reads may be new
			k.grown += len(e.reads.objs) + len(e.reads.lists) + len(e.reads.kinds)
			k.index(pos, &e.reads)
		}
		if len(e.problems) > 0 {
			noisy = append(noisy, pos)
		}
	}
	slices.Sort(noisy)
	k.noisy = noisy
	return all, true
}

// readersOfChanges are the positions of the pieces that read an object of a kind that changed
// since the lists were kept (not the route kinds); false when a changed kind's objects are not
// known.
func (k *gwKept) readersOfChanges(kg *kindGens) ([]int32, bool) {
	mask := k.mask
	for _, kind := range routeKinds {
		mask &^= kindBit(kind)
	}
	return k.readers.changed(kg, mask, k.gen, nil)
}

// routeAt is the route object at a visiting position in this build's snapshot (no route came
// or went since the positions were made).
func (k *gwKept) routeAt(t *gwBuild, pos int32, objs map[store.Kind][]store.Object) (store.Kind, store.Object) {
	for _, kind := range routeKinds {
		l, ok := objs[kind]
		if !ok {
			l = t.snap.snap.Objects(kind)
			objs[kind] = l
		}
		if int(pos) < len(l) {
			return kind, l[pos]
		}
		pos -= int32(len(l))
	}
	panic("translator: a kept route position beyond the routes")
}

// routePiece translates one route of any kind, with this build's match description scratch.
func (t *gwBuild) routePiece(kind store.Kind, obj store.Object) *routePiece {
	sc := &t.scratch
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return t.httpRoutePiece(r, sc)
	case *gatewayv1.GRPCRoute:
		return t.grpcRoutePiece(r, sc)
	case *gatewayv1.TCPRoute:
		return t.l4RoutePiece(kind, r, r.Spec.CommonRouteSpec, l4Rules(r.Spec.Rules, func(x gatewayv1.TCPRouteRule) l4Rule {
			return l4Rule{name: x.Name, backends: x.BackendRefs}
		}), nil, sc)
	case *gatewayv1.UDPRoute:
		return t.l4RoutePiece(kind, r, r.Spec.CommonRouteSpec, l4Rules(r.Spec.Rules, func(x gatewayv1.UDPRouteRule) l4Rule {
			return l4Rule{name: x.Name, backends: x.BackendRefs}
		}), nil, sc)
	case *gatewayv1.TLSRoute:
		return t.l4RoutePiece(kind, r, r.Spec.CommonRouteSpec, l4Rules(r.Spec.Rules, func(x gatewayv1.TLSRouteRule) l4Rule {
			return l4Rule{name: x.Name, backends: x.BackendRefs}
		}), r.Spec.Hostnames, sc)
	}
	return &routePiece{}
}

// resolvedRouteServices are a piece's Kong services with the certificates their Services'
// annotations name resolved (on copies: piece entities are shared between builds).
func (t *gwBuild) resolvedRouteServices(p *routePiece) []*document.Service {
	if len(p.certs) == 0 {
		return p.services
	}
	out := slices.Clone(p.services)
	for _, c := range p.certs {
		cp := *out[c.pos]
		t.tls.resolveServiceCerts(c.svc, c.info, &cp.Service)
		out[c.pos] = &cp
	}
	return out
}

// gwBuild is the Gateway API family's view of one build: the build context and the memos the
// family keeps, which assemble hands it.
type gwBuild struct {
	*translation
	memos   *gwMemos
	tls     *certBuilder // the certificates this build claims (certtls.go)
	scratch gwScratch    // what the pieces of this build reuse (gwarena.go)
}

// gwMemos are what the Gateway API family keeps between builds.
type gwMemos struct {
	routes *memo[store.Object, *routePiece] // Gateway API routes
	gw     gwKept                           // gatewayPart's lists
}

package translator

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The Ingress family's data: what a piece holds (its rule routes and default backend, with the
// backends they resolve to), the route groups a piece builds, the served set, and what the
// stages keep between builds. Types and their small methods only, below the code that uses them.

// routeGroup is one Kong route under construction: KIC makes one route per Ingress, host,
// Service and port, holding every path that shares them.
type routeGroup struct {
	be    backend // Service and port
	host  string
	route *routeAlloc
	// paths are its Ingress paths as written (slashes collapsed), which render turns into the
	// route's match: the first two here (groups are copied by value), the others in more.
	first [2]matchPath
	more  []matchPath
	n     int
}

// addPath adds an Ingress path of kind k to the group.
func (g *routeGroup) addPath(k pathKind, path string) {
	p := matchPath{kind: k, value: path}
	if g.n < len(g.first) {
		g.first[g.n] = p
	} else {
		g.more = append(g.more, p)
	}
	g.n++
}

// describe puts the group's route into m: its host and paths.
func (g *routeGroup) describe(m *routeMatch, rs *routeSettings) {
	m.reset(dialectIngress, rs)
	if g.host != "" {
		m.hosts = g.route.hosts[:]
	}
	m.paths = append(append(m.paths, g.first[:min(g.n, len(g.first))]...), g.more...)
}

// pathPos locates an Ingress path; its field paths are built only when a problem needs one.
type pathPos struct{ rule, path int }

func (p pathPos) field(suffix string) string {
	return "spec.rules[" + strconv.Itoa(p.rule) + "].http.paths[" + strconv.Itoa(p.path) + "]" + suffix
}

// ingressPiece is what one Ingress contributes: its route settings, its rule routes with the
// backends they route to, and its default backend. It reads the Ingress and the Services its
// backends name; which Ingresses count and how their routes combine is assemble's.
type ingressPiece struct {
	epoch  uint64 // the identity table's epoch when its identities were last known alive
	rs     *routeSettings
	uses   []ruleUse
	def    *defaultPiece // nil: no default backend (or the Ingress's routes are skipped)
	useBuf [1]ruleUse    // uses' first backing array: most Ingresses make one route
	rsBuf  routeSettings // rs's storage
}

// ruleUse is one rule route and the backend it routes to.
type ruleUse struct {
	be    backend
	route *document.Route
	// key0 and more are the hashes of its match keys (ingressoverlap.go): most routes have one.
	key0  uint64
	more  []uint64
	nkeys int
}

// setKeys keeps a route's match-key hashes.
func (u *ruleUse) setKeys(hs []uint64) {
	u.nkeys = len(hs)
	if len(hs) == 1 {
		u.key0, u.more = hs[0], nil
		return
	}
	u.more = slices.Clone(hs)
}

// defaultPiece is an Ingress's default backend as it would be used: resolved (ok) with its
// catch-all route, or not; problems are what resolving it reported, which count only when this
// Ingress is the one whose default backend is considered.
type defaultPiece struct {
	ok       bool
	be       backend
	route    *document.Route
	problems []Problem
}

// routeGroups are an Ingress's route groups in order of appearance, indexed once they are many
// (an Ingress of thousands of hosts would otherwise search them for each path).
type routeGroups struct {
	list []routeGroup
	idx  map[groupKey]int
}

type groupKey struct {
	id   *ksIdent
	host string
}

// groupsIndexedAt is the number of groups from which they are looked up in a map.
const groupsIndexedAt = 16

func (gs routeGroups) find(id *ksIdent, host string) *routeGroup {
	if gs.idx != nil {
		if i, ok := gs.idx[groupKey{id, host}]; ok {
			return &gs.list[i]
		}
		return nil
	}
	for i := range gs.list {
		if gs.list[i].be.ident == id && gs.list[i].host == host {
			return &gs.list[i]
		}
	}
	return nil
}

func (gs routeGroups) add(g routeGroup) (routeGroups, *routeGroup) {
	gs.list = append(gs.list, g)
	switch n := len(gs.list); {
	case n == groupsIndexedAt:
		gs.idx = make(map[groupKey]int, 2*n)
		for i := range gs.list {
			gs.idx[groupKey{gs.list[i].be.ident, gs.list[i].host}] = i
		}
	case n > groupsIndexedAt:
		gs.idx[groupKey{g.be.ident, g.host}] = n - 1
	}
	return gs, &gs.list[len(gs.list)-1]
}

// servedIngresses is the piece of the whole Ingress kind: the served Ingresses in order, and
// those of them with konghq.com/plugins (one scan for both).
type servedIngresses struct {
	list    []*networkingv1.Ingress
	plugins map[[2]string]*annotatedIngress
	// tls and defs are the positions in list of the Ingresses with TLS entries and with a
	// default backend: the only ones the TLS claims and the default backend look at.
	tls, defs []int
}

// alive reports whether every identity an Ingress piece routes to is still interned:
// certainly so when no identity was dropped since the piece last checked (epoch).
func (tb *identTable) alive(p *ingressPiece) bool {
	ep := tb.epoch
	if p.epoch == ep {
		return true
	}
	for i := range p.uses {
		if p.uses[i].be.ident.dead {
			return false
		}
	}
	if p.def != nil && p.def.ok && p.def.be.ident.dead {
		return false
	}
	p.epoch = ep
	return true
}

// backend is an Ingress backend resolved against its Service: a piece's reference to the Kong
// service that assemble builds from every reference to it.
type backend struct {
	ident   *ksIdent
	port    portDef
	svc     *corev1.Service
	svcPort *corev1.ServicePort // nil when the Service does not declare the port number
	// facade is the KongServiceFacade the backend names, if any: then svc is its Service with
	// the facade's annotations over the Service's (ingressfacade.go).
	facade *kic.KongServiceFacade
}

// shareTable counts the rule routes claiming each match-key hash; while valid, every hash has
// the routes of one Kong service only.
type shareTable struct {
	m      map[uint64]shareCount
	seq    []*ingressPiece // the pieces counted, in served order
	gen    uint64          // the build that last asked
	answer bool
	valid  bool // m counts exactly seq's keys
}

type shareCount struct {
	id *ksIdent
	n  int32
}

// stages is what the last build's stages produced, for the next build to reuse.
type stages struct {
	gen    uint64 // the build they describe; 0: none
	served *servedIngresses
	ps     []*ingressPiece
	probs  []posProblems // the problems of the pieces in ps that have some
	mask   uint32        // what the pieces in ps read (kinds)
	epoch  uint64        // the identity table's epoch then
	// groupGen is the build whose grouping of routes the identities' Kong services hold.
	groupGen uint64
	svcs     []*document.Service // before ambiguous paths are dropped
	ups      []*document.Upstream
	svcMask  uint32     // what the Service-settings and upstream pieces read (kinds)
	always   []*ksIdent // Kong services whose entity depends on assemble (certificates)
	// withProblems are the emitted Kong services whose Service-settings or upstream piece
	// reported problems, which a build that does not emit them again reports again.
	withProblems []*ksIdent
	readers      readersIndex[*ksIdent]
	// defaultRoute is the default backend's route in the kept grouping.
	defaultRoute *document.Route
	// spare arrays, of builds before the last one: nothing holds them any more, so the next
	// build's pieces and patched served list are written in them instead of new ones (10k
	// Ingresses: 160 KB per one-change build). dropped becomes spareServed at settle.
	sparePS       []*ingressPiece
	spareServed   []*networkingv1.Ingress
	droppedServed []*networkingv1.Ingress
}

// reusePS returns n pieces' room: the spare array when large enough, else a new one.
func (st *stages) reusePS(n int) []*ingressPiece {
	if cap(st.sparePS) >= n {
		ps := st.sparePS[:n]
		st.sparePS = nil
		return ps
	}
	return make([]*ingressPiece, n)
}

// copyServed returns a copy of list, in the spare array when large enough.
func (st *stages) copyServed(list []*networkingv1.Ingress) []*networkingv1.Ingress {
	if cap(st.spareServed) < len(list) {
		return slices.Clone(list)
	}
	out := st.spareServed[:len(list)]
	st.spareServed = nil
	copy(out, list)
	return out
}

// posProblems are the problems of the piece at a position of the served order.
type posProblems struct {
	pos      int
	problems []Problem
}

// annotatedIngress is a served Ingress with konghq.com/plugins, its references parsed.
type annotatedIngress struct {
	ref  store.Ref
	refs []pluginRef
}

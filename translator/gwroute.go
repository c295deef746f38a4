package translator

import (
	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// routePrefixHTTP begins the names of an HTTPRoute's Kong services and routes.
const routePrefixHTTP = "httproute."

// routeKinds are the Gateway API route kinds, in the order assemble visits them (the order does
// not reach the output: services and upstreams are merged by name).
var routeKinds = []store.Kind{store.KindHTTPRoute, store.KindGRPCRoute, store.KindTCPRoute, store.KindUDPRoute,
	store.KindTLSRoute}

// routePiece is what one Gateway API route contributes: its Kong services (routes and plugins
// nested), their upstreams, and how each of its parentRefs was admitted. Kong services of routes
// are named after the route and rule (KIC's scheme), so no two routes share one: a route's
// services are whole in its piece.
type routePiece struct {
	services  []*document.Service  // by name, descending
	upstreams []*document.Upstream // by name, descending
	// certs are the positions in services of Kong services whose backend Service names
	// certificates through annotations; assemble resolves those on a copy.
	certs   []routeCertUse
	parents []ParentStatus
	served  bool // attached to at least one Gateway of ours
	// plugins are the KongPlugins its routes name (konghq.com/plugins, ExtensionRef filters):
	// assemble's plugin stage attaches them.
	plugins []routePluginRef
	tags    []*string // the route object's tags, made once for its entities (objTags)
	// ties are the split matches of an HTTPRoute or GRPCRoute under expressions, sorted by
	// Kong route name, and owner what KIC orders them by against other routes' (gwexprtie.go):
	// assemble gives each its priority (gwexprorder.go).
	ties  []exprTie
	owner tieOwner
	// arena is the storage the piece was allocated in with its parts (gwarena.go); nil for
	// pieces allocated part by part.
	arena *routeArena
}

// objTags are the route object's own tags, shared by the entities of its piece that carry them.
func (p *routePiece) objTags(t *translation, kind store.Kind, obj store.Object) []*string {
	if p.tags == nil {
		var blk *tagBlock
		if p.arena.take(takenObjTags) {
			blk = &p.arena.objTags
		}
		p.tags = objectTagsPacked(kind, obj, blk, &t.nsTag, p.arena.strings(0))
	}
	return p.tags
}

// routeCertUse is a Kong service of a route piece whose Service's annotations name a client
// certificate or CA certificates: assemble resolves their ids.
type routeCertUse struct {
	pos  int
	svc  *corev1.Service // whose annotations the Kong service took
	info *serviceInfo
}

// annotationPlugins records the KongPlugins a route's konghq.com/plugins names for each of its
// Kong routes.
func (t *translation) annotationPlugins(p *routePiece, ref store.Ref, obj store.Object) {
	v := obj.GetAnnotations()[annPlugins]
	if v == "" {
		return
	}
	refs := parsePluginRefs(v, ref.Namespace)
	for _, s := range p.services {
		for _, r := range s.Routes {
			for _, pr := range refs {
				p.plugins = append(p.plugins, routePluginRef{referrer: ref, route: *r.Name, plugin: pr, field: annotationField(annPlugins)})
			}
		}
	}
}

// A Gateway API route piece of the common shape — one parent, one rule with one match and one
// backend of at most two endpoints, one hostname — is made in two allocations: a routeArena,
// holding the piece with the entities and lists it is made of, and the arena's strPack, holding
// their strings (names, ids, tags, target addresses, Kong paths, the expression). What does not
// fit is allocated on its own, so any shape translates the same. The scratch a build's pieces
// reuse from one route to the next (the match description, the groups of rules and matches)
// is the gwScratch its view holds.

// routeArena is the storage of one route piece (routePiece.arena). Each part is taken once.
type routeArena struct {
	piece    routePiece
	pack     strPack
	parents  [1]ParentStatus
	listener [1]string // the first parent's listener names
	rs       routeSettings
	hostVals [1]string
	hosts    [1]*string
	bes      [1]gwBackend
	rsvc     routeService
	route    routeAlloc
	pathVals [2]string // the route's first Kong paths
	routes   [1]*document.Route
	xs       exprRoute
	ties     [1]exprTie
	svc      routeServiceAlloc
	svcs     [1]*document.Service
	up       document.Upstream
	ups      [1]*document.Upstream
	info     serviceInfo
	targets  smallTargets
	weights  [2]int
	objTags  tagBlock
	taken    arenaParts
}

// arenaParts says which of an arena's parts were taken.
type arenaParts uint16

const (
	takenParents arenaParts = 1 << iota
	takenHosts
	takenBackends
	takenService // rsvc, svc, svcs, up, ups, info, targets
	takenRoute   // route, xs
	takenRoutes
	takenTies
	takenObjTags
)

// take reports whether part is still free in a (nil: no arena), and takes it.
func (a *routeArena) take(part arenaParts) bool {
	if a == nil || a.taken&part != 0 {
		return false
	}
	a.taken |= part
	return true
}

// strings is the arena's pack, with room for n more bytes; nil without an arena.
func (a *routeArena) strings(n int) *strPack {
	if a == nil {
		return nil
	}
	a.pack.reserve(n)
	return &a.pack
}

// newRouteArena is a piece in an arena; its strings' storage is allocated on first use.
func newRouteArena() *routeArena {
	a := &routeArena{}
	a.piece.arena = a
	return a
}

// newRoute is a route from the arena, or its own.
func (a *routeArena) newRoute() *routeAlloc {
	if a.take(takenRoute) {
		return &a.route
	}
	return &routeAlloc{}
}

// newRouteService is the description of a Kong service the piece makes: the arena's while
// its service storage is free (buildRouteService takes the rest of it).
func (a *routeArena) newRouteService() *routeService {
	if a != nil && a.taken&takenService == 0 {
		return &a.rsvc
	}
	return new(routeService)
}

// gwScratch is what a build's Gateway API pieces reuse from one route to the next; a piece
// keeps none of it.
type gwScratch struct {
	match     routeMatch
	rules     []int
	ruleGroup [1][]int
	fltGroup  [1][]int
	matches   []matchRef
	mtGroup   [1][]matchRef
	exprRules []exprRuleCtx
	listeners []*gatewayv1.Listener
	services  []*corev1.Service
	// gateways are the "namespace/name" of the parent Gateways seen in this build, which every
	// route naming one shares.
	gateways map[[2]string]string
}

// gwBackend is one backendRef of a rule that names a Service kongsync may route to.
type gwBackend struct {
	svc    *corev1.Service
	port   *corev1.ServicePort // nil: no port given, or the Service does not declare it
	weight *int32
}

// routeService is the Kong service (and upstream) KIC makes for some rules of a route: named
// name, with the backends' targets weighted into one upstream. Its tags are its one Service's
// when the backends name one Service, the route's when several, and KIC's placeholder when none
// (no Service at all: then HTTP and gRPC services answer 500, as the Gateway API asks).
type routeService struct {
	name, protocol string
	backends       []gwBackend
	refs           int // backendRefs given (resolved or not)
	routes         []*document.Route
	timeout        int // an HTTPRoute rule's backendRequest timeout (ms), 0 for the default
}

// routeServiceAlloc is a route's Kong service with the values its pointer fields point at: one
// allocation instead of one per field (entities are never modified after translation).
type routeServiceAlloc struct {
	s                  document.Service
	name, protocol, id string
	timeout            int
}

// matchRef is one match of a rule.
type matchRef struct{ rule, match int }

// exprRuleCtx is what the split matches of one rule share.
type exprRuleCtx struct {
	in, rewrite bool
	tags        []*string
}

package translator

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// DefaultGatewayControllerName is KIC's GatewayClass controllerName (--gateway-api-controller-name).
const DefaultGatewayControllerName = "konghq.com/kic-gateway-controller"

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
}

// objTags are the route object's own tags, shared by the entities of its piece that carry them.
func (p *routePiece) objTags(t *translation, kind store.Kind, obj store.Object) []*string {
	if p.tags == nil {
		p.tags = objectTagsIn(kind, obj, nil, &t.nsTag)
	}
	return p.tags
}

// routePluginRef is a plugin a Kong route of a Gateway API route asks for.
type routePluginRef struct {
	referrer store.Ref
	route    string // Kong route name
	plugin   pluginRef
	field    string // what asks: the annotation or the filter
}

// routeCertUse is a Kong service of a route piece whose Service's annotations name a client
// certificate or CA certificates: assemble resolves their ids.
type routeCertUse struct {
	pos  int
	svc  *corev1.Service // whose annotations the Kong service took
	info *serviceInfo
}

// gatewayPart is assemble's Gateway API part: the piece of every route, their Kong services and
// upstreams merged into the Ingress ones (both lists are by name, descending), and the route
// statuses. The lists are kept between builds (gwKept) and patched when only a few pieces changed
// without changing their entities' names.
func (t *translation) gatewayPart(svcs []*document.Service, ups []*document.Upstream) ([]*document.Service, []*document.Upstream) {
	k := &t.memos.gw
	all := make([]*routePiece, 0, len(k.all))
	for _, kind := range routeKinds {
		for _, obj := range t.snap.snap.Objects(kind) {
			all = append(all, piece(t, t.memos.routes, obj, func() *routePiece { return t.routePiece(kind, obj) }))
		}
	}
	if !t.keep || !k.patch(t, all) {
		k.full(t, all)
	}
	t.parents, t.routePieces = k.parents, k.served
	if len(k.svcs) == 0 && len(k.ups) == 0 {
		return svcs, ups
	}
	return mergeDesc(svcs, k.svcs, func(s *document.Service) string { return *s.Name }),
		mergeDesc(ups, k.ups, func(u *document.Upstream) string { return *u.Name })
}

// gwKept is what gatewayPart keeps from one build to the next: every route's piece in visiting
// order, their parents (with each piece's offset), the served pieces (with each piece's
// position among them), and the served pieces' entities sorted by name, descending.
type gwKept struct {
	gen       uint64
	all       []*routePiece
	parentOff []int32
	servedPos []int32 // -1 for a piece not served
	parents   []ParentStatus
	served    []*routePiece
	svcs      []*document.Service
	ups       []*document.Upstream
	certs     bool // a served piece's services name certificates: resolved per build, never kept
}

// full makes the kept lists from all the pieces.
func (k *gwKept) full(t *translation, all []*routePiece) {
	np, ns, nsvc, nup := 0, 0, 0, 0
	for _, p := range all {
		np += len(p.parents)
		if p.served {
			ns, nsvc, nup = ns+1, nsvc+len(p.services), nup+len(p.upstreams)
		}
	}
	off := make([]int32, 2*len(all))
	*k = gwKept{gen: t.gen, all: all, parentOff: off[:len(all)], servedPos: off[len(all):],
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
}

// patch updates the kept lists in place of a full pass when the last build kept them, the
// routes are the same ones in the same order, and at most 64 pieces changed, each into one with
// the same parents count, served state and entity names (a route edited in place). It returns
// false, keeping nothing, otherwise.
func (k *gwKept) patch(t *translation, all []*routePiece) bool {
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

// replaceByName puts each of items at the place of the item of the same name in list (sorted
// by name, descending; every name is there).
func replaceByName[T any](list, items []T, name func(T) string) {
	for _, it := range items {
		n := name(it)
		i, _ := slices.BinarySearchFunc(list, n, func(x T, n string) int { return strings.Compare(n, name(x)) })
		list[i] = it
	}
}

// mergeDesc merges two lists sorted by key, descending, into a new list.
func mergeDesc[T any](a, b []T, key func(T) string) []T {
	out := make([]T, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if key(a[i]) >= key(b[j]) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// routePiece translates one route of any kind.
func (t *translation) routePiece(kind store.Kind, obj store.Object) *routePiece {
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return t.httpRoutePiece(r)
	case *gatewayv1.GRPCRoute:
		return t.grpcRoutePiece(r)
	case *gatewayv1.TCPRoute:
		return t.l4RoutePiece(kind, r, r.Spec.CommonRouteSpec, l4Rules(r.Spec.Rules, func(x gatewayv1.TCPRouteRule) l4Rule {
			return l4Rule{name: x.Name, backends: x.BackendRefs}
		}), nil)
	case *gatewayv1.UDPRoute:
		return t.l4RoutePiece(kind, r, r.Spec.CommonRouteSpec, l4Rules(r.Spec.Rules, func(x gatewayv1.UDPRouteRule) l4Rule {
			return l4Rule{name: x.Name, backends: x.BackendRefs}
		}), nil)
	case *gatewayv1.TLSRoute:
		return t.l4RoutePiece(kind, r, r.Spec.CommonRouteSpec, l4Rules(r.Spec.Rules, func(x gatewayv1.TLSRouteRule) l4Rule {
			return l4Rule{name: x.Name, backends: x.BackendRefs}
		}), r.Spec.Hostnames)
	}
	return &routePiece{}
}

// resolvedRouteServices are a piece's Kong services with the certificates their Services'
// annotations name resolved (on copies: piece entities are shared between builds).
func (t *translation) resolvedRouteServices(p *routePiece) []*document.Service {
	if len(p.certs) == 0 {
		return p.services
	}
	out := slices.Clone(p.services)
	for _, c := range p.certs {
		cp := *out[c.pos]
		t.resolveServiceCerts(c.svc, c.info, &cp.Service)
		out[c.pos] = &cp
	}
	return out
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

// routeSettingsFor parses the route annotations KIC reads on Gateway API routes (the Ingress
// ones, applied to each Kong route the object makes).
func (t *translation) routeSettingsFor(ref store.Ref, obj store.Object) *routeSettings {
	return t.parseRouteSettingsFor(ref, obj, &routeSettings{})
}

// sameParent compares two parent statuses.
func sameParent(a, b ParentStatus) bool {
	return a.Route == b.Route && a.Index == b.Index && a.Gateway == b.Gateway && a.SectionName == b.SectionName &&
		a.Port == b.Port && a.Accepted == b.Accepted && a.Reason == b.Reason && a.Message == b.Message &&
		a.ResolvedRefs == b.ResolvedRefs && a.ResolvedRefsReason == b.ResolvedRefsReason && a.Assumed == b.Assumed &&
		slices.Equal(a.Listeners, b.Listeners)
}

package translator

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

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
}

// objTags are the route object's own tags, shared by the entities of its piece that carry them.
func (p *routePiece) objTags(t *translation, kind store.Kind, obj store.Object) []*string {
	if p.tags == nil {
		p.tags = objectTagsIn(kind, obj, nil, &t.nsTag)
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

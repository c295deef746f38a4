package translator

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

// The ReferenceGrant check: a Gateway API route, or a plugin attached across namespaces, may
// refer to an object of another namespace only where a ReferenceGrant there allows it.

// grantAllows reports whether a ReferenceGrant in namespace ns lets route (from its namespace)
// refer to the object of group/kind/name there. Only routes that refer across namespaces read
// the ReferenceGrants.
func (t *translation) grantAllows(from store.Ref, ns, group, kind, name string) bool {
	for _, o := range t.snap.Objects(store.KindReferenceGrant) {
		g := o.(*gatewayv1.ReferenceGrant)
		if g.Namespace != ns || !grantFrom(g, from) {
			continue
		}
		for _, to := range g.Spec.To {
			if string(to.Group) == group && string(to.Kind) == kind && (to.Name == nil || string(*to.Name) == name) {
				return true
			}
		}
	}
	return false
}

func grantFrom(g *gatewayv1.ReferenceGrant, from store.Ref) bool {
	gvk := from.Kind.GVK()
	for _, f := range g.Spec.From {
		if string(f.Group) == gvk.Group && string(f.Kind) == gvk.Kind && string(f.Namespace) == from.Namespace {
			return true
		}
	}
	return false
}

package sync

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
)

// An object Kong rejected is left out of the builds that follow (handleRejection) until
// something that may cure the rejection changes. Kong names one object per rejected entity, but
// an entity is made of more than that object: the UDP service of a Service comes from a
// UDPIngress that routes to it, so a Service with a path annotation is rejected only while such
// a UDPIngress exists, and the cure is a change to the UDPIngress. Leaving the object out
// until it alone changes would keep it out of Kong for good.
//
// A rejected object is given its chance again (included, Kong decides) when, since the last
// build, the object changed or went away, or any object of its namespace changed, or of a
// namespace it names (a route's backends and parents, a cluster plugin's Secrets), or any
// cluster-scoped object (an IngressClass, a KongClusterPlugin). EndpointSlices count for the
// Services of their namespace only: they are the most frequent change, and only a Service's
// upstream targets are made of them. The cost of a change that cures nothing is one more 400
// from Kong, and that only for objects of the namespaces that changed: a tenant's churn never
// retries another tenant's objects (unless they name the tenant's namespace).

// kindsButSlices are the kinds whose changes retry the rejected objects of their namespace.
var kindsButSlices = func() []store.Kind {
	var out []store.Kind
	for _, k := range store.Kinds {
		if k != store.KindEndpointSlice {
			out = append(out, k)
		}
	}
	return out
}()

// releasable lists, sorted, the rejected objects (broken, as Kong rejected them) that a build of
// cur includes again, prev being the snapshot of the last build (nil: none).
func releasable(broken map[store.Ref]store.Object, prev, cur *store.Snapshot) []store.Ref {
	if len(broken) == 0 {
		return nil
	}
	var changed, slices map[string]bool
	var out []store.Ref
	for _, ref := range sortedRefs(broken) {
		obj, ok := cur.Get(ref)
		if !ok || changedObject(broken[ref], obj) {
			out = append(out, ref)
			continue
		}
		if changed == nil {
			changed = store.ChangedNamespaces(prev, cur, kindsButSlices)
		}
		cure := changed[""]
		for _, ns := range scope(cur, obj, ref) {
			cure = cure || changed[ns]
		}
		if !cure && ref.Kind == store.KindService {
			if slices == nil {
				slices = store.ChangedNamespaces(prev, cur, []store.Kind{store.KindEndpointSlice})
			}
			cure = slices[ref.Namespace]
		}
		if cure {
			out = append(out, ref)
		}
	}
	return out
}

// scope lists the namespaces whose changes may cure obj's rejection: its own, those of what it
// names by KIC's dependency rules and, for a Gateway API route, those of its parents. Duplicates
// are kept; the list is as long as obj's references.
func scope(snap *store.Snapshot, obj store.Object, ref store.Ref) []string {
	out := []string{ref.Namespace}
	for _, d := range fallback.References(snap, obj) {
		out = append(out, d.Namespace)
	}
	for _, p := range parentRefs(obj) {
		if p.Namespace != nil {
			out = append(out, string(*p.Namespace))
		}
	}
	return out
}

// parentRefs are a Gateway API route's parents (nil for any other object).
func parentRefs(obj store.Object) []gatewayv1.ParentReference {
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.GRPCRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.TCPRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.UDPRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.TLSRoute:
		return r.Spec.ParentRefs
	}
	return nil
}

// releaseBroken forgets the rejected objects a build of snap includes again (releasable), so
// their current version gets a chance. Called with mu held; reports whether any was released.
func (l *Loop) releaseBroken(snap *store.Snapshot) bool {
	refs := releasable(l.broken, l.builtSnap, snap)
	for _, ref := range refs {
		delete(l.broken, ref)
		l.log.Info("object Kong rejected, or what it is built with, has changed; including it again", "object", ref.String())
	}
	return len(refs) > 0
}

// stillBroken lists, sorted, the rejected objects a build of snap leaves out: those
// releaseBroken would keep. Called with mu held; changes nothing.
func (l *Loop) stillBroken(snap *store.Snapshot) []store.Ref {
	release := releasable(l.broken, l.builtSnap, snap)
	out := make([]store.Ref, 0, len(l.broken))
	for _, ref := range sortedRefs(l.broken) {
		if len(release) > 0 && release[0] == ref {
			release = release[1:]
			continue
		}
		out = append(out, ref)
	}
	return out
}

// changedObject compares by resourceVersion; objects without one (manifests) by identity.
func changedObject(old, cur store.Object) bool {
	if old.GetResourceVersion() != "" || cur.GetResourceVersion() != "" {
		return old.GetResourceVersion() != cur.GetResourceVersion() || old.GetUID() != cur.GetUID()
	}
	return old != cur
}

package translator

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// KongServiceFacade backends (KIC's KongServiceFacade gate): an Ingress backend's resource
// naming a facade of the Ingress's namespace resolves to the facade's Service and port, under a
// Kong service of the facade's own, `<namespace>.<facade>.svc.facade` (name, host and upstream),
// tagged with the facade, with the facade's annotations over the Service's (KIC merges them so:
// konghq.com/plugins, protocol, KongUpstreamPolicy … of the facade win).

// isFacadeRef reports whether a backend resource names a KongServiceFacade.
func isFacadeRef(res *corev1.TypedLocalObjectReference) bool {
	return res != nil && res.Kind == kic.KongServiceFacadeKind && res.APIGroup != nil &&
		*res.APIGroup == kic.SchemeGroupVersion.Group
}

// unsupportedBackend explains why a backend cannot be translated: neither a Service nor, with
// the gate on (facades), a KongServiceFacade.
func unsupportedBackend(res *corev1.TypedLocalObjectReference, facades bool) string {
	if res == nil {
		return "backend names neither a Service nor a resource"
	}
	gk := res.Kind
	if res.APIGroup != nil && *res.APIGroup != "" {
		gk = *res.APIGroup + "/" + gk
	}
	if facades {
		return fmt.Sprintf("backend %s %q is not supported, only Service and KongServiceFacade backends are", gk, res.Name)
	}
	return fmt.Sprintf("backend %s %q is not supported, only Service backends are", gk, res.Name)
}

// resolvePathBackend resolves a rule path's backend: a Service, or a facade.
func (t *ingressBuild) resolvePathBackend(ing *networkingv1.Ingress, b *networkingv1.IngressBackend, pos pathPos) (backend, bool) {
	if b.Service != nil {
		return t.resolveBackend(ing, b.Service, func() string { return pos.field(".backend.service") })
	}
	if !isFacadeRef(b.Resource) {
		t.problem(ingressRef(ing), pos.field(".backend"), "%s; path skipped", unsupportedBackend(b.Resource, t.opts.Features.KongServiceFacade))
		return backend{}, false
	}
	return t.resolveFacade(ing, b.Resource.Name, func() string { return pos.field(".backend.resource") })
}

// resolveDefaultBackend resolves the default backend: a Service, or a facade.
func (t *ingressBuild) resolveDefaultBackend(ing *networkingv1.Ingress, db *networkingv1.IngressBackend) (backend, bool) {
	if db.Service != nil {
		return t.resolveBackend(ing, db.Service, func() string { return "spec.defaultBackend.service" })
	}
	if !isFacadeRef(db.Resource) {
		t.problem(ingressRef(ing), "spec.defaultBackend", "%s; default backend ignored", unsupportedBackend(db.Resource, t.opts.Features.KongServiceFacade))
		return backend{}, false
	}
	return t.resolveFacade(ing, db.Resource.Name, func() string { return "spec.defaultBackend.resource" })
}

// resolveFacade resolves a facade backend, in the Ingress's namespace (the reference has none,
// and the facade's backendRef none either: a facade reaches only Services of its namespace).
// Skipped with a problem: the gate off, a facade missing or not of our class (KIC's store does
// not hold it), its Service missing, its port not one of the Service's or not a port.
func (t *ingressBuild) resolveFacade(ing *networkingv1.Ingress, name string, field func() string) (backend, bool) {
	if !t.opts.Features.KongServiceFacade {
		f := field()
		t.problem(ingressRef(ing), f, "backend KongServiceFacade %q: the KongServiceFacade feature gate is off "+
			"(KIC's default; --feature-gates KongServiceFacade=true reads them); %s", name, skipped(f))
		return backend{}, false
	}
	fc, ok := t.snap.KongServiceFacade(ing.Namespace, name)
	if !ok {
		f := field()
		t.missingRef(ingressRef(ing), f+".name", "KongServiceFacade %s/%s not found; %s", ing.Namespace, name, skipped(f))
		return backend{}, false
	}
	if !t.servesFacade(fc) {
		f := field()
		t.problem(ingressRef(ing), f+".name", "KongServiceFacade %s/%s is not of class %q (its kubernetes.io/ingress.class "+
			"annotation, or none with our class the default): KIC does not read it; %s", ing.Namespace, name, t.opts.IngressClass, skipped(f))
		return backend{}, false
	}
	ref := store.Ref{Kind: store.KindKongServiceFacade, Namespace: fc.Namespace, Name: fc.Name}
	port := fc.Spec.Backend.Port
	if port < 1 || port > 65535 {
		t.problem(ref, "spec.backendRef.port", "%d is not a port; backends naming the facade are skipped", port)
		return backend{}, false
	}
	svc, ok := t.snap.Service(fc.Namespace, fc.Spec.Backend.Name)
	if !ok {
		t.missingRef(ref, "spec.backendRef.name", "Service %s/%s not found; backends naming the facade are skipped",
			fc.Namespace, fc.Spec.Backend.Name)
		return backend{}, false
	}
	pd := portDef{mode: portByNumber, number: port}
	sp, why := findPort(svc, pd)
	if why != "" {
		t.problem(ref, "spec.backendRef.port", "%s; backends naming the facade are skipped", why)
		return backend{}, false
	}
	id := t.internFacade(fc.Namespace, fc.Name)
	tb := t.idents()
	tb.mu.Lock() // the identity keeps the merged Service
	merged := id.mergedService(fc, svc)
	tb.mu.Unlock()
	return backend{ident: id, port: pd, svc: merged, svcPort: sp, facade: fc}, true
}

// servesFacade is KIC's class filter for facades (its controller's, the annotation's); with no
// annotation the answer depends on our IngressClass, whose read is recorded.
func (t *ingressBuild) servesFacade(fc *kic.KongServiceFacade) bool {
	if fc.Annotations[annIngressClass] == "" {
		t.snap.Get(store.Ref{Kind: store.KindIngressClass, Name: t.opts.IngressClass})
	}
	return t.servesClassAnnotation(fc)
}

// mergedService is svc with fc's annotations over its own, made once per pair and kept on the
// identity, so that the Kong service's pieces see the same input while neither changes.
func (id *ksIdent) mergedService(fc *kic.KongServiceFacade, svc *corev1.Service) *corev1.Service {
	if m := id.merged; m != nil && m.of == [2]any{fc, svc} {
		return m.svc
	}
	m := *svc
	m.Annotations = maps.Clone(svc.Annotations)
	if m.Annotations == nil && len(fc.Annotations) > 0 {
		m.Annotations = make(map[string]string, len(fc.Annotations))
	}
	maps.Copy(m.Annotations, fc.Annotations)
	id.merged = &facadeMerge{svc: &m, of: [2]any{fc, svc}}
	return &m
}

// internFacade returns the identity of a facade's Kong service, `<ns>.<facade>.svc.facade`,
// whose host (and upstream name) is the same.
func (t *ingressBuild) internFacade(ns, name string) *ksIdent {
	var buf [256]byte
	n := appendFacadeName(buf[:0], ns, name)
	tb := t.idents()
	if id := tb.lookup(n); id != nil {
		return id
	}
	var p strPack
	p.grow(len(n) + 36)
	p.writeBytes(n)
	id := newIdent(p.take(), t.keep)
	id.host = id.name
	id.id = p.addID(t.ids.services, id.name)
	return tb.add(id)
}

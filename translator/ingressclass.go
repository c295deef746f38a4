package translator

import (
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
)

// servesIngress reports whether this controller's class covers ing, KIC's way: a non-empty
// kubernetes.io/ingress.class annotation decides when present; otherwise spec.ingressClassName;
// otherwise the Ingress is served only when our IngressClass is marked the cluster default.
// Ingresses of other classes belong to other controllers and are skipped without a problem.
func (t *translation) servesIngress(ing *networkingv1.Ingress) bool {
	if c := ing.Annotations[annIngressClass]; c != "" {
		return c == t.opts.IngressClass
	}
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName == t.opts.IngressClass
	}
	return t.defaultClass
}

// selectIngresses returns the Ingresses this controller serves in KIC's processing order:
// by creation time, ties broken by the "namespace/name" string. That order decides which
// Ingress wins a TLS host and the default backend.
func (t *translation) selectIngresses() []*networkingv1.Ingress {
	all := t.snap.Ingresses()
	out := make([]*networkingv1.Ingress, 0, len(all))
	for _, ing := range all {
		if t.servesIngress(ing) {
			out = append(out, ing)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return nsNameKey(a.Namespace, a.Name) < nsNameKey(b.Namespace, b.Name)
	})
	return out
}

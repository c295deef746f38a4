package translator

import (
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/store"
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
// Ingress wins a TLS host and the default backend. It is a piece of the whole kind, keyed by
// whether our class is the default: reused while no Ingress changed.
func (t *translation) selectIngresses() *servedIngresses {
	return piece(t, t.memos.served, t.defaultClass, t.servedIngresses)
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

func (t *translation) servedIngresses() *servedIngresses {
	all := t.snap.Objects(store.KindIngress)
	out := make([]*networkingv1.Ingress, 0, len(all))
	plugins := map[[2]string]*annotatedIngress{}
	for _, o := range all {
		ing := o.(*networkingv1.Ingress)
		if !t.servesIngress(ing) {
			continue
		}
		out = append(out, ing)
		if v := ing.Annotations[annPlugins]; v != "" {
			plugins[[2]string{ing.Namespace, ing.Name}] = &annotatedIngress{ref: ingressRef(ing), refs: parsePluginRefs(v, ing.Namespace)}
		}
	}
	cmp := func(a, b *networkingv1.Ingress) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return compareNsName(a.Namespace, a.Name, b.Namespace, b.Name)
	}
	if !slices.IsSortedFunc(out, cmp) { // a total order: no ties for stability to keep
		slices.SortFunc(out, cmp)
	}
	si := &servedIngresses{list: out, plugins: plugins}
	for i, ing := range out {
		if len(ing.Spec.TLS) > 0 {
			si.tls = append(si.tls, i)
		}
		if ing.Spec.DefaultBackend != nil {
			si.defs = append(si.defs, i)
		}
	}
	return si
}

// compareNsName compares the strings "ans/aname" and "bns/bname" without building them.
func compareNsName(ans, aname, bns, bname string) int {
	if ans == bns {
		return strings.Compare(aname, bname)
	}
	n := min(len(ans), len(bns))
	if c := strings.Compare(ans[:n], bns[:n]); c != 0 {
		return c
	}
	// One namespace is a proper prefix of the other: the shorter one's next byte is '/'.
	if len(ans) < len(bns) {
		return strings.Compare("/"+aname, bns[n:]+"/"+bname)
	}
	return strings.Compare(ans[n:]+"/"+aname, "/"+bname)
}

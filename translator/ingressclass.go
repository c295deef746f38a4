package translator

import (
	"maps"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/store"
)

// servesIngress reports whether this controller's class covers ing, KIC's way: a non-empty
// kubernetes.io/ingress.class annotation decides when present; otherwise spec.ingressClassName;
// otherwise the Ingress is served only when our IngressClass is marked the cluster default.
// Ingresses of other classes belong to other controllers and are skipped without a problem.
func (t *ingressBuild) servesIngress(ing *networkingv1.Ingress) bool {
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
func (t *ingressBuild) selectIngresses() *servedIngresses {
	if si, ok := t.patchServed(); ok {
		return si
	}
	return piece(t.translation, t.memos.served, t.defaultClass, t.servedIngresses)
}

// patchServed updates the last build's served list in place, without scanning the kind, when
// the only Ingress changes since are new versions of served Ingresses that stay served at their
// place (the same creation time): the common single edit. Anything else scans.
func (t *ingressBuild) patchServed() (*servedIngresses, bool) {
	if !t.keep {
		return nil, false
	}
	e, ok := t.memos.served.m[t.defaultClass]
	k, i := t.kinds, kindIndex(store.KindIngress)
	if !ok || e.checked != t.gen-1 || k.gen[i] != t.gen || k.changes[i] == nil || e.reads.mask != kindBit(store.KindIngress) || len(e.reads.kinds) != 1 {
		return nil, false
	}
	prev := e.val
	st := &t.memos.stages
	si := &servedIngresses{list: st.copyServed(prev.list), plugins: prev.plugins, tls: prev.tls, defs: prev.defs}
	for _, c := range k.changes[i] {
		old, _ := c.old.(*networkingv1.Ingress)
		cur, _ := c.cur.(*networkingv1.Ingress)
		if old == nil || cur == nil || !t.servesIngress(old) || !t.servesIngress(cur) ||
			!old.CreationTimestamp.Equal(&cur.CreationTimestamp) {
			return nil, false
		}
		pos, found := slices.BinarySearchFunc(si.list, old, compareServed)
		if !found || si.list[pos] != old {
			return nil, false
		}
		si.list[pos] = cur
		si.replaced(pos, old, cur)
	}
	e.val, e.gen, e.checked = si, t.gen, t.gen
	e.reads.kinds[0].list = t.snap.snap.Objects(store.KindIngress)
	st.droppedServed = prev.list // no memo holds it now; this build still reads it
	return si, true
}

// replaced updates the positions and plugin references for old replaced by cur at pos; the
// lists and map are copied before they change (the last build's value still holds them).
func (si *servedIngresses) replaced(pos int, old, cur *networkingv1.Ingress) {
	si.tls = setPos(si.tls, pos, len(cur.Spec.TLS) > 0)
	si.defs = setPos(si.defs, pos, cur.Spec.DefaultBackend != nil)
	a, b := old.Annotations[annPlugins], cur.Annotations[annPlugins]
	if a == b {
		return // the same references from the same Ingress: the entry stands
	}
	si.plugins = maps.Clone(si.plugins)
	key := [2]string{cur.Namespace, cur.Name}
	delete(si.plugins, key)
	if b != "" {
		si.plugins[key] = &annotatedIngress{ref: ingressRef(cur), refs: parsePluginRefs(b, cur.Namespace)}
	}
}

// setPos returns the sorted positions with pos in or out, copying them when that changes them.
func setPos(ps []int, pos int, in bool) []int {
	i, has := slices.BinarySearch(ps, pos)
	switch {
	case in && !has:
		return slices.Insert(slices.Clone(ps), i, pos)
	case !in && has:
		return slices.Delete(slices.Clone(ps), i, i+1)
	}
	return ps
}

// compareServed is the served order: creation time, then "namespace/name".
func compareServed(a, b *networkingv1.Ingress) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return compareNsName(a.Namespace, a.Name, b.Namespace, b.Name)
}

func (t *ingressBuild) servedIngresses() *servedIngresses {
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
	if !slices.IsSortedFunc(out, compareServed) { // a total order: no ties for stability to keep
		slices.SortFunc(out, compareServed)
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

package status

import (
	"context"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	kv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// KongUpstreamPolicy ancestor status, as KIC v3.5.13's KongUpstreamPolicy controller writes it:
// status.ancestors lists the Services and KongServiceFacades that name the policy
// (konghq.com/upstream-policy, in its namespace), oldest first, at most 16, each with
// kongsync's Gateway controller name and two conditions: Accepted (True/Accepted, or
// False/Conflicted for a Service that an HTTPRoute rule puts beside a backend without this
// policy: one Kong upstream cannot take two policies) and Programmed (True/Programmed once an
// entity of the ancestor is in the configuration every Kong holds, else False/Pending). A policy
// gets a status only while an ancestor backs an Ingress of our class or an HTTPRoute with a
// parent Gateway of ours, as KIC's; kongsync then also removes its entries from a policy no
// longer used (KIC leaves them).

// maxAncestors is the Gateway API's limit on status.ancestors.
const maxAncestors = 16

// facadeGroup is KongServiceFacade's API group.
var facadeGroup = incubatorv1alpha1.SchemeGroupVersion.Group

// ancestor is one Service or KongServiceFacade a policy applies to.
type ancestor struct {
	ref        store.Ref
	created    metav1.Time
	conflicted bool // a Service beside a backend of another policy (or none) in an HTTPRoute rule
	programmed bool // an entity of it is in the configuration every Kong holds
}

// policyUse is what the policies' statuses of one configuration are made from, by policy
// ("namespace/name"): their ancestors, and which policies an ancestor of ours uses.
type policyUse struct {
	ancestors map[string][]ancestor
	used      map[string]bool
}

// policyUses reads the snapshot for every policy's ancestors. parents are the translation's
// route verdicts (an HTTPRoute with one has a parent Gateway of ours); configured says whether
// an object's entities are in the configuration Kong holds.
func policyUses(snap *store.Snapshot, parents []translator.ParentStatus, class string, isDefault bool,
	configured func(store.Ref) bool) policyUse {
	u := policyUse{ancestors: map[string][]ancestor{}, used: map[string]bool{}}
	policyOf := map[store.Ref]string{} // ancestor → its policy's key
	for _, svc := range snap.Services() {
		if name := svc.Annotations[kv1beta1.UpstreamPolicyAnnotation]; name != "" {
			ref := store.Ref{Kind: store.KindService, Namespace: svc.Namespace, Name: svc.Name}
			policyOf[ref] = svc.Namespace + "/" + name
		}
	}
	for _, o := range snap.Objects(store.KindKongServiceFacade) {
		if name := o.GetAnnotations()[kv1beta1.UpstreamPolicyAnnotation]; name != "" {
			ref := store.Ref{Kind: store.KindKongServiceFacade, Namespace: o.GetNamespace(), Name: o.GetName()}
			policyOf[ref] = o.GetNamespace() + "/" + name
		}
	}
	if len(policyOf) == 0 {
		return u
	}
	use := func(ref store.Ref) {
		if key, ok := policyOf[ref]; ok {
			u.used[key] = true
		}
	}
	for _, ing := range snap.Ingresses() {
		if ingressOfClass(ing, class, isDefault) {
			ingressBackends(ing, use)
		}
	}
	conflicted := map[store.Ref]bool{}
	ours := routesWithParents(parents)
	for _, o := range snap.Objects(store.KindHTTPRoute) {
		r := o.(*gatewayv1.HTTPRoute)
		ref := store.Ref{Kind: store.KindHTTPRoute, Namespace: r.Namespace, Name: r.Name}
		for i := range r.Spec.Rules {
			refs := ruleBackends(r.Namespace, r.Spec.Rules[i].BackendRefs)
			if ours[ref] {
				for _, b := range refs {
					use(b)
				}
			}
			markConflicts(refs, policyOf, conflicted)
		}
	}
	for ref, key := range policyOf {
		o, _ := snap.Get(ref)
		u.ancestors[key] = append(u.ancestors[key], ancestor{ref: ref, created: o.GetCreationTimestamp(),
			conflicted: conflicted[ref], programmed: configured(ref)})
	}
	for key := range u.ancestors {
		sortAncestors(u.ancestors[key])
	}
	return u
}

// ingressOfClass is the translator's class rule for Ingresses: the legacy annotation, else
// spec.ingressClassName, else our class being the default.
func ingressOfClass(ing *networkingv1.Ingress, class string, isDefault bool) bool {
	if c := ing.Annotations[classAnnotation]; c != "" {
		return c == class
	}
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName == class
	}
	return isDefault
}

// ingressBackends calls use with the Services and KongServiceFacades an Ingress's rules route to
// (KIC's index: rules only, not the default backend).
func ingressBackends(ing *networkingv1.Ingress, use func(store.Ref)) {
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			switch b := p.Backend; {
			case b.Service != nil:
				use(store.Ref{Kind: store.KindService, Namespace: ing.Namespace, Name: b.Service.Name})
			case b.Resource != nil && b.Resource.APIGroup != nil && *b.Resource.APIGroup == facadeGroup &&
				b.Resource.Kind == string(store.KindKongServiceFacade):
				use(store.Ref{Kind: store.KindKongServiceFacade, Namespace: ing.Namespace, Name: b.Resource.Name})
			}
		}
	}
}

// routesWithParents are the routes with a verdict: those with a parentRef to a Gateway of ours.
func routesWithParents(parents []translator.ParentStatus) map[store.Ref]bool {
	out := map[store.Ref]bool{}
	for i := range parents {
		out[parents[i].Route] = true
	}
	return out
}

// ruleBackends are the Services and KongServiceFacades of an HTTPRoute rule's backendRefs, in
// order; other kinds are left out.
func ruleBackends(ns string, refs []gatewayv1.HTTPBackendRef) []store.Ref {
	out := make([]store.Ref, 0, len(refs))
	for _, br := range refs {
		n := ns
		if br.Namespace != nil {
			n = string(*br.Namespace)
		}
		group, kind := "", "Service"
		if br.Group != nil {
			group = string(*br.Group)
		}
		if br.Kind != nil {
			kind = string(*br.Kind)
		}
		switch {
		case (group == "" || group == "core") && kind == "Service":
			out = append(out, store.Ref{Kind: store.KindService, Namespace: n, Name: string(br.Name)})
		case group == facadeGroup && kind == string(store.KindKongServiceFacade):
			out = append(out, store.Ref{Kind: store.KindKongServiceFacade, Namespace: n, Name: string(br.Name)})
		}
	}
	return out
}

// markConflicts marks the Services of one rule whose policy another Service of the rule does not
// share (KIC checks Services only: a facade is its own Kong service).
func markConflicts(refs []store.Ref, policyOf map[store.Ref]string, conflicted map[store.Ref]bool) {
	if len(refs) < 2 {
		return
	}
	for i, r := range refs {
		key, ok := policyOf[r]
		if r.Kind != store.KindService || !ok {
			continue
		}
		for j, o := range refs {
			if j != i && o.Kind == store.KindService && policyOf[o] != key {
				conflicted[r] = true
			}
		}
	}
}

// sortAncestors orders ancestors as KIC does: oldest first, then kind, namespace, name.
func sortAncestors(as []ancestor) {
	slices.SortFunc(as, func(a, b ancestor) int {
		if !a.created.Equal(&b.created) {
			if a.created.Before(&b.created) {
				return -1
			}
			return 1
		}
		if c := strings.Compare(string(a.ref.Kind), string(b.ref.Kind)); c != 0 {
			return c
		}
		if c := strings.Compare(a.ref.Namespace, b.ref.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.ref.Name, b.ref.Name)
	})
}

// policyAncestors is a policy's status.ancestors: other controllers' entries as they are, then
// ours for as (none when the policy is not used), at most maxAncestors in all, the oldest kept.
// Conditions keep their lastTransitionTime while their status stays. It reports whether the
// list changed.
func policyAncestors(cur []kv1beta1.PolicyAncestorStatus, as []ancestor, gen int64, controller string,
	now metav1.Time) ([]kv1beta1.PolicyAncestorStatus, bool) {
	var out []kv1beta1.PolicyAncestorStatus
	mine := map[ancestorKey]int{} // our current entries, by ref
	for i, a := range cur {
		if a.ControllerName != controller {
			out = append(out, a)
		} else {
			mine[keyOfAncestor(a.AncestorRef)] = i
		}
	}
	for _, a := range as {
		if len(out) >= maxAncestors {
			break
		}
		ref := ancestorRef(a.ref)
		var conds []metav1.Condition
		if i, ok := mine[keyOfAncestor(ref)]; ok {
			conds = cur[i].Conditions
		}
		out = append(out, kv1beta1.PolicyAncestorStatus{AncestorRef: ref, ControllerName: controller,
			Conditions: mergeConditions(conds, ancestorConditions(a, gen), now)})
	}
	return out, !equalAncestors(cur, out)
}

// ancestorConditions: KIC's Accepted and Programmed (see the top of this file), at the policy's
// generation.
func ancestorConditions(a ancestor, gen int64) []metav1.Condition {
	accepted := cond(string(gatewayv1.PolicyConditionAccepted), true, string(gatewayv1.PolicyReasonAccepted), "", gen)
	programmed := cond(ConditionProgrammed, true, string(gatewayv1.GatewayReasonProgrammed), "", gen)
	if a.conflicted {
		accepted = cond(string(gatewayv1.PolicyConditionAccepted), false, string(gatewayv1.PolicyReasonConflicted), "", gen)
	}
	if a.conflicted || !a.programmed {
		programmed = cond(ConditionProgrammed, false, string(gatewayv1.GatewayReasonPending), "", gen)
	}
	return []metav1.Condition{accepted, programmed}
}

// ancestorRef names an ancestor as KIC does: group "core" for a Service, the namespace always.
func ancestorRef(ref store.Ref) kv1beta1.AncestorRef {
	group, kind, ns := "core", string(ref.Kind), ref.Namespace
	if ref.Kind == store.KindKongServiceFacade {
		group = facadeGroup
	}
	return kv1beta1.AncestorRef{Group: &group, Kind: &kind, Namespace: &ns, Name: ref.Name}
}

// ancestorKey identifies an ancestor entry by its ref's group, kind, namespace and name.
type ancestorKey struct{ group, kind, namespace, name string }

func keyOfAncestor(r kv1beta1.AncestorRef) ancestorKey {
	return ancestorKey{deref(r.Group), deref(r.Kind), deref(r.Namespace), r.Name}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func equalAncestors(a, b []kv1beta1.PolicyAncestorStatus) bool {
	return slices.EqualFunc(a, b, func(x, y kv1beta1.PolicyAncestorStatus) bool {
		return x.ControllerName == y.ControllerName && keyOfAncestor(x.AncestorRef) == keyOfAncestor(y.AncestorRef) &&
			eqPtr(x.AncestorRef.SectionName, y.AncestorRef.SectionName) && eqPtr(x.AncestorRef.Port, y.AncestorRef.Port) &&
			equalConditions(x.Conditions, y.Conditions)
	})
}

// policies writes the ancestors of every KongUpstreamPolicy from the configuration p, which
// every Kong replica holds.
func (w *ProgrammedWriter) policies(ctx context.Context, pp *progPass, p *kongsync.Published, v *verdicts) {
	pols := p.Snapshot.Objects(store.KindKongUpstreamPolicy)
	if len(pols) == 0 {
		return
	}
	snap := p.Snapshot
	u := policyUses(snap, p.Result.Parents, w.opts.IngressClass, snap.IsDefaultClass(w.opts.IngressClass),
		func(ref store.Ref) bool { return v.of(ref) == verdictSucceeded })
	for _, o := range pols {
		pol := o.(*kv1beta1.KongUpstreamPolicy)
		key := pol.Namespace + "/" + pol.Name
		var as []ancestor
		if u.used[key] {
			as = u.ancestors[key]
		}
		if as == nil && !slices.ContainsFunc(pol.Status.Ancestors, func(a kv1beta1.PolicyAncestorStatus) bool {
			return a.ControllerName == w.opts.ControllerName
		}) {
			continue // not used, and nothing of ours to remove
		}
		pp.sum.Checked++
		out, changed := policyAncestors(pol.Status.Ancestors, as, pol.Generation, w.opts.ControllerName, pp.now)
		if changed {
			ref := store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: pol.Namespace, Name: pol.Name}
			w.apply(ctx, pp, ref, pol, map[string]any{"ancestors": out})
		}
	}
}

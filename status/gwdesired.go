package status

import (
	"net"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// KIC v3.5.13's messages, kept so that tooling matching them keeps working after a migration.
const (
	classAcceptedMessage   = "the gatewayclass has been accepted by the controller"
	gatewayAcceptedMessage = "this unmanaged gateway has been picked up by the controller and will be processed"
)

// The functions below compute the status to write from the object as the store holds it and
// the translation's verdict. They are pure: now is the lastTransitionTime of a condition whose
// status changes, and a result equal to the current status means nothing is written.

// cond is one condition at the object's generation (lastTransitionTime is set by merge).
func cond(typ string, ok bool, reason, msg string, gen int64) metav1.Condition {
	s := metav1.ConditionFalse
	if ok {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: gen}
}

// mergeConditions returns a new list: cur with each of want merged in by type, in place, and
// the types cur lacks appended. A condition keeps its lastTransitionTime while its status is
// unchanged. Conditions of other types stay as they are: the Gateway API forbids removing or
// reordering conditions a controller is not responsible for.
func mergeConditions(cur, want []metav1.Condition, now metav1.Time) []metav1.Condition {
	out := make([]metav1.Condition, len(cur), len(cur)+len(want))
	copy(out, cur)
	for _, c := range want {
		c.LastTransitionTime = now
		i := slices.IndexFunc(out, func(o metav1.Condition) bool { return o.Type == c.Type })
		if i < 0 {
			out = append(out, c)
			continue
		}
		if out[i].Status == c.Status {
			c.LastTransitionTime = out[i].LastTransitionTime
		}
		out[i] = c
	}
	return out
}

// classConditions are a GatewayClass's conditions once kongsync accepted it, and whether they
// differ from the current ones.
func classConditions(gc *gatewayv1.GatewayClass, now metav1.Time) ([]metav1.Condition, bool) {
	want := []metav1.Condition{cond(string(gatewayv1.GatewayClassConditionStatusAccepted), true,
		string(gatewayv1.GatewayClassReasonAccepted), classAcceptedMessage, gc.Generation)}
	out := mergeConditions(gc.Status.Conditions, want, now)
	return out, !equality.Semantic.DeepEqual(gc.Status.Conditions, out)
}

// gatewayStatus is a Gateway's status: Accepted (gatewayAccepted) and Programmed, one listener
// status per listener the translator reported (in spec order; entries of removed listeners
// dropped) with its conditions (listenerConditions: listens are the ports Kong serves, nil when
// unknown), and the publish addresses. It reports whether that differs from the current status.
func gatewayStatus(gw *gatewayv1.Gateway, want translator.GatewayStatus, addrs []gatewayv1.GatewayStatusAddress,
	listens kongListens, now metav1.Time) (gatewayv1.GatewayStatus, bool) {
	gen := gw.Generation
	out := gatewayv1.GatewayStatus{Addresses: addrs}
	conflicts := listenerConflicts(gw.Spec.Listeners)
	var invalid []string
	for i, ls := range want.Listeners {
		var cur []metav1.Condition
		if j := slices.IndexFunc(gw.Status.Listeners, func(l gatewayv1.ListenerStatus) bool { return string(l.Name) == ls.Name }); j >= 0 {
			cur = gw.Status.Listeners[j].Conditions
		}
		accepted, reason, msg, conflict := true, string(gatewayv1.ListenerReasonAccepted), "", ""
		if i < len(gw.Spec.Listeners) && string(gw.Spec.Listeners[i].Name) == ls.Name {
			accepted, reason, msg = listens.accepted(&gw.Spec.Listeners[i])
			conflict = conflicts[i]
		}
		if !accepted || conflict != "" {
			invalid = append(invalid, ls.Name)
		}
		st := gatewayv1.ListenerStatus{Name: gatewayv1.SectionName(ls.Name), AttachedRoutes: ls.AttachedRoutes,
			Conditions: mergeConditions(cur, listenerConditions(ls, accepted, reason, msg, conflict, gen), now)}
		for _, k := range ls.SupportedKinds {
			g := gatewayv1.Group(store.GatewayGroup)
			st.SupportedKinds = append(st.SupportedKinds, gatewayv1.RouteGroupKind{Group: &g, Kind: gatewayv1.Kind(k)})
		}
		out.Listeners = append(out.Listeners, st)
	}
	out.Conditions = mergeConditions(gw.Status.Conditions, []metav1.Condition{
		gatewayAccepted(invalid, len(want.Listeners), gen),
		cond(string(gatewayv1.GatewayConditionProgrammed), true, string(gatewayv1.GatewayReasonProgrammed), "", gen),
	}, now)
	cur := gw.Status
	changed := !equality.Semantic.DeepEqual(cur.Conditions, out.Conditions) ||
		!equality.Semantic.DeepEqual(cur.Listeners, out.Listeners) || !equality.Semantic.DeepEqual(cur.Addresses, out.Addresses)
	return out, changed
}

// gatewayAddresses turns publish addresses into Gateway status addresses, sorted and
// deduplicated, typed IPAddress or Hostname by syntax.
func gatewayAddresses(addrs []string) []gatewayv1.GatewayStatusAddress {
	var out []gatewayv1.GatewayStatusAddress
	for _, a := range addrs {
		a = strings.TrimSpace(a)
		if a == "" || slices.ContainsFunc(out, func(o gatewayv1.GatewayStatusAddress) bool { return o.Value == a }) {
			continue
		}
		t := gatewayv1.HostnameAddressType
		if net.ParseIP(a) != nil {
			t = gatewayv1.IPAddressType
		}
		out = append(out, gatewayv1.GatewayStatusAddress{Type: &t, Value: a})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

// parentKey identifies a status.parents entry by its parentRef, with the defaults applied.
type parentKey struct {
	group, kind, namespace, name, section string
	port                                  int32
}

func keyOfRef(pr gatewayv1.ParentReference, routeNS string) parentKey {
	k := parentKey{group: store.GatewayGroup, kind: "Gateway", namespace: routeNS, name: string(pr.Name)}
	if pr.Group != nil {
		k.group = string(*pr.Group)
	}
	if pr.Kind != nil {
		k.kind = string(*pr.Kind)
	}
	if pr.Namespace != nil && *pr.Namespace != "" {
		k.namespace = string(*pr.Namespace)
	}
	if pr.SectionName != nil {
		k.section = string(*pr.SectionName)
	}
	if pr.Port != nil {
		k.port = int32(*pr.Port)
	}
	return k
}

// parentRef is the status parentRef of a translator verdict: the spec's, namespace set.
func parentRef(ps *translator.ParentStatus) gatewayv1.ParentReference {
	ns, name, _ := strings.Cut(ps.Gateway, "/")
	g, k, n := gatewayv1.Group(store.GatewayGroup), gatewayv1.Kind("Gateway"), gatewayv1.Namespace(ns)
	pr := gatewayv1.ParentReference{Group: &g, Kind: &k, Namespace: &n, Name: gatewayv1.ObjectName(name)}
	if ps.SectionName != "" {
		s := gatewayv1.SectionName(ps.SectionName)
		pr.SectionName = &s
	}
	if ps.Port != 0 {
		p := gatewayv1.PortNumber(ps.Port)
		pr.Port = &p
	}
	return pr
}

// routeInput is what a route's status.parents are computed from, besides its current entries.
type routeInput struct {
	ns         string // the route's namespace
	gen        int64  // its generation
	want       []translator.ParentStatus
	programmed routeVerdict // the route's Programmed verdict (progPending: none yet)
	// resolvedMsg gives the ResolvedRefs message of a failing reason.
	resolvedMsg func(reason string) string
	controller  string
	// reconciles reports whether kongsync reconciles the Gateway an entry's parentRef names
	// (false for the other Gateways under --gateway-to-reconcile): only those entries are its.
	reconciles func(namespace, name string) bool
	now        metav1.Time
}

// routeParents is a route's status.parents after kongsync's verdicts: other controllers'
// entries untouched and in place, ours updated in place (conditions merged), ours whose
// parentRef is gone dropped, new ones appended in parentRef order. An entry of ours for a
// Gateway this instance does not reconcile (--gateway-to-reconcile names another) is another
// instance's: left as it is. It reports whether the list changed.
func routeParents(cur []gatewayv1.RouteParentStatus, in *routeInput) ([]gatewayv1.RouteParentStatus, bool) {
	type desired struct {
		ps   *translator.ParentStatus
		ref  gatewayv1.ParentReference
		done bool
	}
	var ds []desired
	idx := map[parentKey]int{} // position in ds + 1
	for i := range in.want {
		if in.want[i].Assumed {
			continue
		}
		ref := parentRef(&in.want[i])
		if k := keyOfRef(ref, in.ns); idx[k] == 0 {
			idx[k] = len(ds) + 1
			ds = append(ds, desired{ps: &in.want[i], ref: ref})
		}
	}
	entry := func(d *desired, conds []metav1.Condition) gatewayv1.RouteParentStatus {
		d.done = true
		return gatewayv1.RouteParentStatus{ParentRef: d.ref, ControllerName: gatewayv1.GatewayController(in.controller),
			Conditions: mergeConditions(conds, routeConditions(d.ps, conds, in), in.now)}
	}
	out := make([]gatewayv1.RouteParentStatus, 0, len(cur)+len(ds))
	for _, e := range cur {
		k := keyOfRef(e.ParentRef, in.ns)
		if string(e.ControllerName) != in.controller || (in.reconciles != nil && k.group == store.GatewayGroup &&
			k.kind == "Gateway" && !in.reconciles(k.namespace, k.name)) {
			out = append(out, *e.DeepCopy())
			continue
		}
		if i := idx[k] - 1; i >= 0 && !ds[i].done {
			out = append(out, entry(&ds[i], e.Conditions))
		}
	}
	for i := range ds {
		if !ds[i].done {
			out = append(out, entry(&ds[i], nil))
		}
	}
	return out, !equalParents(cur, out)
}

// equalParents compares status.parents lists (a hand-written equality: a pass compares
// thousands of them, and reflection costs ten times as much).
func equalParents(a, b []gatewayv1.RouteParentStatus) bool {
	return slices.EqualFunc(a, b, func(x, y gatewayv1.RouteParentStatus) bool {
		return x.ControllerName == y.ControllerName && equalRef(x.ParentRef, y.ParentRef) && equalConditions(x.Conditions, y.Conditions)
	})
}

func equalRef(a, b gatewayv1.ParentReference) bool {
	return a.Name == b.Name && eqPtr(a.Group, b.Group) && eqPtr(a.Kind, b.Kind) && eqPtr(a.Namespace, b.Namespace) &&
		eqPtr(a.SectionName, b.SectionName) && eqPtr(a.Port, b.Port)
}

func eqPtr[T comparable](a, b *T) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

func equalConditions(a, b []metav1.Condition) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.Condition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message &&
			x.ObservedGeneration == y.ObservedGeneration && x.LastTransitionTime.Equal(&y.LastTransitionTime)
	})
}

// routeConditions: Accepted with the translator's reason and message; ResolvedRefs as the
// translator resolved the route's backendRefs (for a route no parent accepted too, as KIC); and
// KIC's Programmed (routeProgrammed). cur are the entry's current conditions.
func routeConditions(ps *translator.ParentStatus, cur []metav1.Condition, in *routeInput) []metav1.Condition {
	reason := ps.Reason
	if reason == "" {
		reason = string(gatewayv1.RouteReasonAccepted)
	}
	out := []metav1.Condition{cond(string(gatewayv1.RouteConditionAccepted), ps.Accepted, reason, ps.Message, in.gen)}
	if ps.ResolvedRefsReason != "" {
		msg := ""
		if !ps.ResolvedRefs {
			msg = ps.ResolvedRefsMessage
			if msg == "" {
				msg = in.resolvedMsg(ps.ResolvedRefsReason)
			}
		}
		out = append(out, cond(string(gatewayv1.RouteConditionResolvedRefs), ps.ResolvedRefs, ps.ResolvedRefsReason, msg, in.gen))
	}
	if c, ok := routeProgrammed(ps.Accepted, in.programmed, cur, in.gen); ok {
		out = append(out, c)
	}
	return out
}

// routeStatus is the status a route object of any Gateway API kind carries.
func routeStatus(obj store.Object) (*gatewayv1.RouteStatus, bool) {
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return &r.Status.RouteStatus, true
	case *gatewayv1.GRPCRoute:
		return &r.Status.RouteStatus, true
	case *gatewayv1.TCPRoute:
		return &r.Status.RouteStatus, true
	case *gatewayv1.UDPRoute:
		return &r.Status.RouteStatus, true
	case *gatewayv1.TLSRoute:
		return &r.Status.RouteStatus, true
	}
	return nil, false
}

// refProblems are the translator's backendRef problems by route: a route's ResolvedRefs=False
// message is the first of them (manifest order) of the failing reason's kind, which names the
// field and the object at fault.
type refProblems map[store.Ref][]translator.Problem

func indexRefProblems(ps []translator.Problem) refProblems {
	out := refProblems{}
	for _, p := range ps {
		if slices.Contains(routeKinds, p.Object.Kind) && strings.Contains(p.Field, "backendRefs[") {
			out[p.Object] = append(out[p.Object], p)
		}
	}
	return out
}

// refFieldSuffixes are the fields whose problems explain each ResolvedRefs reason.
var refFieldSuffixes = map[string][]string{
	translator.ReasonInvalidKind:     {".kind"},
	translator.ReasonBackendNotFound: {".name", ".port"},
	translator.ReasonRefNotPermitted: {".namespace"},
}

// refGeneric are the messages used when no problem explains a reason.
var refGeneric = map[string]string{
	translator.ReasonInvalidKind:     "a backendRef is not a core Service",
	translator.ReasonBackendNotFound: "a backendRef names a Service, or a Service port, that does not exist",
	translator.ReasonRefNotPermitted: "a backendRef names a Service in another namespace that no ReferenceGrant opens",
}

func (rp refProblems) message(route store.Ref, reason string) string {
	for _, p := range rp[route] {
		for _, sfx := range refFieldSuffixes[reason] {
			if strings.HasSuffix(p.Field, sfx) {
				return p.Message()
			}
		}
	}
	if m, ok := refGeneric[reason]; ok {
		return m
	}
	return "a backendRef does not resolve"
}

package translator

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

// bound is what a route's accepted parents give its translation.
type bound struct {
	listeners []*gatewayv1.Listener // the listeners the route attached to
	assumed   bool                  // a parent was assumed (offline, Gateway missing): listeners unknown
	parents   []ParentStatus
}

// served reports whether a parent of kongsync's accepted the route.
func (b *bound) served() bool {
	for i := range b.parents {
		if b.parents[i].Accepted {
			return true
		}
	}
	return false
}

// routeProtocols are the listener protocols a route kind attaches to.
func routeProtocols(k store.Kind) []gatewayv1.ProtocolType {
	switch k {
	case store.KindHTTPRoute, store.KindGRPCRoute:
		return []gatewayv1.ProtocolType{gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType}
	case store.KindTCPRoute:
		return []gatewayv1.ProtocolType{gatewayv1.TCPProtocolType}
	case store.KindUDPRoute:
		return []gatewayv1.ProtocolType{gatewayv1.UDPProtocolType}
	case store.KindTLSRoute:
		return []gatewayv1.ProtocolType{gatewayv1.TLSProtocolType}
	}
	return nil
}

// bindParents admits a route to its parent Gateways as the Gateway API specifies: each
// parentRef to a Gateway of kongsync's class (controllerName) binds to the listeners it
// selects (sectionName, port) whose protocol and allowedRoutes (kinds, namespaces) admit the
// route and whose hostname intersects the route's. Refusals are problems naming the parentRef
// and the spec's reason. Offline, a Gateway or GatewayClass missing from the manifests is
// assumed to exist and be kongsync's; the checks that need it are skipped. With arp given,
// the route's first parent of kongsync's makes the route's arena (*arp), which holds its
// status: a route with none costs no arena. The listeners live in sc's scratch (nil: allocated).
func (t *translation) bindParents(ref store.Ref, obj metav1.Object, parents []gatewayv1.ParentReference, hostnames []gatewayv1.Hostname,
	arp **routeArena, sc *gwScratch) bound {
	var b bound
	if sc != nil {
		b.listeners = sc.listeners[:0]
	}
	for i := range parents {
		pr := &parents[i]
		if (pr.Group != nil && *pr.Group != store.GatewayGroup) || (pr.Kind != nil && *pr.Kind != "Gateway") {
			continue // not a Gateway: no parent kongsync knows
		}
		ns := ref.Namespace
		if pr.Namespace != nil && *pr.Namespace != "" {
			ns = string(*pr.Namespace)
		}
		ps := parentStatus(ref, i, pr, sc.gatewayName(ns, string(pr.Name)))
		if !t.reconciles(ns, string(pr.Name)) {
			continue // --gateway-to-reconcile names another Gateway
		}
		o, ok := t.snap.Get(store.Ref{Kind: store.KindGateway, Namespace: ns, Name: string(pr.Name)})
		if !ok {
			if !t.opts.AssumeMissingGateways {
				t.missingRef(ref, parentField(i), "Gateway %s not found; the route is not attached to it", ps.Gateway)
				continue
			}
			ps.Accepted, ps.Reason, ps.Assumed = true, ReasonAccepted, true
			b.assumed = true
			b.firstParent(arp)
			b.parents = append(b.parents, ps)
			continue
		}
		gw := o.(*gatewayv1.Gateway)
		ours, assumed := t.ourGateway(gw)
		if !ours {
			continue // another controller's Gateway
		}
		ps.Assumed = assumed
		ar := b.firstParent(arp)
		before := len(b.listeners)
		ls, reason, msg := t.selectListeners(ref, gw, pr, hostnames, assumed, b.listeners)
		if reason != "" {
			ps.Reason, ps.Message = reason, msg
			t.problem(ref, parentField(i), "%s (%s); the route is not attached to Gateway %s", msg, reason, ps.Gateway)
		} else {
			ps.Accepted, ps.Reason = true, ReasonAccepted
			b.listeners = ls
			ps.Listeners = attachedListenerNames(ls[before:], len(b.parents) == 0 && ar != nil, ar)
		}
		b.parents = append(b.parents, ps)
	}
	if sc != nil {
		sc.listeners = b.listeners[:0]
	}
	return b
}

// firstParent makes the route's arena for its first parent status, when the route gets one
// (arp given, no arena yet), and returns it (nil without one).
func (b *bound) firstParent(arp **routeArena) *routeArena {
	if arp == nil {
		return nil
	}
	if *arp == nil && len(b.parents) == 0 {
		*arp = newRouteArena()
		(*arp).taken |= takenParents
		b.parents = (*arp).parents[:0]
	}
	return *arp
}

// parentStatus is the status of parentRef i of a route, not yet judged.
func parentStatus(ref store.Ref, i int, pr *gatewayv1.ParentReference, gateway string) ParentStatus {
	ps := ParentStatus{Route: ref, Index: i, Gateway: gateway}
	if pr.SectionName != nil {
		ps.SectionName = string(*pr.SectionName)
	}
	if pr.Port != nil {
		ps.Port = int32(*pr.Port)
	}
	return ps
}

// attachedListenerNames are the names of ls, in the arena's storage when inArena and there is one.
func attachedListenerNames(ls []*gatewayv1.Listener, inArena bool, ar *routeArena) []string {
	var out []string
	if inArena && len(ls) <= len(ar.listener) {
		out = ar.listener[:0]
	}
	for _, l := range ls {
		out = append(out, string(l.Name))
	}
	return out
}

// parentField is the field of parentRef i.
func parentField(i int) string { return "spec.parentRefs[" + strconv.Itoa(i) + "]" }

// gatewayName is "namespace/name", shared by the routes of the build naming that Gateway.
func (sc *gwScratch) gatewayName(ns, name string) string {
	if sc == nil {
		return ns + "/" + name
	}
	k := [2]string{ns, name}
	if s, ok := sc.gateways[k]; ok {
		return s
	}
	if sc.gateways == nil {
		sc.gateways = map[[2]string]string{}
	}
	s := ns + "/" + name
	sc.gateways[k] = s
	return s
}

// ourGateway reports whether gw's GatewayClass is kongsync's (and, with --gateway-to-reconcile,
// gw is that Gateway); assumed when offline and the class is not among the manifests.
func (t *translation) ourGateway(gw *gatewayv1.Gateway) (ours, assumed bool) {
	if !t.reconciles(gw.Namespace, gw.Name) {
		return false, false
	}
	o, ok := t.snap.Get(store.Ref{Kind: store.KindGatewayClass, Name: string(gw.Spec.GatewayClassName)})
	if !ok {
		return t.opts.AssumeMissingGateways, t.opts.AssumeMissingGateways
	}
	gc := o.(*gatewayv1.GatewayClass)
	return string(gc.Spec.ControllerName) == t.gatewayController(), false
}

// reconciles reports whether the Gateway namespace/name is one kongsync translates for: any,
// or only the one --gateway-to-reconcile names (KIC then neither reads nor serves the others).
func (t *translation) reconciles(namespace, name string) bool {
	g := t.opts.GatewayToReconcile
	return g == "" || len(g) == len(namespace)+1+len(name) && g[:len(namespace)] == namespace && g[len(namespace)] == '/' && g[len(namespace)+1:] == name
}

func (t *translation) gatewayController() string {
	if t.opts.GatewayControllerName != "" {
		return t.opts.GatewayControllerName
	}
	return DefaultGatewayControllerName
}

// selectListeners appends to matched the listeners of gw that parentRef pr selects and that
// admit the route, or returns the reason none does.
// With the Gateway's class assumed (offline, not among the manifests), the Gateway's own
// admission rules (allowedRoutes) are its controller's and are not applied; protocol, section,
// port and hostnames are.
func (t *translation) selectListeners(ref store.Ref, gw *gatewayv1.Gateway, pr *gatewayv1.ParentReference,
	hostnames []gatewayv1.Hostname, assumedClass bool, matched []*gatewayv1.Listener) ([]*gatewayv1.Listener, string, string) {
	picked, allowed, before := false, false, len(matched)
	stream := ref.Kind == store.KindTCPRoute || ref.Kind == store.KindUDPRoute
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		if (pr.SectionName != nil && *pr.SectionName != l.Name) || (pr.Port != nil && *pr.Port != l.Port) {
			continue
		}
		picked = true
		if !t.listenerAllows(ref, gw, l, assumedClass) {
			continue
		}
		allowed = true
		if stream || l.Hostname == nil || len(hostnames) == 0 || anyHostIntersects(hostnames, string(*l.Hostname)) {
			matched = append(matched, l)
		}
	}
	switch {
	case !picked:
		return nil, ReasonNoMatchingParent, "no listener of the Gateway matches sectionName/port"
	case !allowed:
		return nil, ReasonNotAllowedByListeners, "no selected listener allows " + string(ref.Kind) + "s from namespace " + ref.Namespace
	case len(matched) == before:
		return nil, ReasonNoMatchingListenerHost, "no hostname of the route matches a selected listener's hostname"
	}
	return matched, "", ""
}

// listenerAllows applies a listener's protocol and allowedRoutes (kinds, namespaces) to a route.
func (t *translation) listenerAllows(ref store.Ref, gw *gatewayv1.Gateway, l *gatewayv1.Listener, protocolOnly bool) bool {
	okProto := false
	for _, p := range routeProtocols(ref.Kind) {
		okProto = okProto || l.Protocol == p
	}
	if !okProto || protocolOnly {
		return okProto
	}
	ar := l.AllowedRoutes
	if ar == nil {
		return ref.Namespace == gw.Namespace
	}
	if len(ar.Kinds) > 0 {
		okKind := false
		for _, k := range ar.Kinds {
			okKind = okKind || (string(k.Kind) == string(ref.Kind) && (k.Group == nil || string(*k.Group) == store.GatewayGroup))
		}
		if !okKind {
			return false
		}
	}
	from := gatewayv1.NamespacesFromSame
	if ar.Namespaces != nil && ar.Namespaces.From != nil {
		from = *ar.Namespaces.From
	}
	switch from {
	case gatewayv1.NamespacesFromAll:
		return true
	case gatewayv1.NamespacesFromSelector:
		return t.namespaceSelected(ref.Namespace, ar.Namespaces.Selector)
	default:
		return ref.Namespace == gw.Namespace
	}
}

// namespaceSelected matches a namespace's labels against a listener's selector. A namespace not
// in the store matches only an empty selector (offline, manifests rarely carry Namespaces).
func (t *translation) namespaceSelected(ns string, sel *metav1.LabelSelector) bool {
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false
	}
	o, ok := t.snap.Get(store.Ref{Kind: store.KindNamespace, Name: ns})
	if !ok {
		return s.Empty()
	}
	return s.Matches(labels.Set(o.GetLabels()))
}

// anyHostIntersects reports whether one of a route's hostnames intersects a listener hostname
// (either may be a wildcard "*.example.com", matching one or more labels).
func anyHostIntersects(hs []gatewayv1.Hostname, listener string) bool {
	for _, h := range hs {
		if hostIntersection(string(h), listener) != "" {
			return true
		}
	}
	return false
}

// hostIntersection is the more specific of two intersecting hostnames, or "".
func hostIntersection(a, b string) string {
	switch {
	case a == b:
		return a
	case wildcardMatches(a, b):
		return b
	case wildcardMatches(b, a):
		return a
	}
	return ""
}

// wildcardMatches reports whether wildcard w ("*.example.com") matches host h (which may itself
// be a narrower wildcard).
func wildcardMatches(w, h string) bool {
	if len(w) < 2 || w[:2] != "*." {
		return false
	}
	suffix := w[1:]
	return len(h) > len(suffix) && h[len(h)-len(suffix):] == suffix
}

// refuse marks a route whose parents accepted it as not accepted after all: it uses a feature
// kongsync cannot translate (the spec's UnsupportedValue).
func (p *routePiece) refuse(msg string) {
	p.served = false
	for i := range p.parents {
		if p.parents[i].Accepted {
			p.parents[i].Accepted, p.parents[i].Reason, p.parents[i].Message = false, ReasonUnsupportedValue, msg
			p.parents[i].Listeners = nil
		}
	}
}

// parentPorts are the ports of the listeners of protocol that the route's parentRefs name
// (sectionName, when given), over every parent Gateway found, in parentRef and listener order:
// KIC's getGatewayListeningPorts, which neither checks the class nor allowedRoutes.
func (t *translation) parentPorts(ref store.Ref, parents []gatewayv1.ParentReference, protocol gatewayv1.ProtocolType) []int32 {
	var ports []int32
	t.parentListeners(ref, parents, func(l *gatewayv1.Listener) {
		if l.Protocol == protocol {
			ports = append(ports, int32(l.Port))
		}
	})
	return ports
}

// parentListeners calls f with every listener of the route's parent Gateways that its
// parentRefs select by sectionName (when given), in parentRef and listener order; parentRefs to
// Gateways not found are passed over. It returns false when one was not found.
func (t *translation) parentListeners(ref store.Ref, parents []gatewayv1.ParentReference, f func(*gatewayv1.Listener)) bool {
	all := true
	for i := range parents {
		pr := &parents[i]
		ns := ref.Namespace
		if pr.Namespace != nil && *pr.Namespace != "" {
			ns = string(*pr.Namespace)
		}
		if !t.reconciles(ns, string(pr.Name)) {
			continue
		}
		o, ok := t.snap.Get(store.Ref{Kind: store.KindGateway, Namespace: ns, Name: string(pr.Name)})
		if !ok {
			all = false
			continue
		}
		ls := o.(*gatewayv1.Gateway).Spec.Listeners
		for j := range ls {
			if pr.SectionName == nil || *pr.SectionName == ls[j].Name {
				f(&ls[j])
			}
		}
	}
	return all
}

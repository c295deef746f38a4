package translator

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

// The changes a world makes to Gateway API objects and Namespaces: GatewayClasses, Gateways,
// ReferenceGrants and Namespaces here, the routes in engine_changes_routes_test.go.

// Values the Gateway API mutations draw from, valid and invalid.
var (
	gwHostnames = []string{"web.example.com", "*.example.com", "api.example.com", "b.example.com", "grpc.example.com",
		"a.tls.example.com", "*.tls.example.com", "*.b.example.com", "other.test"}
	listenerNames = []string{"http", "https", "sel", "grpc", "tcp", "udp", "tls", "extra"}
	listenerPorts = []int32{80, 443, 8080, 8443, 9000, 9001, 9100, 9443}
	gwClassNames  = []string{"kong", "kong-alt", "other", "missing-class"}
	gwProtocols   = []gatewayv1.ProtocolType{gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TCPProtocolType,
		gatewayv1.UDPProtocolType, gatewayv1.TLSProtocolType, "Bogus"}
	routeKindNames = []string{"HTTPRoute", "GRPCRoute", "TCPRoute", "UDPRoute", "TLSRoute"}
)

// mutateGatewayKind edits an object of a Gateway API kind or a Namespace; false for another type.
func (w *world) mutateGatewayKind(o store.Object) (string, bool) {
	switch o := o.(type) {
	case *gatewayv1.GatewayClass:
		return w.mutateGatewayClass(o), true
	case *gatewayv1.Gateway:
		return w.mutateGateway(o), true
	case *gatewayv1.HTTPRoute:
		return w.mutateHTTPRoute(o), true
	case *gatewayv1.GRPCRoute:
		return w.mutateGRPCRoute(o), true
	case *gatewayv1.TCPRoute, *gatewayv1.UDPRoute, *gatewayv1.TLSRoute:
		return w.mutateL4Route(o), true
	case *gatewayv1.ReferenceGrant:
		return w.mutateReferenceGrant(o), true
	case *corev1.Namespace:
		return w.mutateNamespace(o), true
	}
	return "", false
}

// restoreLater sets back, 1 to 3 steps later, what an edit of ref changed (restore applies it
// to a copy of the then current version), unless ref is gone by then.
func (w *world) restoreLater(ref store.Ref, what string, restore func(c store.Object)) {
	w.later(1+w.r.IntN(3), what+" of "+ref.String()+" back", func() {
		cur, ok := w.get(ref)
		if !ok {
			return
		}
		c := cur.DeepCopyObject().(store.Object)
		restore(c)
		w.put(c)
		w.count(ref.Kind, "back")
	})
}

// gwHostname is a hostname for a listener or route: one of the Gateway API world's, or a host of
// the Ingresses (whose TLS claims a listener certificate may then meet).
func (w *world) gwHostname() string {
	if len(w.hosts) > 0 && w.r.IntN(5) == 0 {
		return pick(w.r, w.hosts)
	}
	return pick(w.r, gwHostnames)
}

// gwNamespace picks a namespace for a cross-namespace reference: one of the world's Gateway API
// namespaces, or now and then another one of the pool.
func (w *world) gwNamespace() string {
	if len(w.gwNS) == 0 || w.r.IntN(6) == 0 {
		return pick(w.r, w.namespaces)
	}
	return pick(w.r, w.gwNS)
}

func (w *world) mutateGatewayClass(o *gatewayv1.GatewayClass) string {
	ref := store.Ref{Kind: store.KindGatewayClass, Name: o.Name}
	old := o.Spec.ControllerName
	if w.r.IntN(3) == 0 {
		o.Spec.ControllerName = pick(w.r, []gatewayv1.GatewayController{DefaultGatewayControllerName,
			"example.com/other-controller", DefaultGatewayControllerName + "-x"})
	} else if old == DefaultGatewayControllerName {
		o.Spec.ControllerName = "example.com/other-controller"
	} else {
		o.Spec.ControllerName = DefaultGatewayControllerName
	}
	if w.r.IntN(2) == 0 {
		w.restoreLater(ref, "controllerName", func(c store.Object) { c.(*gatewayv1.GatewayClass).Spec.ControllerName = old })
	}
	return "controllerName " + string(o.Spec.ControllerName)
}

func (w *world) mutateGateway(o *gatewayv1.Gateway) string {
	ls := o.Spec.Listeners
	n := w.r.IntN(14)
	if len(ls) == 0 && n > 0 {
		n = 8
	}
	var l *gatewayv1.Listener
	var at string
	if len(ls) > 0 {
		i := w.r.IntN(len(ls))
		l, at = &ls[i], fmt.Sprintf("listeners[%d] (%s) ", i, ls[i].Name)
	}
	switch n {
	case 0:
		o.Spec.GatewayClassName = gatewayv1.ObjectName(pick(w.r, gwClassNames))
		return "gatewayClassName " + string(o.Spec.GatewayClassName)
	case 1, 2:
		return at + w.setListenerHostname(l)
	case 3:
		l.Port = pick(w.r, listenerPorts)
		return fmt.Sprintf("%sport %d", at, l.Port)
	case 4:
		l.Protocol = pick(w.r, gwProtocols)
		return at + "protocol " + string(l.Protocol)
	case 5, 6:
		return at + w.setAllowedRoutes(l)
	case 7:
		return at + w.setListenerTLS(o.Namespace, l)
	case 8:
		nl := listener(pick(w.r, listenerNames), pick(w.r, gwProtocols[:5]), pick(w.r, listenerPorts), "", nil, nil)
		what := w.setListenerHostname(&nl) + ", " + w.setAllowedRoutes(&nl)
		if nl.Protocol == gatewayv1.HTTPSProtocolType || w.r.IntN(4) == 0 {
			what += ", " + w.setListenerTLS(o.Namespace, &nl)
		}
		o.Spec.Listeners = append(o.Spec.Listeners, nl)
		return "listener " + string(nl.Name) + " added: " + what
	case 9:
		i := w.r.IntN(len(ls))
		o.Spec.Listeners = slices.Delete(ls, i, i+1)
		return fmt.Sprintf("listeners[%d] removed", i)
	case 10:
		l.Name = gatewayv1.SectionName(pick(w.r, listenerNames))
		return at + "renamed " + string(l.Name)
	case 11:
		slices.Reverse(ls)
		return "listeners reversed"
	case 12: // a listener edit (often refusing routes) undone a few steps later (re-admitting them)
		back := slices.Clone(ls)
		for i := range back {
			back[i] = *ls[i].DeepCopy()
		}
		what := at + w.setListenerHostname(l)
		if w.r.IntN(2) == 0 {
			what = at + w.setAllowedRoutes(l)
		}
		ref := store.Ref{Kind: store.KindGateway, Namespace: o.Namespace, Name: o.Name}
		w.restoreLater(ref, "listeners", func(c store.Object) { c.(*gatewayv1.Gateway).Spec.Listeners = back })
		return what
	}
	return at + w.setAllowedRoutes(l)
}

// setListenerHostname sets a listener's hostname, or removes it.
func (w *world) setListenerHostname(l *gatewayv1.Listener) string {
	if w.r.IntN(4) == 0 {
		l.Hostname = nil
		return "hostname removed"
	}
	l.Hostname = ptrOf(gatewayv1.Hostname(w.gwHostname()))
	return "hostname " + string(*l.Hostname)
}

// setAllowedRoutes sets which namespaces (Same, All, None, a Selector) and kinds a listener
// admits, or removes allowedRoutes (the same namespace, the protocol's kinds).
func (w *world) setAllowedRoutes(l *gatewayv1.Listener) string {
	n := w.r.IntN(8)
	if n == 0 {
		l.AllowedRoutes = nil
		return "allowedRoutes removed"
	}
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gatewayv1.AllowedRoutes{}
	}
	ar := l.AllowedRoutes
	switch {
	case n <= 3:
		from := pick(w.r, []gatewayv1.FromNamespaces{gatewayv1.NamespacesFromSame, gatewayv1.NamespacesFromAll,
			gatewayv1.NamespacesFromSelector, gatewayv1.NamespacesFromSelector, gatewayv1.NamespacesFromNone})
		ar.Namespaces = &gatewayv1.RouteNamespaces{From: &from}
		what := "allowedRoutes from " + string(from)
		if from == gatewayv1.NamespacesFromSelector || w.r.IntN(4) == 0 {
			what += " " + w.setSelector(ar.Namespaces)
		}
		return what
	case n == 4:
		from := gatewayv1.NamespacesFromSelector
		ar.Namespaces = &gatewayv1.RouteNamespaces{From: &from}
		return "allowedRoutes from Selector " + w.setSelector(ar.Namespaces)
	}
	kinds := pick(w.r, [][]gatewayv1.RouteGroupKind{nil, {{Kind: "HTTPRoute"}}, {{Kind: "HTTPRoute"}, {Kind: "GRPCRoute"}},
		{{Kind: "TCPRoute"}}, {{Kind: "UDPRoute"}}, {{Kind: "TLSRoute"}}, {{Group: ptrOf(gatewayv1.Group("example.com")), Kind: "HTTPRoute"}},
		{{Kind: "Bogus"}}, {{Group: ptrOf(gatewayv1.Group(store.GatewayGroup)), Kind: "GRPCRoute"}}})
	ar.Kinds = kinds
	return fmt.Sprintf("allowedRoutes kinds %v", kinds)
}

// setSelector sets a namespace selector on labels the world's Namespaces carry (team, shared):
// by labels, by expressions, empty (every namespace), none, or invalid.
func (w *world) setSelector(ns *gatewayv1.RouteNamespaces) string {
	sels := []*metav1.LabelSelector{
		{MatchLabels: map[string]string{"team": "a"}},
		{MatchLabels: map[string]string{"team": "b"}},
		{MatchLabels: map[string]string{"shared": "true"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "c"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "shared", Operator: metav1.LabelSelectorOpDoesNotExist}}},
		{},
		nil,
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Bogus"}}},
	}
	i := w.r.IntN(len(sels))
	ns.Selector = sels[i]
	return fmt.Sprintf("selector %d", i)
}

// setListenerTLS sets a listener's TLS: a certificateRef to a Secret of the Gateway's namespace
// (often one with a key pair) or of another one, two refs, a ref of another kind, passthrough,
// or none.
func (w *world) setListenerTLS(gwNS string, l *gatewayv1.Listener) string {
	switch w.r.IntN(9) {
	case 0:
		l.TLS = nil
		return "tls removed"
	case 1:
		l.TLS = &gatewayv1.ListenerTLSConfig{Mode: ptrOf(gatewayv1.TLSModePassthrough)}
		return "tls passthrough"
	case 2:
		l.TLS = terminate(certRef("", w.secretName(gwNS)), certRef("", w.secretName(gwNS)))
		return "tls two certificateRefs"
	case 3:
		r := certRef("", w.secretName(gwNS))
		if w.r.IntN(2) == 0 {
			r.Kind = ptrOf(gatewayv1.Kind("ConfigMap"))
		} else {
			r.Group = ptrOf(gatewayv1.Group("example.com"))
		}
		l.TLS = terminate(r)
		return "tls certificateRef of another kind"
	case 4, 5:
		ns := w.gwNamespace()
		l.TLS = terminate(certRef(ns, w.secretName(ns)))
		if w.r.IntN(3) == 0 {
			l.TLS.Mode = nil
		}
		return "tls certificateRef " + ns + "/" + string(l.TLS.CertificateRefs[0].Name)
	}
	l.TLS = terminate(certRef("", w.secretName(gwNS)))
	return "tls certificateRef " + string(l.TLS.CertificateRefs[0].Name)
}

// secretName is the name of a Secret of ns, mostly one that held a TLS key pair, maybe missing.
func (w *world) secretName(ns string) string {
	var tls []string
	for _, ref := range w.known[store.KindSecret] {
		if s, ok := w.last[ref].(*corev1.Secret); ok && ref.Namespace == ns && len(s.Data["tls.key"]) > 0 {
			tls = append(tls, ref.Name)
		}
	}
	if len(tls) > 0 && w.r.IntN(3) > 0 {
		return pick(w.r, tls)
	}
	return pick(w.r, w.names(store.KindSecret, ns))
}

func (w *world) mutateNamespace(o *corev1.Namespace) string {
	ref := store.Ref{Kind: store.KindNamespace, Name: o.Name}
	old := maps.Clone(o.Labels)
	var what string
	switch w.r.IntN(4) {
	case 0:
		o.Labels = nil
		what = "labels removed"
	case 1:
		if o.Labels["shared"] == "true" {
			delete(o.Labels, "shared")
			what = "shared label removed"
		} else {
			setLabel(&o.ObjectMeta, "shared", "true")
			what = "shared label"
		}
	default:
		v := pick(w.r, []string{"a", "b", "c"})
		setLabel(&o.ObjectMeta, "team", v)
		what = "team label " + v
	}
	if w.r.IntN(3) == 0 {
		w.restoreLater(ref, "labels", func(c store.Object) { c.SetLabels(maps.Clone(old)) })
	}
	return what
}

func (w *world) mutateReferenceGrant(o *gatewayv1.ReferenceGrant) string {
	from, to := o.Spec.From, o.Spec.To
	switch n := w.r.IntN(9); {
	case n == 0 && len(from) > 0:
		f := &from[w.r.IntN(len(from))]
		f.Kind = gatewayv1.Kind(pick(w.r, append(slices.Clone(routeKindNames), "Gateway")))
		return "from kind " + string(f.Kind)
	case n == 1 && len(from) > 0:
		f := &from[w.r.IntN(len(from))]
		f.Namespace = gatewayv1.Namespace(w.gwNamespace())
		return "from namespace " + string(f.Namespace)
	case n == 2:
		f := grantFromKind(pick(w.r, append(slices.Clone(routeKindNames), "Gateway")), w.gwNamespace())
		o.Spec.From = append(from, f)
		return fmt.Sprintf("from %s/%s added", f.Namespace, f.Kind)
	case n == 3 && len(from) > 0:
		f := &from[w.r.IntN(len(from))]
		f.Group = gatewayv1.Group(pick(w.r, []string{store.GatewayGroup, "", "example.com"}))
		return "from group " + string(f.Group)
	case n == 4 && len(to) > 0:
		t := &to[w.r.IntN(len(to))]
		t.Group, t.Kind = w.grantTarget()
		return "to " + string(t.Kind) + "." + string(t.Group)
	case n == 5 && len(to) > 0:
		t := &to[w.r.IntN(len(to))]
		if t.Name != nil && w.r.IntN(2) == 0 {
			t.Name = nil
			return "to name removed"
		}
		t.Name = ptrOf(gatewayv1.ObjectName(w.grantName(o.Namespace, t.Kind)))
		return "to name " + string(*t.Name)
	case n == 6 && len(from) > 1:
		i := w.r.IntN(len(from))
		o.Spec.From = slices.Delete(from, i, i+1)
		return fmt.Sprintf("from[%d] removed", i)
	case n == 7 && len(to) > 1:
		i := w.r.IntN(len(to))
		o.Spec.To = slices.Delete(to, i, i+1)
		return fmt.Sprintf("to[%d] removed", i)
	}
	t := gatewayv1.ReferenceGrantTo{}
	t.Group, t.Kind = w.grantTarget()
	if w.r.IntN(2) == 0 {
		t.Name = ptrOf(gatewayv1.ObjectName(w.grantName(o.Namespace, t.Kind)))
	}
	o.Spec.To = append(to, t)
	return "to " + string(t.Kind) + " added"
}

// grantTarget is a group and kind a ReferenceGrant opens: those kongsync reads, and others.
func (w *world) grantTarget() (gatewayv1.Group, gatewayv1.Kind) {
	gk := pick(w.r, [][2]string{{"", "Service"}, {"", "Secret"}, {"configuration.konghq.com", "KongPlugin"},
		{"", "KongPlugin"}, {"core", "Service"}, {"", "ConfigMap"}})
	return gatewayv1.Group(gk[0]), gatewayv1.Kind(gk[1])
}

// grantName is the name of an object of kind in ns (one of the kinds the world knows, else any).
func (w *world) grantName(ns string, kind gatewayv1.Kind) string {
	switch kind {
	case "Service", "Secret", "KongPlugin":
		return pick(w.r, w.names(store.Kind(kind), ns))
	}
	return "something"
}

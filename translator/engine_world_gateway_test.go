package translator

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// The Gateway API objects a random world starts with, built around the first two namespaces of
// its pool that have two Services with port 80, a TLS Secret and a KongPlugin (the workload's
// bench-0 and bench-1): GatewayClasses (two of ours, one of another controller), labelled
// Namespaces, a Gateway with a listener of every protocol (hostnames with wildcards, allowedRoutes
// Same, All and Selector, kinds, certificates of its namespace and, under a ReferenceGrant, of
// the other), a Gateway of our second class and one of the other controller's, HTTPRoutes with
// several rules and matches (path types, headers, methods, filters of every kind KIC translates,
// weighted and cross-namespace backends), a GRPCRoute, TCP, UDP and TLS routes, and the
// ReferenceGrants their cross-namespace references need.

// gwNamespace is what a namespace of the pool offers Gateway API objects.
type gwNamespace struct {
	name   string
	svcs   [2]string // two Services with a port 80
	tls    string    // a Secret with a TLS key pair
	plugin string    // a KongPlugin
}

// gatewayNamespaces finds the first two namespaces of the pool with what gwNamespace needs. The
// Services are ones without konghq.com/ annotations in their last version (Services that
// disagree on those cannot share a Kong service), so that the weighted rules translate at first.
func gatewayNamespaces(pool []store.Object) []gwNamespace {
	type acc struct {
		svcs        []string
		tls, plugin string
	}
	lastSvc := map[[2]string]*corev1.Service{}
	for _, o := range pool {
		if svc, ok := o.(*corev1.Service); ok {
			lastSvc[[2]string{svc.Namespace, svc.Name}] = svc
		}
	}
	byNS := map[string]*acc{}
	var order []string
	get := func(ns string) *acc {
		if a := byNS[ns]; a != nil {
			return a
		}
		byNS[ns] = &acc{}
		order = append(order, ns)
		return byNS[ns]
	}
	for _, o := range pool {
		switch o := o.(type) {
		case *corev1.Service:
			last := lastSvc[[2]string{o.Namespace, o.Name}]
			if last == o && servicePortByNumber(o, 80) != nil && o.Spec.Type != corev1.ServiceTypeExternalName &&
				!hasKeyPrefix(o.Annotations, annPrefix) {
				a := get(o.Namespace)
				a.svcs = append(a.svcs, o.Name)
			}
		case *corev1.Secret:
			if a := get(o.Namespace); a.tls == "" && len(o.Data["tls.crt"]) > 0 && len(o.Data["tls.key"]) > 0 {
				a.tls = o.Name
			}
		case *configurationv1.KongPlugin:
			if a := get(o.Namespace); a.plugin == "" {
				a.plugin = o.Name
			}
		}
	}
	var out []gwNamespace
	for _, ns := range order {
		if a := byNS[ns]; len(a.svcs) >= 2 && a.tls != "" && a.plugin != "" && len(out) < 2 {
			out = append(out, gwNamespace{name: ns, svcs: [2]string{a.svcs[0], a.svcs[1]}, tls: a.tls, plugin: a.plugin})
		}
	}
	return out
}

func ptrOf[T any](v T) *T { return &v }

// gatewayObjects are the Gateway API objects (and Namespaces) of a world built on the namespaces
// gatewayNamespaces found.
func gatewayObjects(nss []gwNamespace) []store.Object {
	if len(nss) < 2 {
		return nil
	}
	a, b := nss[0], nss[1]
	ours := gatewayv1.GatewayController(DefaultGatewayControllerName)
	out := []store.Object{
		gatewayClass("kong", ours), gatewayClass("kong-alt", ours), gatewayClass("other", "example.com/other-controller"),
		namespaceObject(a.name, map[string]string{"team": "a", "shared": "true"}),
		namespaceObject(b.name, map[string]string{"team": "b"}),
		namespaceObject("default", nil),
		mainGateway(a, b),
		gateway(b.name, "gw-b", "kong-alt",
			listener("web", gatewayv1.HTTPProtocolType, 80, "b.example.com", nil, nil),
			listener("tcp", gatewayv1.TCPProtocolType, 9100, "", nil, nil)),
		gateway(b.name, "foreign", "other", listener("http", gatewayv1.HTTPProtocolType, 80, "", allowFrom(gatewayv1.NamespacesFromAll), nil)),
	}
	out = append(out, httpRoutes(a, b)...)
	out = append(out, l4Routes(a, b)...)
	return append(out,
		referenceGrant(b.name, "routes-from-a", []gatewayv1.ReferenceGrantFrom{grantFromKind("HTTPRoute", a.name)},
			gatewayv1.ReferenceGrantTo{Kind: "Service"}),
		referenceGrant(a.name, "from-b", []gatewayv1.ReferenceGrantFrom{grantFromKind("HTTPRoute", b.name),
			grantFromKind("UDPRoute", b.name), grantFromKind("GRPCRoute", b.name)},
			gatewayv1.ReferenceGrantTo{Kind: "Service", Name: ptrOf(gatewayv1.ObjectName(a.svcs[0]))}),
		referenceGrant(b.name, "certs-for-a", []gatewayv1.ReferenceGrantFrom{grantFromKind("Gateway", a.name)},
			gatewayv1.ReferenceGrantTo{Kind: "Secret", Name: ptrOf(gatewayv1.ObjectName(b.tls))}),
		referenceGrant(b.name, "plugins-for-a", []gatewayv1.ReferenceGrantFrom{grantFromKind("HTTPRoute", a.name)},
			gatewayv1.ReferenceGrantTo{Group: "configuration.konghq.com", Kind: "KongPlugin"}),
	)
}

// mainGateway is a's Gateway of class kong, with a listener of every protocol.
func mainGateway(a, b gwNamespace) *gatewayv1.Gateway {
	all := allowFrom(gatewayv1.NamespacesFromAll)
	sel := allowFrom(gatewayv1.NamespacesFromSelector)
	sel.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
	sel.Kinds = []gatewayv1.RouteGroupKind{{Kind: "HTTPRoute"}}
	grpc := allowFrom(gatewayv1.NamespacesFromAll)
	grpc.Kinds = []gatewayv1.RouteGroupKind{{Group: ptrOf(gatewayv1.Group(store.GatewayGroup)), Kind: "GRPCRoute"}}
	return gateway(a.name, "gw", "kong",
		listener("http", gatewayv1.HTTPProtocolType, 80, "", all, nil),
		listener("https", gatewayv1.HTTPSProtocolType, 443, "*.example.com", nil, terminate(certRef("", a.tls))),
		listener("sel", gatewayv1.HTTPProtocolType, 8080, "api.example.com", sel, nil),
		listener("grpc", gatewayv1.HTTPSProtocolType, 8443, "grpc.example.com", grpc, terminate(certRef(b.name, b.tls))),
		listener("tcp", gatewayv1.TCPProtocolType, 9000, "", all, nil),
		listener("udp", gatewayv1.UDPProtocolType, 9001, "", allowFrom(gatewayv1.NamespacesFromAll), nil),
		listener("tls", gatewayv1.TLSProtocolType, 9443, "*.tls.example.com", allowFrom(gatewayv1.NamespacesFromAll),
			&gatewayv1.ListenerTLSConfig{Mode: ptrOf(gatewayv1.TLSModePassthrough)}),
	)
}

// httpRoutes are a's and b's HTTPRoutes and a's GRPCRoute.
func httpRoutes(a, b gwNamespace) []store.Object {
	web := httpRoute(a.name, "web", []gatewayv1.ParentReference{parentRef("", "gw", "")}, "web.example.com", "*.example.com")
	// Its second plugin is b's, under a ReferenceGrant; no backend is in another namespace (its
	// piece does not read the grants: only the plugin stage does).
	web.Annotations = map[string]string{annPlugins: a.plugin + "," + b.name + ":" + b.plugin, annStripPath: "true"}
	header := []gatewayv1.HTTPHeaderMatch{{Name: "x-env", Value: "prod"}}
	web.Spec.Rules = []gatewayv1.HTTPRouteRule{
		{Name: ptrOf(gatewayv1.SectionName("main")),
			Matches: []gatewayv1.HTTPRouteMatch{
				{Path: pathMatch(gatewayv1.PathMatchPathPrefix, "/web"), Headers: header, Method: ptrOf(gatewayv1.HTTPMethodGet)},
				{Path: pathMatch(gatewayv1.PathMatchPathPrefix, "/web2"), Headers: header, Method: ptrOf(gatewayv1.HTTPMethodGet)}},
			Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
				RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "x-a", Value: "1"}},
					Add: []gatewayv1.HTTPHeader{{Name: "x-b", Value: "2"}}, Remove: []string{"x-c"}}}},
			BackendRefs: httpBackends(backendRef("", a.svcs[0], 80, 70), backendRef("", a.svcs[1], 80, 30))},
		{Matches: []gatewayv1.HTTPRouteMatch{{Path: pathMatch(gatewayv1.PathMatchExact, "/login")}},
			Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterURLRewrite, URLRewrite: &gatewayv1.HTTPURLRewriteFilter{
				Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptrOf("/auth")}}}},
			BackendRefs: httpBackends(backendRef("", a.svcs[0], 80, -1)),
			Timeouts:    &gatewayv1.HTTPRouteTimeouts{BackendRequest: ptrOf(gatewayv1.Duration("5s"))}},
		{BackendRefs: httpBackends(backendRef("", a.svcs[0], 80, -1))},
		{Matches: []gatewayv1.HTTPRouteMatch{{Path: pathMatch(gatewayv1.PathMatchRegularExpression, "/re/[0-9]+")}},
			BackendRefs: httpBackends(backendRef("", a.svcs[0], 80, -1), backendRef("", a.svcs[1], 80, -1))},
	}
	api := httpRoute(b.name, "api", []gatewayv1.ParentReference{parentRef(a.name, "gw", "sel"), parentRef("", "gw-b", "")},
		"api.example.com", "b.example.com")
	api.Spec.Rules = []gatewayv1.HTTPRouteRule{
		{Matches: []gatewayv1.HTTPRouteMatch{{Path: pathMatch(gatewayv1.PathMatchPathPrefix, "/api")}},
			Filters:     []gatewayv1.HTTPRouteFilter{extensionRef(b.plugin)},
			BackendRefs: httpBackends(backendRef("", b.svcs[0], 80, 1), backendRef("", b.svcs[1], 80, 3))},
		{Matches: []gatewayv1.HTTPRouteMatch{{Path: pathMatch(gatewayv1.PathMatchPathPrefix, "/old")}},
			Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gatewayv1.HTTPRequestRedirectFilter{
				Scheme: ptrOf("https"), Hostname: ptrOf(gatewayv1.PreciseHostname("new.example.com")), StatusCode: ptrOf(301),
				Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.FullPathHTTPPathModifier, ReplaceFullPath: ptrOf("/new")}}}},
			BackendRefs: httpBackends(backendRef("", b.svcs[0], 80, -1))},
		{Matches: []gatewayv1.HTTPRouteMatch{{Method: ptrOf(gatewayv1.HTTPMethodPost)}},
			BackendRefs: httpBackends(backendRef(a.name, a.svcs[0], 80, -1))},
		{Matches: []gatewayv1.HTTPRouteMatch{{Path: pathMatch(gatewayv1.PathMatchPathPrefix, "/mixed")}},
			BackendRefs: httpBackends(backendRef("", b.svcs[0], 80, 10), backendRef(a.name, a.svcs[1], 80, 10))},
	}
	foreign := httpRoute(b.name, "foreign-route", []gatewayv1.ParentReference{parentRef("", "foreign", "")})
	foreign.Spec.Rules = []gatewayv1.HTTPRouteRule{{BackendRefs: httpBackends(backendRef("", b.svcs[0], 80, -1))}}
	grpc := &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: a.name, Name: "grpc"}}
	grpc.Spec.ParentRefs = []gatewayv1.ParentReference{parentRef("", "gw", "grpc")}
	grpc.Spec.Rules = []gatewayv1.GRPCRouteRule{
		{Name: ptrOf(gatewayv1.SectionName("echo")), Matches: []gatewayv1.GRPCRouteMatch{{
			Method:  &gatewayv1.GRPCMethodMatch{Service: ptrOf("echo.Echo"), Method: ptrOf("Ping")},
			Headers: []gatewayv1.GRPCHeaderMatch{{Name: "x-v", Value: "1"}}}},
			BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: backendRef("", a.svcs[0], 80, -1)}}},
		{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: backendRef("", a.svcs[1], 80, -1)}}},
	}
	return []store.Object{web, api, foreign, grpc}
}

// l4Routes are the TCP, UDP and TLS routes.
func l4Routes(a, b gwNamespace) []store.Object {
	tcpA := &gatewayv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: a.name, Name: "tcp"}}
	tcpA.Spec.ParentRefs = []gatewayv1.ParentReference{parentRef("", "gw", "tcp")}
	tcpA.Spec.Rules = []gatewayv1.TCPRouteRule{{BackendRefs: []gatewayv1.BackendRef{backendRef("", a.svcs[0], 80, 1),
		backendRef("", a.svcs[1], 80, 2)}}}
	tcpB := &gatewayv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: b.name, Name: "tcp"}}
	tcpB.Spec.ParentRefs = []gatewayv1.ParentReference{parentRef("", "gw-b", "")}
	tcpB.Spec.Rules = []gatewayv1.TCPRouteRule{{Name: ptrOf(gatewayv1.SectionName("main")),
		BackendRefs: []gatewayv1.BackendRef{backendRef("", b.svcs[0], 80, -1)}}}
	udp := &gatewayv1.UDPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: b.name, Name: "udp"}}
	udp.Spec.ParentRefs = []gatewayv1.ParentReference{parentRef(a.name, "gw", "udp")}
	udp.Spec.Rules = []gatewayv1.UDPRouteRule{{BackendRefs: []gatewayv1.BackendRef{backendRef("", b.svcs[1], 80, -1)}}}
	tls := &gatewayv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: a.name, Name: "tls"}}
	tls.Spec.ParentRefs = []gatewayv1.ParentReference{parentRef("", "gw", "tls")}
	tls.Spec.Hostnames = []gatewayv1.Hostname{"a.tls.example.com"}
	tls.Spec.Rules = []gatewayv1.TLSRouteRule{{BackendRefs: []gatewayv1.BackendRef{backendRef("", a.svcs[1], 80, -1)}}}
	return []store.Object{tcpA, tcpB, udp, tls}
}

func gatewayClass(name string, controller gatewayv1.GatewayController) *gatewayv1.GatewayClass {
	return &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: controller}}
}

func namespaceObject(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func gateway(ns, name, class string, ls ...gatewayv1.Listener) *gatewayv1.Gateway {
	return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(class), Listeners: ls}}
}

// listener is a listener; an empty host means none.
func listener(name string, proto gatewayv1.ProtocolType, port int32, host string, allowed *gatewayv1.AllowedRoutes,
	tls *gatewayv1.ListenerTLSConfig) gatewayv1.Listener {
	l := gatewayv1.Listener{Name: gatewayv1.SectionName(name), Protocol: proto, Port: port, AllowedRoutes: allowed, TLS: tls}
	if host != "" {
		l.Hostname = ptrOf(gatewayv1.Hostname(host))
	}
	return l
}

func allowFrom(from gatewayv1.FromNamespaces) *gatewayv1.AllowedRoutes {
	return &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &from}}
}

func terminate(refs ...gatewayv1.SecretObjectReference) *gatewayv1.ListenerTLSConfig {
	return &gatewayv1.ListenerTLSConfig{Mode: ptrOf(gatewayv1.TLSModeTerminate), CertificateRefs: refs}
}

// certRef is a certificateRef to a Secret; an empty ns means the Gateway's.
func certRef(ns, name string) gatewayv1.SecretObjectReference {
	r := gatewayv1.SecretObjectReference{Kind: ptrOf(gatewayv1.Kind("Secret")), Name: gatewayv1.ObjectName(name)}
	if ns != "" {
		r.Namespace = ptrOf(gatewayv1.Namespace(ns))
	}
	return r
}

func httpRoute(ns, name string, parents []gatewayv1.ParentReference, hostnames ...gatewayv1.Hostname) *gatewayv1.HTTPRoute {
	r := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	r.Spec.ParentRefs, r.Spec.Hostnames = parents, hostnames
	return r
}

// parentRef is a parentRef to a Gateway; empty ns and section mean none.
func parentRef(ns, name, section string) gatewayv1.ParentReference {
	p := gatewayv1.ParentReference{Name: gatewayv1.ObjectName(name)}
	if ns != "" {
		p.Namespace = ptrOf(gatewayv1.Namespace(ns))
	}
	if section != "" {
		p.SectionName = ptrOf(gatewayv1.SectionName(section))
	}
	return p
}

// backendRef is a backendRef to a Service; an empty ns means the route's, a port of 0 none, a
// negative weight none.
func backendRef(ns, name string, port, weight int32) gatewayv1.BackendRef {
	r := gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
		Kind: ptrOf(gatewayv1.Kind("Service")), Name: gatewayv1.ObjectName(name)}}
	if ns != "" {
		r.Namespace = ptrOf(gatewayv1.Namespace(ns))
	}
	if port != 0 {
		r.Port = ptrOf(port)
	}
	if weight >= 0 {
		r.Weight = ptrOf(weight)
	}
	return r
}

func httpBackends(refs ...gatewayv1.BackendRef) []gatewayv1.HTTPBackendRef {
	out := make([]gatewayv1.HTTPBackendRef, len(refs))
	for i := range refs {
		out[i].BackendRef = refs[i]
	}
	return out
}

func pathMatch(typ gatewayv1.PathMatchType, value string) *gatewayv1.HTTPPathMatch {
	return &gatewayv1.HTTPPathMatch{Type: &typ, Value: &value}
}

func extensionRef(plugin string) gatewayv1.HTTPRouteFilter {
	return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterExtensionRef, ExtensionRef: &gatewayv1.LocalObjectReference{
		Group: "configuration.konghq.com", Kind: "KongPlugin", Name: gatewayv1.ObjectName(plugin)}}
}

func grantFromKind(kind, ns string) gatewayv1.ReferenceGrantFrom {
	return gatewayv1.ReferenceGrantFrom{Group: store.GatewayGroup, Kind: gatewayv1.Kind(kind), Namespace: gatewayv1.Namespace(ns)}
}

func referenceGrant(ns, name string, from []gatewayv1.ReferenceGrantFrom, to ...gatewayv1.ReferenceGrantTo) *gatewayv1.ReferenceGrant {
	return &gatewayv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gatewayv1.ReferenceGrantSpec{From: from, To: to}}
}

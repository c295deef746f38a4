package workload

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayControllerName is the controllerName of the generated GatewayClass: KIC's default
// (--gateway-api-controller-name), which kongsync serves by default too.
const GatewayControllerName = "konghq.com/kic-gateway-controller"

// GatewayName names the generated GatewayClass and the one Gateway, in the first namespace,
// every generated HTTPRoute attaches to.
const GatewayName = "kong"

// gatewayUnmanaged is the annotation without which KIC leaves a GatewayClass of its controller
// alone (it serves only "unmanaged" classes); it keeps the same file usable with KIC.
const gatewayUnmanaged = "konghq.com/gatewayclass-unmanaged"

func (g *gen) gatewayClass() *gatewayv1.GatewayClass {
	meta := g.meta("GatewayClass", "", GatewayName, 0)
	meta.Annotations = map[string]string{gatewayUnmanaged: "true"}
	return &gatewayv1.GatewayClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GatewayClass"},
		ObjectMeta: meta,
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: GatewayControllerName},
	}
}

// gateway is the one Gateway: an HTTP listener on port 80 for any hostname, admitting routes
// from every namespace (the routes are spread over all of them).
func (g *gen) gateway() *gatewayv1.Gateway {
	all := gatewayv1.NamespacesFromAll
	return &gatewayv1.Gateway{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway"},
		ObjectMeta: g.meta("Gateway", g.ns(0), GatewayName, 0),
		Spec: gatewayv1.GatewaySpec{
			GatewayClassName: GatewayName,
			Listeners: []gatewayv1.Listener{{
				Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: ServicePort,
				AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}},
			}},
		},
	}
}

// routeName names HTTPRoute i, its Service and (with "-1") its EndpointSlice.
func (g *gen) routeName(i int) string { return g.name("route", i) }

func (g *gen) routeHost(i int) string { return g.routeName(i) + "." + g.ns(i) + ".example.test" }

// httpRoute is HTTPRoute i: its own hostname, one rule with one PathPrefix "/" match, and its own
// Service as the backend. Its endpoints follow the Ingresses' in the address plan. References
// carry the group, kind and weight an API server defaults, so that the file reads the same
// offline as applied.
func (g *gen) httpRoute(i int) *gatewayv1.HTTPRoute {
	ns, name := g.ns(i), g.routeName(i)
	gwGroup, gwKind := gatewayv1.Group(gatewayv1.GroupName), gatewayv1.Kind("Gateway")
	parent := gatewayv1.ParentReference{Group: &gwGroup, Kind: &gwKind, Name: GatewayName}
	if gwNS := g.ns(0); ns != gwNS {
		n := gatewayv1.Namespace(gwNS)
		parent.Namespace = &n
	}
	prefix, root, port := gatewayv1.PathMatchPathPrefix, "/", gatewayv1.PortNumber(ServicePort)
	core, svc, weight := gatewayv1.Group(""), gatewayv1.Kind("Service"), int32(1)
	return &gatewayv1.HTTPRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute"},
		ObjectMeta: g.meta("HTTPRoute", ns, name, i),
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(g.routeHost(i))},
			Rules: []gatewayv1.HTTPRouteRule{{
				Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &prefix, Value: &root}}},
				BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
					BackendObjectReference: gatewayv1.BackendObjectReference{
						Group: &core, Kind: &svc, Name: gatewayv1.ObjectName(name), Port: &port},
					Weight: &weight,
				}}},
			}},
		},
		// An empty list, so that the manifest holds no null (the type has no omitempty there).
		Status: gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{}}},
	}
}

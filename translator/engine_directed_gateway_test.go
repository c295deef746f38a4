package translator

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

// TestEngineDirectedGateway runs scripted changes at what decides the Gateway API routes from
// outside them: their Gateways' listeners, ReferenceGrants, their backends' EndpointSlices, the
// labels of Namespaces a Selector listener reads, and GatewayClass controllers. Each step's warm
// build must equal BuildOnce (bytes, hash, problems, Parents, Gateways); each also checks that
// the change did what it is there for (a route refused, admitted again, a target moved), so that
// a step that stopped reaching its case fails.
func TestEngineDirectedGateway(t *testing.T) {
	t.Run("listener-edits", directedListenerEdits)
	t.Run("reference-grants", directedReferenceGrants)
	t.Run("endpoints", directedGatewayEndpoints)
	t.Run("namespace-selector", directedNamespaceSelector)
	t.Run("gateway-class", directedGatewayClass)
}

// gatewayScript is a scripted store holding the random world's Gateway API objects over a small
// workload of two namespaces.
type gatewayScript struct {
	*scripted
	a, b gwNamespace
	objs map[store.Ref]store.Object // the initial objects
}

func newGatewayScript(t *testing.T) *gatewayScript {
	c := workload.Defaults(6)
	c.Namespaces, c.TLSSecrets, c.Plugins, c.SecretSize = 2, 2, 1, 64
	objs := workloadObjects(t, c)
	nss := gatewayNamespaces(objs)
	if len(nss) < 2 {
		t.Fatalf("the workload has no two namespaces for Gateway API objects: %v", nss)
	}
	objs = uniqueObjects(append(objs, gatewayObjects(nss)...))
	g := &gatewayScript{scripted: newScripted(t, objs), a: nss[0], b: nss[1], objs: map[store.Ref]store.Object{}}
	for _, o := range objs {
		ref, _ := store.RefOf(o)
		g.objs[ref] = o
	}
	return g
}

// cur is a copy of the stored object, to edit.
func (g *gatewayScript) cur(kind store.Kind, ns, name string) store.Object {
	g.t.Helper()
	o, ok := g.st.Snapshot().Get(store.Ref{Kind: kind, Namespace: ns, Name: name})
	if !ok {
		g.t.Fatalf("%s %s/%s is not in the store", kind, ns, name)
	}
	return o.DeepCopyObject().(store.Object)
}

func (g *gatewayScript) gateway(ns, name string) *gatewayv1.Gateway {
	return g.cur(store.KindGateway, ns, name).(*gatewayv1.Gateway)
}

// listenerOf returns the listener of gw named name.
func listenerOf(t *testing.T, gw *gatewayv1.Gateway, name string) *gatewayv1.Listener {
	t.Helper()
	for i := range gw.Spec.Listeners {
		if string(gw.Spec.Listeners[i].Name) == name {
			return &gw.Spec.Listeners[i]
		}
	}
	t.Fatalf("Gateway %s/%s has no listener %s", gw.Namespace, gw.Name, name)
	return nil
}

// wantParent checks how parentRef idx of a route was admitted.
func wantParent(t *testing.T, b Built, kind store.Kind, ns, name string, idx int, accepted bool, reason string) {
	t.Helper()
	ref := store.Ref{Kind: kind, Namespace: ns, Name: name}
	for _, p := range b.Parents {
		if p.Route == ref && p.Index == idx {
			if p.Accepted != accepted || (reason != "" && p.Reason != reason && p.ResolvedRefsReason != reason) {
				t.Fatalf("%s parentRefs[%d]: accepted %v (%s, resolved refs %s), want %v (%s)", ref, idx, p.Accepted,
					p.Reason, p.ResolvedRefsReason, accepted, reason)
			}
			return
		}
	}
	if accepted {
		t.Fatalf("%s parentRefs[%d]: no status, want accepted", ref, idx)
	}
}

// wantService checks whether the document has a Kong service of that name.
func wantService(t *testing.T, b Built, name string, want bool) {
	t.Helper()
	for _, s := range b.Document.Services {
		if *s.Name == name {
			if !want {
				t.Fatalf("Kong service %s is in the document", name)
			}
			return
		}
	}
	if want {
		t.Fatalf("Kong service %s is not in the document", name)
	}
}

// directedListenerEdits: listener hostnames, allowedRoutes, ports, names and the listener list
// change under routes, refusing them and admitting them again.
func directedListenerEdits(t *testing.T) {
	g := newGatewayScript(t)
	a, b := g.a.name, g.b.name
	gw := g.gateway(a, "gw")
	listenerOf(t, gw, "https").Hostname = ptrOf(gatewayv1.Hostname("*.other.test"))
	listenerOf(t, gw, "http").Hostname = ptrOf(gatewayv1.Hostname("*.other.test"))
	wantParent(t, g.upsert("no listener hostname matches web's", gw), store.KindHTTPRoute, a, "web", 0, false, ReasonNoMatchingListenerHost)
	wantParent(t, g.upsert("the listeners' hostnames back: web re-admitted", g.objs[gatewayRef(a, "gw")]),
		store.KindHTTPRoute, a, "web", 0, true, "")

	gw = g.gateway(a, "gw")
	listenerOf(t, gw, "sel").AllowedRoutes = allowFrom(gatewayv1.NamespacesFromSame)
	wantParent(t, g.upsert("sel admits its own namespace only", gw), store.KindHTTPRoute, b, "api", 0, false, ReasonNotAllowedByListeners)
	gw = g.gateway(a, "gw")
	listenerOf(t, gw, "sel").AllowedRoutes = allowFrom(gatewayv1.NamespacesFromAll)
	wantParent(t, g.upsert("sel admits every namespace", gw), store.KindHTTPRoute, b, "api", 0, true, "")
	gw = g.gateway(a, "gw")
	listenerOf(t, gw, "sel").AllowedRoutes.Kinds = []gatewayv1.RouteGroupKind{{Kind: "GRPCRoute"}}
	wantParent(t, g.upsert("sel admits GRPCRoutes only", gw), store.KindHTTPRoute, b, "api", 0, false, ReasonNotAllowedByListeners)

	gw = g.gateway(a, "gw")
	var kept []gatewayv1.Listener
	for _, l := range gw.Spec.Listeners {
		if l.Name != "tcp" {
			kept = append(kept, l)
		}
	}
	gw.Spec.Listeners = kept
	built := g.upsert("the tcp listener removed", gw)
	wantParent(t, built, store.KindTCPRoute, a, "tcp", 0, false, ReasonNoMatchingParent)
	wantService(t, built, "tcproute."+a+".tcp.0", false)
	gw = gw.DeepCopy()
	gw.Spec.Listeners = append(gw.Spec.Listeners, listener("tcp", gatewayv1.TCPProtocolType, 9999, "", allowFrom(gatewayv1.NamespacesFromAll), nil))
	built = g.upsert("the tcp listener back on another port", gw)
	wantParent(t, built, store.KindTCPRoute, a, "tcp", 0, true, "")
	wantService(t, built, "tcproute."+a+".tcp.0", true)

	gw = g.gateway(a, "gw")
	listenerOf(t, gw, "grpc").Name = "grpc-renamed"
	wantParent(t, g.upsert("the grpc listener renamed", gw), store.KindGRPCRoute, a, "grpc", 0, false, ReasonNoMatchingParent)
	wantParent(t, g.upsert("the Gateway as it was", g.objs[gatewayRef(a, "gw")]), store.KindGRPCRoute, a, "grpc", 0, true, "")
	g.delete("the Gateway deleted", gatewayRef(a, "gw"))
	wantParent(t, g.upsert("the Gateway re-created", g.objs[gatewayRef(a, "gw")]), store.KindTCPRoute, a, "tcp", 0, true, "")
}

func gatewayRef(ns, name string) store.Ref {
	return store.Ref{Kind: store.KindGateway, Namespace: ns, Name: name}
}

func grantRef(ns, name string) store.Ref {
	return store.Ref{Kind: store.KindReferenceGrant, Namespace: ns, Name: name}
}

// directedReferenceGrants: the grants that open a namespace's Services, Secrets and KongPlugins
// to routes and Gateways of another go, come back narrower or wider, and change what they admit.
func directedReferenceGrants(t *testing.T) {
	g := newGatewayScript(t)
	a, b := g.a.name, g.b.name
	g.delete("the grant opening a's Service to b's routes deleted", grantRef(a, "from-b"))
	wantParent(t, g.check("(again)"), store.KindHTTPRoute, b, "api", 1, true, ReasonRefNotPermitted)
	grant := g.objs[grantRef(a, "from-b")].DeepCopyObject().(*gatewayv1.ReferenceGrant)
	grant.Spec.To[0].Name = nil
	wantParent(t, g.upsert("the grant back for every Service of a", grant), store.KindHTTPRoute, b, "api", 1, true, ReasonResolvedRefs)
	grant = grant.DeepCopy()
	grant.Spec.From = grant.Spec.From[1:]
	wantParent(t, g.upsert("the grant no longer names HTTPRoutes", grant), store.KindHTTPRoute, b, "api", 1, true, ReasonRefNotPermitted)
	grant = grant.DeepCopy()
	grant.Spec.From = append(grant.Spec.From, grantFromKind("HTTPRoute", b))
	g.upsert("HTTPRoutes again", grant)

	built := g.delete("the grant opening b's certificate to a's Gateway deleted", grantRef(b, "certs-for-a"))
	wantListener(t, built, a, "gw", "grpc", ReasonRefNotPermitted)
	built = g.upsert("the certificate grant back", g.objs[grantRef(b, "certs-for-a")])
	wantListener(t, built, a, "gw", "grpc", ReasonResolvedRefs)

	// Without b/api, no served route reads the grants (web's backends are all in a): only the
	// plugin stage sees the plugin grant change.
	g.delete("b/api deleted", store.Ref{Kind: store.KindHTTPRoute, Namespace: b, Name: "api"})
	wantPluginProblem(t, g.check("(again)"), g.b.plugin, "already configured")
	wantPluginProblem(t, g.delete("the grant opening b's KongPlugins to a's HTTPRoutes deleted", grantRef(b, "plugins-for-a")),
		g.b.plugin, "no ReferenceGrant")
	grant = g.objs[grantRef(b, "plugins-for-a")].DeepCopyObject().(*gatewayv1.ReferenceGrant)
	grant.Spec.To[0].Name = ptrOf(gatewayv1.ObjectName("another-plugin"))
	g.upsert("the plugin grant back for another KongPlugin", grant)
	grant = grant.DeepCopy()
	grant.Spec.To[0].Name = ptrOf(gatewayv1.ObjectName(g.b.plugin))
	wantPluginProblem(t, g.upsert("the plugin grant for b's KongPlugin", grant), g.b.plugin, "already configured")
	g.upsert("a grant no route needs", referenceGrant(b, "unrelated", []gatewayv1.ReferenceGrantFrom{grantFromKind("TLSRoute", a)},
		gatewayv1.ReferenceGrantTo{Kind: "Secret"}))
}

// wantPluginProblem checks that a problem names KongPlugin plugin (of a's route web, named
// "namespace:name" in b) and says what.
func wantPluginProblem(t *testing.T, b Built, plugin, what string) {
	t.Helper()
	for _, p := range b.Problems {
		if s := p.String(); strings.Contains(s, plugin) && strings.Contains(s, what) {
			return
		}
	}
	t.Fatalf("no problem about KongPlugin %s saying %q:\n%s", plugin, what, problemsText(b.Problems))
}

// wantListener checks a listener's ResolvedRefs reason.
func wantListener(t *testing.T, b Built, ns, gw, listener, reason string) {
	t.Helper()
	for _, gs := range b.Gateways {
		if gs.Gateway != gatewayRef(ns, gw) {
			continue
		}
		for _, l := range gs.Listeners {
			if l.Name == listener {
				if l.ResolvedRefsReason != reason {
					t.Fatalf("Gateway %s/%s listener %s: ResolvedRefs %s (%s), want %s", ns, gw, listener, l.ResolvedRefsReason, l.Message, reason)
				}
				return
			}
		}
	}
	t.Fatalf("no status of Gateway %s/%s listener %s", ns, gw, listener)
}

// directedGatewayEndpoints: the EndpointSlice of a Service that HTTP, gRPC and TCP routes share
// changes addresses, readiness and Service, and goes.
func directedGatewayEndpoints(t *testing.T) {
	g := newGatewayScript(t)
	a := g.a.name
	var slice *discoveryv1.EndpointSlice
	for _, o := range g.objs {
		if es, ok := o.(*discoveryv1.EndpointSlice); ok && es.Namespace == a && es.Labels[discoveryv1.LabelServiceName] == g.a.svcs[0] {
			slice = es
		}
	}
	if slice == nil {
		t.Fatalf("no EndpointSlice of Service %s/%s", a, g.a.svcs[0])
	}
	ref := store.Ref{Kind: store.KindEndpointSlice, Namespace: a, Name: slice.Name}
	upstream := "httproute." + a + ".web.1"
	targets := func(b Built) []string {
		for _, u := range b.Document.Upstreams {
			if *u.Name == upstream {
				var out []string
				for _, x := range u.Targets {
					out = append(out, *x.Target)
				}
				return out
			}
		}
		t.Fatalf("no upstream %s", upstream)
		return nil
	}
	before := targets(g.check("initial"))
	es := slice.DeepCopy()
	es.Endpoints[0].Addresses = []string{"10.200.0.1"}
	if after := targets(g.upsert("an address changed", es)); len(after) != len(before) || after[len(after)-1] == before[len(before)-1] &&
		after[0] == before[0] {
		t.Fatalf("targets of %s: %v before, %v after an address changed", upstream, before, after)
	}
	es = es.DeepCopy()
	no := false
	es.Endpoints[1].Conditions.Ready = &no
	g.upsert("an endpoint not ready", es)
	es = es.DeepCopy()
	es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.200.0.2"}})
	g.upsert("an endpoint added", es)
	es = es.DeepCopy()
	es.Labels[discoveryv1.LabelServiceName] = g.a.svcs[1]
	g.upsert("the slice moved to the other Service", es)
	if got := targets(g.delete("the slice deleted", ref)); len(got) != 0 {
		t.Fatalf("targets of %s without an EndpointSlice: %v", upstream, got)
	}
	g.upsert("the slice back", slice.DeepCopy())
}

// directedNamespaceSelector: the labels of the namespace a Selector listener admits routes from
// change, the Namespace goes and comes back, and the selector changes.
func directedNamespaceSelector(t *testing.T) {
	g := newGatewayScript(t)
	a, b := g.a.name, g.b.name
	nsRef := store.Ref{Kind: store.KindNamespace, Name: b}
	wantParent(t, g.check("initial"), store.KindHTTPRoute, b, "api", 0, true, "")
	ns := g.cur(store.KindNamespace, "", b).(*corev1.Namespace)
	ns.Labels["team"] = "c"
	wantParent(t, g.upsert("b's team label changed", ns), store.KindHTTPRoute, b, "api", 0, false, ReasonNotAllowedByListeners)
	ns = ns.DeepCopy()
	ns.Labels["team"] = "b"
	wantParent(t, g.upsert("b's team label back", ns), store.KindHTTPRoute, b, "api", 0, true, "")
	wantParent(t, g.delete("b's Namespace deleted", nsRef), store.KindHTTPRoute, b, "api", 0, false, ReasonNotAllowedByListeners)
	gw := g.gateway(a, "gw")
	listenerOf(t, gw, "sel").AllowedRoutes.Namespaces.Selector = &metav1.LabelSelector{}
	wantParent(t, g.upsert("the selector empty: every namespace, known or not", gw), store.KindHTTPRoute, b, "api", 0, true, "")
	ns = ns.DeepCopy()
	ns.Labels = nil
	g.upsert("b's Namespace back without labels", ns)
	gw = gw.DeepCopy()
	listenerOf(t, gw, "sel").AllowedRoutes.Namespaces.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	wantParent(t, g.upsert("the selector: no team label", gw), store.KindHTTPRoute, b, "api", 0, true, "")
	ns = ns.DeepCopy()
	ns.Labels = map[string]string{"team": "b"}
	wantParent(t, g.upsert("b's team label again", ns), store.KindHTTPRoute, b, "api", 0, false, ReasonNotAllowedByListeners)
}

// directedGatewayClass: the controllerName of a Gateway's class changes to another controller's
// and back, the class goes and comes back, and the Gateway moves to another class of ours.
func directedGatewayClass(t *testing.T) {
	g := newGatewayScript(t)
	a := g.a.name
	classRef := store.Ref{Kind: store.KindGatewayClass, Name: "kong"}
	class := g.cur(store.KindGatewayClass, "", "kong").(*gatewayv1.GatewayClass)
	class.Spec.ControllerName = "example.com/other-controller"
	built := g.upsert("class kong is another controller's", class)
	wantParent(t, built, store.KindTCPRoute, a, "tcp", 0, false, "")
	wantService(t, built, "tcproute."+a+".tcp.0", false)
	class = class.DeepCopy()
	class.Spec.ControllerName = DefaultGatewayControllerName
	wantParent(t, g.upsert("class kong ours again", class), store.KindTCPRoute, a, "tcp", 0, true, "")
	g.delete("class kong deleted", classRef)
	built = g.upsert("class kong re-created", g.objs[classRef])
	wantService(t, built, "tcproute."+a+".tcp.0", true)
	gw := g.gateway(a, "gw")
	gw.Spec.GatewayClassName = "kong-alt"
	wantParent(t, g.upsert("the Gateway moved to class kong-alt", gw), store.KindTCPRoute, a, "tcp", 0, true, "")
	alt := g.cur(store.KindGatewayClass, "", "kong-alt").(*gatewayv1.GatewayClass)
	alt.Spec.ControllerName = DefaultGatewayControllerName + "-x"
	wantParent(t, g.upsert("class kong-alt another controller's", alt), store.KindTCPRoute, a, "tcp", 0, false, "")
}

// TestGatewayStageIndexBounded checks that the Gateway API stage's readers index (gwstage.go)
// stays the size of what the route pieces read while builds keep visiting only the pieces a
// change reaches: here an EndpointSlice of a Service that several routes use changes 100 times.
func TestGatewayStageIndexBounded(t *testing.T) {
	g := newGatewayScript(t)
	var slice *discoveryv1.EndpointSlice
	for _, o := range g.objs {
		if es, ok := o.(*discoveryv1.EndpointSlice); ok && es.Namespace == g.a.name && es.Labels[discoveryv1.LabelServiceName] == g.a.svcs[0] {
			slice = es
		}
	}
	if slice == nil {
		t.Fatalf("no EndpointSlice of Service %s/%s", g.a.name, g.a.svcs[0])
	}
	size := g.eng.memos.gw.readers.size
	var first int
	for i := range 100 {
		es := slice.DeepCopy()
		es.Endpoints[0].Addresses = []string{fmt.Sprintf("10.200.%d.%d", i/250, i%250+1)}
		g.upsert(fmt.Sprintf("address %d", i), es)
		if i == 0 {
			first = size()
		}
	}
	if last := size(); last > 2*first {
		t.Fatalf("the readers index grew from %d entries after the first change to %d after 100", first, last)
	}
}

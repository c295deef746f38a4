//go:build integration

package integration

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/status"
	"github.com/kongsync/kongsync/store"
)

func gwGet[T any](t *testing.T, dyn dynamic.Interface, kind, ns, name string) *T {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: store.GatewayGroup, Version: "v1", Resource: gatewayResources[kind]}
	ri := dynamic.ResourceInterface(dyn.Resource(gvr))
	if ns != "" {
		ri = dyn.Resource(gvr).Namespace(ns)
	}
	u, err := ri.Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// gwInstance is a kongsync instance writing status, with its Gateway API status passes and
// writes observable.
type gwInstance struct {
	*instance
	passes chan status.GatewayPass
	writes atomic.Int64
}

func startGWStatus(t *testing.T, name, ns string) *gwInstance {
	return startGWStatusWith(t, name, ns, newDouble(t), nil)
}

// startGWStatusWith starts a status-writing instance on kong, with mutate (if set) applied to
// its configuration.
func startGWStatusWith(t *testing.T, name, ns string, kong *kongdouble.Server, mutate func(*runner.Config)) *gwInstance {
	g := &gwInstance{passes: make(chan status.GatewayPass, 1024)}
	g.instance = startKongsync(t, name, ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		statusConfig(c)
		c.Hooks.GatewayStatusUpdated = func(store.Ref) { g.writes.Add(1) }
		c.Hooks.GatewayStatusPass = func(p status.GatewayPass) {
			select {
			case g.passes <- p:
			default: // nobody waits: drop it rather than block the writer
			}
		}
		if mutate != nil {
			mutate(c)
		}
	})
	return g
}

// waitPass waits for a pass after which cond holds (checked after every pass: each write comes
// back through the informers as a change, so a pass follows the last one).
func (g *gwInstance) waitPass(t *testing.T, what string, cond func(status.GatewayPass) bool) status.GatewayPass {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case p := <-g.passes:
			if cond(p) {
				return p
			}
		case <-deadline:
			t.Fatalf("%s: no pass after which %s", g.name, what)
		}
	}
}

func condStr(cs []metav1.Condition, typ string) string {
	c := meta.FindStatusCondition(cs, typ)
	if c == nil {
		return typ + " absent"
	}
	return c.Type + "=" + string(c.Status) + "/" + c.Reason
}

// routeVerdict is our status.parents entry of a route, compactly.
func routeVerdict(rt *gatewayv1.HTTPRoute) string {
	var out []string
	for _, p := range rt.Status.Parents {
		if p.ControllerName == "konghq.com/kic-gateway-controller" {
			out = append(out, condStr(p.Conditions, "Accepted")+" "+condStr(p.Conditions, "ResolvedRefs")+" "+
				condStr(p.Conditions, "Programmed"))
		}
	}
	return strings.Join(out, "; ")
}

// The leader writes GatewayClass, Gateway (listeners, addresses) and route statuses; a restart
// with nothing changed writes none.
func TestGatewayAPIStatus(t *testing.T) {
	installGatewayCRDs(t, "experimental")
	ns := newNamespace(t)
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	web := app{ns: ns, name: "web", host: "unused.example.com"}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), web.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	class := ns // cluster-scoped: unique per test
	docs := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ` + class + `}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: NAMESPACE}
spec:
  gatewayClassName: ` + class + `
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: grpc, port: 81, protocol: HTTP, allowedRoutes: {kinds: [{kind: GRPCRoute}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ok, namespace: NAMESPACE}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: refused, namespace: NAMESPACE}
spec:
  parentRefs: [{name: gw, sectionName: grpc}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: missing, namespace: NAMESPACE}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: nope, port: 80}]}]`
	for _, doc := range strings.Split(docs, "\n---\n") {
		createYAML(t, strings.ReplaceAll(doc, "NAMESPACE", ns))
	}

	start := time.Now()
	a := startGWStatus(t, "gw-a", ns)
	expectLeading(t, a.instance, true)
	// Programmed once the configuration holding the route is in Kong (KIC's
	// ConfiguredInGateway), TranslationError for the one whose backend is missing, Unknown where
	// the parent refused the route; ResolvedRefs for the refused route too.
	wantRoutes := map[string]string{
		"ok":      "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Programmed=True/ConfiguredInGateway",
		"refused": "Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs Programmed=Unknown/Unknown",
		"missing": "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound Programmed=False/TranslationError",
	}
	routesDone := func(status.GatewayPass) bool {
		for name, want := range wantRoutes {
			if routeVerdict(gwGet[gatewayv1.HTTPRoute](t, dyn, "HTTPRoute", ns, name)) != want {
				return false
			}
		}
		return true
	}
	a.waitPass(t, "every route has its verdict", routesDone)
	t.Logf("statuses written %s after start (%d writes)", time.Since(start).Round(time.Millisecond), a.writes.Load())
	for name, want := range wantRoutes {
		rt := gwGet[gatewayv1.HTTPRoute](t, dyn, "HTTPRoute", ns, name)
		if got := routeVerdict(rt); got != want {
			t.Errorf("HTTPRoute %s: %s, want %s", name, got, want)
		}
		ref := rt.Status.Parents[0].ParentRef
		if ref.Namespace == nil || string(*ref.Namespace) != ns || *ref.Kind != "Gateway" {
			t.Errorf("HTTPRoute %s parentRef = %+v: want the namespace set", name, ref)
		}
	}
	gc := gwGet[gatewayv1.GatewayClass](t, dyn, "GatewayClass", "", class)
	if got := condStr(gc.Status.Conditions, "Accepted"); got != "Accepted=True/Accepted" {
		t.Errorf("GatewayClass: %s", got)
	}
	gw := gwGet[gatewayv1.Gateway](t, dyn, "Gateway", ns, "gw")
	if got := condStr(gw.Status.Conditions, "Accepted") + " " + condStr(gw.Status.Conditions, "Programmed"); got != "Accepted=True/Accepted Programmed=True/Programmed" {
		t.Errorf("Gateway: %s", got)
	}
	if len(gw.Status.Addresses) != 2 || gw.Status.Addresses[0].Value != "127.0.0.2" || gw.Status.Addresses[1].Value != "kong.example.net" {
		t.Errorf("Gateway addresses = %+v", gw.Status.Addresses)
	}
	if ls := gw.Status.Listeners; len(ls) != 2 || ls[0].AttachedRoutes != 2 || ls[1].AttachedRoutes != 0 ||
		len(ls[1].SupportedKinds) != 1 || ls[1].SupportedKinds[0].Kind != "GRPCRoute" ||
		condStr(ls[0].Conditions, "Programmed") != "Programmed=True/Programmed" {
		t.Errorf("listeners = %+v: want http with 2 routes (ok, missing), grpc with none", ls)
	}

	// Let the writes settle: a pass with nothing to write and nothing in flight.
	a.waitPass(t, "nothing is left to write", func(p status.GatewayPass) bool { return p.Writes+p.InFlight+p.Failed == 0 })
	versions := func() map[string]string {
		m := map[string]string{"class": gwGet[gatewayv1.GatewayClass](t, dyn, "GatewayClass", "", class).ResourceVersion,
			"gw": gwGet[gatewayv1.Gateway](t, dyn, "Gateway", ns, "gw").ResourceVersion}
		for name := range wantRoutes {
			m[name] = gwGet[gatewayv1.HTTPRoute](t, dyn, "HTTPRoute", ns, name).ResourceVersion
		}
		return m
	}
	before := versions()
	// Each object once; the two accepted routes once more if their first write (Programmed
	// Unknown) came before Kong held the configuration.
	if n := a.writes.Load(); n < 5 || n > 7 {
		t.Errorf("%d status writes for 5 objects: want each written once, ok and missing at most twice", n)
	}

	a.stop()
	b := startGWStatus(t, "gw-b", ns)
	expectLeading(t, b.instance, true)
	// Its first pass over all five objects (the Gateway API informers may sync after the others).
	p := b.waitPass(t, "the restarted instance checked every object", func(p status.GatewayPass) bool { return p.Checked == 5 })
	if p.Writes != 0 || p.Failed != 0 || b.writes.Load() != 0 {
		t.Errorf("restart with unchanged state: first pass %+v, %d writes; want none", p, b.writes.Load())
	}
	if after := versions(); !equalMaps(before, after) {
		t.Errorf("resourceVersions changed across the restart: %v → %v", before, after)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Gateway listeners are checked against the ports Kong listens on, through the publish
// Service's ports and targetPorts (KIC's rule): a listener Kong does not serve is not Accepted
// (PortUnavailable, or UnsupportedProtocol without any Kong listen of its protocol), and
// listeners in conflict are Conflicted; once Kong restarts listening on the missing port, the
// listener is Accepted.
func TestGatewayListenerPorts(t *testing.T) {
	installGatewayCRDs(t, "experimental")
	ns := newNamespace(t)
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	class := ns
	proxy := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "proxy", Namespace: ns}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Name: "proxy", Port: 80, TargetPort: intstr.FromInt32(8000)},
		{Name: "proxy-tls", Port: 443, TargetPort: intstr.FromInt32(8443)},
		{Name: "stream-tls", Port: 9443, TargetPort: intstr.FromInt32(9443)},
	}}}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), proxy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	docs := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ` + class + `}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: NAMESPACE}
spec:
  gatewayClassName: ` + class + `
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: other-port, port: 8080, protocol: HTTP}
  - {name: clash, port: 8080, protocol: TCP}
  - {name: tls, port: 9443, protocol: TLS, tls: {mode: Passthrough}}
  - {name: dup-1, port: 443, protocol: HTTPS, hostname: dup.example.com, tls: {certificateRefs: [{name: cert}]}}
  - {name: dup-2, port: 443, protocol: TLS, hostname: dup.example.com, tls: {mode: Passthrough}}`
	for _, doc := range strings.Split(docs, "\n---\n") {
		createYAML(t, strings.ReplaceAll(doc, "NAMESPACE", ns))
	}
	kong := newDouble(t)
	g := startGWStatusWith(t, "listeners", ns, kong, func(c *runner.Config) {
		c.PublishService, c.PublishStatusAddress = ns+"/proxy", nil
	})
	listeners := func() map[string]string {
		out := map[string]string{}
		for _, l := range gwGet[gatewayv1.Gateway](t, dyn, "Gateway", ns, "gw").Status.Listeners {
			out[string(l.Name)] = condStr(l.Conditions, "Accepted") + " " + condStr(l.Conditions, "Conflicted") + " " +
				condStr(l.Conditions, "Programmed")
		}
		return out
	}
	// The API server refuses two listeners of one port, protocol and hostname, but not HTTP and
	// TCP on one port (ProtocolConflict), nor HTTPS and TLS with one hostname (HostnameConflict).
	want := map[string]string{
		"http":       "Accepted=True/Accepted Conflicted=False/NoConflicts Programmed=True/Programmed",
		"other-port": "Accepted=False/PortUnavailable Conflicted=True/ProtocolConflict Programmed=False/Invalid",
		"clash":      "Accepted=False/PortUnavailable Conflicted=True/ProtocolConflict Programmed=False/Invalid",
		"tls":        "Accepted=False/UnsupportedProtocol Conflicted=False/NoConflicts Programmed=False/Invalid",
		"dup-1":      "Accepted=True/Accepted Conflicted=True/HostnameConflict Programmed=False/Invalid",
		"dup-2":      "Accepted=False/UnsupportedProtocol Conflicted=True/HostnameConflict Programmed=False/Invalid",
	}
	g.waitPass(t, "the listeners checked against Kong's", func(status.GatewayPass) bool { return equalMaps(listeners(), want) })
	gw := gwGet[gatewayv1.Gateway](t, dyn, "Gateway", ns, "gw")
	if got := condStr(gw.Status.Conditions, "Accepted"); got != "Accepted=True/ListenersNotValid" {
		t.Errorf("Gateway: %s", got)
	}
	if len(gw.Status.Addresses) == 0 || gw.Status.Addresses[0].Value == "" {
		t.Errorf("Gateway addresses from the publish Service: %+v", gw.Status.Addresses)
	}

	// Kong restarted with a TLS stream listener on 9443: the tls listener is served; 9443 was
	// the only TCP port (a Service port without a Kong listener counts as its own protocol), so
	// clash now has no Kong listen of its protocol.
	kong.SetListens(append(slices.Clone(kongdouble.DefaultListens), kongdouble.Listen{Port: 9443, Stream: true, SSL: true}))
	kong.Restart()
	want["tls"] = "Accepted=True/Accepted Conflicted=False/NoConflicts Programmed=True/Programmed"
	want["dup-2"] = "Accepted=False/PortUnavailable Conflicted=True/HostnameConflict Programmed=False/Invalid"
	want["clash"] = "Accepted=False/UnsupportedProtocol Conflicted=True/ProtocolConflict Programmed=False/Invalid"
	g.waitPass(t, "the tls listener served", func(status.GatewayPass) bool { return equalMaps(listeners(), want) })
}

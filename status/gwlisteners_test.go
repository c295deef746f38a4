package status

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

func TestListenerConflicts(t *testing.T) {
	l := func(proto gatewayv1.ProtocolType, port int32, host string) gatewayv1.Listener {
		out := gatewayv1.Listener{Protocol: proto, Port: gatewayv1.PortNumber(port)}
		if host != "" {
			h := gatewayv1.Hostname(host)
			out.Hostname = &h
		}
		return out
	}
	const (
		http, https, tls, tcp, udp = gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType,
			gatewayv1.TCPProtocolType, gatewayv1.UDPProtocolType
		proto, host = "ProtocolConflict", "HostnameConflict"
	)
	for _, tc := range []struct {
		name string
		ls   []gatewayv1.Listener
		want []string
	}{
		{"HTTP listeners on one port, other hostnames", []gatewayv1.Listener{l(http, 80, "a"), l(http, 80, "b"), l(http, 80, "")}, []string{"", "", ""}},
		{"one port and hostname twice: both", []gatewayv1.Listener{l(http, 80, "a"), l(http, 80, "b"), l(http, 80, "a")}, []string{host, "", host}},
		{"two without hostname", []gatewayv1.Listener{l(http, 80, ""), l(http, 80, "")}, []string{host, host}},
		{"HTTP and TCP on one port: every listener on it", []gatewayv1.Listener{l(http, 80, "a"), l(tcp, 80, ""), l(http, 80, "b"), l(http, 81, "")},
			[]string{proto, proto, proto, ""}},
		{"HTTPS and TLS share a port", []gatewayv1.Listener{l(https, 443, "a"), l(tls, 443, "b")}, []string{"", ""}},
		{"HTTPS and TLS with one hostname", []gatewayv1.Listener{l(https, 443, "a"), l(tls, 443, "a")}, []string{host, host}},
		{"HTTP after HTTPS", []gatewayv1.Listener{l(https, 443, "a"), l(http, 443, "b")}, []string{proto, proto}},
		{"TCP never shares", []gatewayv1.Listener{l(tcp, 9000, ""), l(tcp, 9000, "")}, []string{proto, proto}},
		{"UDP then TCP", []gatewayv1.Listener{l(udp, 9000, ""), l(tcp, 9000, "")}, []string{proto, proto}},
		{"TCP and UDP on other ports", []gatewayv1.Listener{l(udp, 9000, ""), l(tcp, 9001, "")}, []string{"", ""}},
	} {
		if got := listenerConflicts(tc.ls); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// proxyService is a publish Service as Kong's chart makes it, with a stream port and a UDP one.
func proxyService() *corev1.Service {
	port := func(name string, port, target int32, proto corev1.Protocol) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: port, TargetPort: intstr.FromInt32(target), Protocol: proto}
	}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		port("proxy", 80, 8000, corev1.ProtocolTCP), port("proxy-tls", 443, 8443, corev1.ProtocolTCP),
		port("stream", 9000, 9000, corev1.ProtocolTCP), port("stream-tls", 9443, 9443, corev1.ProtocolTCP),
		port("dns", 53, 9999, corev1.ProtocolUDP),
	}}}
	named := corev1.ServicePort{Name: "named", Port: 8080, TargetPort: intstr.FromString("proxy"), Protocol: corev1.ProtocolTCP}
	svc.Spec.Ports = append(svc.Spec.Ports, named, corev1.ServicePort{Name: "defaulted", Port: 8000})
	return svc
}

func TestListensOf(t *testing.T) {
	kong := []kongsync.KongListener{{Port: 8000}, {Port: 8443, SSL: true}, {Port: 9000, Stream: true},
		{Port: 9443, Stream: true, SSL: true}, {Port: 9999, Stream: true, UDP: true}}
	got := listensOf(proxyService(), kong)
	want := kongListens{
		gatewayv1.HTTPProtocolType:  {80: true, 8000: true}, // 8000: no targetPort, the port itself
		gatewayv1.HTTPSProtocolType: {443: true},
		gatewayv1.TCPProtocolType:   {9000: true, 8080: true}, // a named targetPort matches no Kong port: the Service's TCP
		gatewayv1.TLSProtocolType:   {9443: true},
		gatewayv1.UDPProtocolType:   {53: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	l := func(proto gatewayv1.ProtocolType, port int32) *gatewayv1.Listener {
		return &gatewayv1.Listener{Protocol: proto, Port: gatewayv1.PortNumber(port)}
	}
	for _, tc := range []struct {
		k      kongListens
		l      *gatewayv1.Listener
		ok     bool
		reason string
		msg    string
	}{
		{got, l(gatewayv1.HTTPProtocolType, 80), true, "Accepted", ""},
		{got, l(gatewayv1.HTTPProtocolType, 81), false, "PortUnavailable", msgPortUnavailable},
		{got, l(gatewayv1.HTTPSProtocolType, 80), false, "PortUnavailable", msgPortUnavailable},
		{listensOf(proxyService(), kong[:2]), l(gatewayv1.TLSProtocolType, 9443), false, "UnsupportedProtocol", msgUnsupportedProtocol},
		{nil, l(gatewayv1.UDPProtocolType, 1), true, "Accepted", ""}, // not known: not checked
	} {
		ok, reason, msg := tc.k.accepted(tc.l)
		if ok != tc.ok || reason != tc.reason || msg != tc.msg {
			t.Errorf("%s %d: got (%v, %s, %q), want (%v, %s, %q)", tc.l.Protocol, tc.l.Port, ok, reason, msg, tc.ok, tc.reason, tc.msg)
		}
	}
}

func TestListenerConditions(t *testing.T) {
	good := translator.ListenerStatus{Name: "l", ResolvedRefs: true, ResolvedRefsReason: "ResolvedRefs"}
	badRefs := translator.ListenerStatus{Name: "l", ResolvedRefsReason: "InvalidCertificateRef", Message: "no Secret"}
	summary := func(ls translator.ListenerStatus, accepted bool, reason, msg, conflict string) string {
		var parts []string
		for _, c := range listenerConditions(ls, accepted, reason, msg, conflict, 3) {
			parts = append(parts, condOf([]metav1.Condition{c}, c.Type))
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"good", summary(good, true, "Accepted", "", ""),
			"Accepted=True/Accepted@3 Conflicted=False/NoConflicts@3 Programmed=True/Programmed@3 ResolvedRefs=True/ResolvedRefs@3"},
		{"port unavailable", summary(good, false, "PortUnavailable", msgPortUnavailable, ""),
			"Accepted=False/PortUnavailable@3 Conflicted=False/NoConflicts@3 Programmed=False/Invalid@3 ResolvedRefs=True/ResolvedRefs@3"},
		{"conflicted", summary(good, true, "Accepted", "", "HostnameConflict"),
			"Accepted=True/Accepted@3 Conflicted=True/HostnameConflict@3 Programmed=False/Invalid@3 ResolvedRefs=True/ResolvedRefs@3"},
		{"refs", summary(badRefs, true, "Accepted", "", ""),
			"Accepted=True/Accepted@3 Conflicted=False/NoConflicts@3 Programmed=False/Invalid@3 ResolvedRefs=False/InvalidCertificateRef@3"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestGatewayAccepted(t *testing.T) {
	for _, tc := range []struct {
		invalid []string
		n       int
		want    string
		msg     string
	}{
		{nil, 2, "Accepted=True/Accepted@1", gatewayAcceptedMessage},
		{[]string{"b", "a"}, 3, "Accepted=True/ListenersNotValid@1", "listeners not accepted or in conflict (see their conditions): a, b"},
		{[]string{"a", "b"}, 2, "Accepted=False/ListenersNotValid@1", "listeners not accepted or in conflict (see their conditions): a, b"},
	} {
		c := gatewayAccepted(tc.invalid, tc.n, 1)
		if got := condOf([]metav1.Condition{c}, c.Type); got != tc.want || c.Message != tc.msg {
			t.Errorf("%v of %d: %s %q, want %s %q", tc.invalid, tc.n, got, c.Message, tc.want, tc.msg)
		}
	}
}

// listenersManifests: a Gateway whose listeners Kong serves in part, with a hostname conflict,
// and the publish Service Kong is reached through.
const listenersManifests = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kong}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: v1
kind: Service
metadata: {name: proxy, namespace: kong}
spec:
  clusterIP: 10.0.0.10
  clusterIPs: [10.0.0.10]
  ports:
  - {name: proxy, port: 80, targetPort: 8000}
  - {name: proxy-tls, port: 443, targetPort: 8443}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: kong
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: other-port, port: 8080, protocol: HTTP}
  - {name: udp, port: 53, protocol: UDP}
  - {name: a1, port: 443, protocol: HTTPS, hostname: a.example.com, tls: {mode: Passthrough}}
  - {name: a2, port: 443, protocol: TLS, hostname: a.example.com, tls: {mode: Passthrough}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: none, namespace: default}
spec:
  gatewayClassName: kong
  listeners: [{name: http, port: 8080, protocol: HTTP}]
`

// Gateway listeners are checked against the ports Kong listens on (through the publish
// Service) and against each other, once Kong's listeners are known.
func TestGatewayListenerStatus(t *testing.T) {
	r := newGWRig(t, listenersManifests)
	var known bool
	opts := r.w.opts
	opts.StaticAddresses, opts.PublishService = nil, "kong/proxy"
	mapper, clock := r.w.mapper, r.w.now
	r.w = NewGatewayWriter(r.w.client, r.dyn, mapper, r.w.log, opts)
	r.w.now = clock
	r.w.KongListeners = func() ([]kongsync.KongListener, bool) {
		return []kongsync.KongListener{{Port: 8000}, {Port: 8443, SSL: true}}, known
	}

	listeners := func(gw string) map[string]string {
		out := map[string]string{}
		for _, l := range r.gateway("default", gw).Status.Listeners {
			out[string(l.Name)] = condOf(l.Conditions, "Accepted") + " " + condOf(l.Conditions, "Conflicted") + " " +
				condOf(l.Conditions, "Programmed")
		}
		return out
	}
	// Before any Kong answered GET /: ports are not checked.
	r.pass()
	if got := listeners("gw")["other-port"]; got != "Accepted=True/Accepted@1 Conflicted=False/NoConflicts@1 Programmed=True/Programmed@1" {
		t.Errorf("other-port before Kong's listeners are known: %s", got)
	}
	if gw := r.gateway("default", "gw"); len(gw.Status.Addresses) != 1 || gw.Status.Addresses[0].Value != "10.0.0.10" {
		t.Errorf("addresses from the publish Service: %+v", gw.Status.Addresses)
	}
	r.informers()
	known = true
	r.pass()
	want := map[string]string{
		"http":       "Accepted=True/Accepted@1 Conflicted=False/NoConflicts@1 Programmed=True/Programmed@1",
		"other-port": "Accepted=False/PortUnavailable@1 Conflicted=False/NoConflicts@1 Programmed=False/Invalid@1",
		"udp":        "Accepted=False/UnsupportedProtocol@1 Conflicted=False/NoConflicts@1 Programmed=False/Invalid@1",
		"a1":         "Accepted=True/Accepted@1 Conflicted=True/HostnameConflict@1 Programmed=False/Invalid@1",
		"a2":         "Accepted=False/UnsupportedProtocol@1 Conflicted=True/HostnameConflict@1 Programmed=False/Invalid@1",
	}
	if got := listeners("gw"); !reflect.DeepEqual(got, want) {
		t.Errorf("listeners:\n got %v\nwant %v", got, want)
	}
	gw := r.gateway("default", "gw")
	if got := condOf(gw.Status.Conditions, "Accepted") + " " + condOf(gw.Status.Conditions, "Programmed"); got != "Accepted=True/ListenersNotValid@1 Programmed=True/Programmed@1" {
		t.Errorf("Gateway gw: %s", got)
	}
	none := r.gateway("default", "none")
	if got := condOf(none.Status.Conditions, "Accepted"); got != "Accepted=False/ListenersNotValid@1" {
		t.Errorf("Gateway none (no listener Kong serves): %s", got)
	}
	r.informers()
	if p, _ := r.pass(); p.Writes != 0 {
		t.Errorf("unchanged pass wrote %v", r.writes)
	}
}

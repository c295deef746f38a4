//go:build integration

package integration

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"testing"
	"time"
)

// The objects the hostile tenant's changes stand on, created once at setup: the victim's (the
// first namespace's) and the tenant's own backends. The random world never writes them.

// victimObjects hold the global names the tenant reuses: a CA certificate Secret a Service
// trusts (with an Ingress, so that the Service is a Kong service), and a consumer with a
// username, a custom_id, a key-auth key and a basic-auth username.
func (w *world) victimObjects() []map[string]any {
	ns := w.evil.victimNS
	ca := w.meta("Secret", "", "v1", ns, "victim-ca")
	setLabel(ca, "konghq.com/ca-cert", "true")
	ca["stringData"] = map[string]any{"id": w.evil.caID, "cert": string(w.evil.victimCA)}
	svc := tlsService(w.meta("Service", "", "v1", ns, "victim"), "victim-ca")
	eps := endpointsOf(w.meta("EndpointSlice", "discovery.k8s.io", "v1", ns, "victim-a"), "victim", "https", 8443, "10.98.0.1")
	ing := w.meta("Ingress", "networking.k8s.io", "v1", ns, "victim")
	ing["spec"] = map[string]any{"ingressClassName": w.class, "rules": []any{map[string]any{
		"host": fmt.Sprintf("victim.%s.example.com", w.prefix),
		"http": map[string]any{"paths": []any{pathTo("/", "Prefix", "victim", 443)}}}}}
	key := w.meta("Secret", "", "v1", ns, "victim-key")
	setLabel(key, "konghq.com/credential", "key-auth")
	key["stringData"] = map[string]any{"key": victimKey}
	basic := w.meta("Secret", "", "v1", ns, "victim-basic")
	setLabel(basic, "konghq.com/credential", "basic-auth")
	basic["stringData"] = map[string]any{"username": victimBasic, "password": "pw"}
	cons := w.meta("KongConsumer", "configuration.konghq.com", "v1", ns, "victim")
	setAnn(cons, "kubernetes.io/ingress.class", w.class)
	cons["username"], cons["custom_id"] = victimUser, victimCID
	cons["credentials"] = []any{"victim-key", "victim-basic"}
	return []map[string]any{ca, svc, eps, ing, key, basic, cons}
}

// hostileBase are the tenant's Services app and app2 with an endpoint each, and its Gateway gw
// (of the world's GatewayClass, which the random world deletes now and then).
func (w *world) hostileBase() []map[string]any {
	var out []map[string]any
	for i, name := range []string{"app", "app2"} {
		svc := w.evilObj("Service", "", "v1", name)
		svc["spec"] = map[string]any{"ports": []any{map[string]any{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}}}
		eps := w.evilObj("EndpointSlice", "discovery.k8s.io", "v1", name+"-a")
		out = append(out, svc, endpointsOf(eps, name, "http", 8080, fmt.Sprintf("10.99.0.%d", i+1)))
	}
	gw := w.evilObj("Gateway", "gateway.networking.k8s.io", "v1", "gw")
	gw["spec"] = map[string]any{"gatewayClassName": w.prefix + "-gwc",
		"listeners": []any{map[string]any{"name": "http", "protocol": "HTTP", "port": 80,
			"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "Same"}}}}}
	return append(out, gw)
}

// tlsService makes o a Service on 443 that verifies its upstream's certificate with the CA
// certificate Secret ca of its namespace.
func tlsService(o map[string]any, ca string) map[string]any {
	o["spec"] = map[string]any{"ports": []any{map[string]any{"name": "https", "port": 443, "targetPort": 8443, "protocol": "TCP"}}}
	setAnn(o, "konghq.com/protocol", "https")
	setAnn(o, "konghq.com/tls-verify", "true")
	setAnn(o, "konghq.com/ca-certificates-secrets", ca)
	return o
}

// endpointsOf makes o the EndpointSlice of Service svc with one ready endpoint.
func endpointsOf(o map[string]any, svc, port string, number int, ip string) map[string]any {
	setLabel(o, "kubernetes.io/service-name", svc)
	o["addressType"] = "IPv4"
	o["endpoints"] = []any{map[string]any{"addresses": []any{ip}, "conditions": map[string]any{"ready": true}}}
	o["ports"] = []any{map[string]any{"name": port, "port": number, "protocol": "TCP"}}
	return o
}

// soakCA is a self-signed PEM CA certificate.
func soakCA(t *testing.T, cn string) []byte {
	t.Helper()
	cert, _ := selfSignedAs(t, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
	return cert
}

package workload

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Ports of every generated Service and its endpoints.
const (
	ServicePort = 80
	TargetPort  = 8080
)

func (g *gen) namespace(i int) *corev1.Namespace {
	name := fmt.Sprintf("bench-%d", i)
	return &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: g.meta("Namespace", "", name, 0),
	}
}

func (g *gen) ingressClass() *networkingv1.IngressClass {
	return &networkingv1.IngressClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"},
		ObjectMeta: g.meta("IngressClass", "", ClassName, 0),
		Spec:       networkingv1.IngressClassSpec{Controller: ControllerName},
	}
}

func (g *gen) service(i int) *corev1.Service { return g.serviceNamed(g.ns(i), g.name("app", i), i) }

// serviceNamed is a selector-less Service with one HTTP port (its endpoints come from the
// generated EndpointSlice).
func (g *gen) serviceNamed(ns, name string, i int) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: g.meta("Service", ns, name, i),
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{
				Name: "http", Protocol: corev1.ProtocolTCP, Port: ServicePort,
				TargetPort: intstr.FromInt32(TargetPort),
			}},
		},
	}
}

func (g *gen) endpointSlice(i int) *discoveryv1.EndpointSlice {
	return g.sliceFor(g.ns(i), g.name("app", i), i, 2*i)
}

// sliceFor is the 2-endpoint EndpointSlice of Service svc, whose pod addresses are the
// first-th and the next of the address plan.
func (g *gen) sliceFor(ns, svc string, i, first int) *discoveryv1.EndpointSlice {
	meta := g.meta("EndpointSlice", ns, svc+"-1", i)
	meta.Labels = map[string]string{
		discoveryv1.LabelServiceName: svc,
		discoveryv1.LabelManagedBy:   ManagedBy,
	}
	yes, no := true, false
	port, proto, portName := int32(TargetPort), corev1.ProtocolTCP, "http"
	es := &discoveryv1.EndpointSlice{
		TypeMeta:    metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta:  meta,
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Protocol: &proto, Port: &port}},
	}
	for k := range 2 {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{address(first + k)},
			Conditions: discoveryv1.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no},
		})
	}
	return es
}

// address is the j-th pod address: 10.0.0.2 upwards, skipping .0, .1 and .255 of every /24 so
// that no address looks like a network, gateway or broadcast address.
func address(j int) string {
	const perBlock = 253
	block, host := j/perBlock, j%perBlock+2
	v := uint32(10)<<24 | uint32(block)<<8 | uint32(host)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String()
}

func (g *gen) ingress(i int) *networkingv1.Ingress {
	ns, name := g.ns(i), g.name("app", i)
	class := ClassName
	prefix := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: g.meta("Ingress", ns, name, i),
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules: []networkingv1.IngressRule{{
				Host: g.host(i),
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: "/", PathType: &prefix,
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: name, Port: networkingv1.ServiceBackendPort{Number: ServicePort},
						}},
					}},
				}},
			}},
		},
	}
	if g.c.Plugins > 0 {
		ing.Annotations = map[string]string{"konghq.com/plugins": g.pluginName(i)}
	}
	if i < g.c.TLSSecrets {
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{g.host(i)}, SecretName: name + "-tls"}}
	}
	return ing
}

// tlsSecret is the kubernetes.io/tls Secret of Ingress i: a self-signed Ed25519 certificate for
// its host. Ed25519 keys come from a seed and its signatures use no randomness, which is what
// makes the PEM bytes reproducible (RSA and ECDSA generation and signing are randomized).
func (g *gen) tlsSecret(i int) (*corev1.Secret, error) {
	ns, name := g.ns(i), g.name("app", i)+"-tls"
	var seed [ed25519.SeedSize]byte
	if _, err := g.rng("tls-key", i).Read(seed[:]); err != nil {
		return nil, err
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	host := g.host(i)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(int64(i) + 1),
		Subject:               pkix.Name{CommonName: host, Organization: []string{"kongsync genworkload"}},
		DNSNames:              []string{host},
		NotBefore:             g.stamp,
		NotAfter:              g.stamp.Add(20 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("certificate for %s: %w", host, err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: g.meta("Secret", ns, name, i),
		Type:       corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		},
	}, nil
}

// opaqueSecret is an unrelated Secret of SecretSize random bytes, like the large Helm release
// and credential Secrets a real cluster holds and a controller should never cache.
func (g *gen) opaqueSecret(i int) *corev1.Secret {
	data := make([]byte, g.c.SecretSize)
	_, _ = g.rng("blob", i).Read(data) // ChaCha8.Read never fails
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: g.meta("Secret", g.ns(i), g.name("blob", i), i),
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"blob": data},
	}
}

package translator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// TestOddInputsDoNotPanic feeds objects the API server would accept (or that only a manifest
// could hold) and that crash or confuse KIC: nil ports, names and protocols in EndpointSlices,
// endpoints without addresses, empty backends, nil maps. Translation must not panic and must
// still produce a document that decK accepts.
func TestOddInputsDoNotPanic(t *testing.T) {
	kong := "kong"
	prefix := networkingv1.PathTypePrefix
	port := int32(8080)
	ready := true
	objs := []store.Object{
		&networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "odd"},
			Spec: networkingv1.IngressSpec{
				IngressClassName: &kong,
				DefaultBackend:   &networkingv1.IngressBackend{},
				TLS:              []networkingv1.IngressTLS{{}, {Hosts: []string{"a.example.com"}, SecretName: "no-data"}},
				Rules: []networkingv1.IngressRule{
					{},
					{Host: "a.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
						Paths: []networkingv1.HTTPIngressPath{
							{PathType: &prefix},
							{Path: "/svc", PathType: &prefix, Backend: networkingv1.IngressBackend{
								Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
						},
					}}},
				},
			},
		},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "no-data"}},
		&discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
			Ports:      []discoveryv1.EndpointPort{{}, {Port: &port}},
			Endpoints: []discoveryv1.Endpoint{
				{},
				{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			},
		},
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "unlabelled"}},
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kong"}},
	}
	res := translateObjects(t, objs)
	y, err := document.YAML(res.Document)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateWithDeck(y); err != nil {
		t.Fatalf("decK rejects the output: %v\n%s", err, y)
	}
	ups := res.Document.Upstreams
	if len(ups) != 1 || len(ups[0].Targets) != 1 || *ups[0].Targets[0].Target != "10.0.0.1:8080" {
		t.Errorf("want one target 10.0.0.1:8080 from the unnamed slice port, got %s", y)
	}
	if len(res.Problems) == 0 {
		t.Error("the empty backends and the Secret without data must be reported")
	}
}

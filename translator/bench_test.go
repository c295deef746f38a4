package translator

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

// benchObjects builds n Ingresses, each with its own Service (two ready endpoints) and two
// paths, spread over 50 namespaces.
func benchObjects(n int) []store.Object {
	class := "kong"
	prefix := networkingv1.PathTypePrefix
	port := int32(8080)
	objs := make([]store.Object, 0, 3*n)
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns-%d", i%50)
		name := fmt.Sprintf("app-%d", i)
		backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: name, Port: networkingv1.ServiceBackendPort{Number: 80}}}
		objs = append(objs,
			&networkingv1.Ingress{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: "u"},
				Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{
					Host: name + ".example.com",
					IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
						{Path: "/api", PathType: &prefix, Backend: backend},
						{Path: "/", PathType: &prefix, Backend: backend},
					}}},
				}}},
			},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
			&discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-1", Labels: map[string]string{discoveryv1.LabelServiceName: name}},
				Ports:      []discoveryv1.EndpointPort{{Port: &port}},
				Endpoints: []discoveryv1.Endpoint{
					{Addresses: []string{fmt.Sprintf("10.%d.%d.1", i/250%250, i%250)}},
					{Addresses: []string{fmt.Sprintf("10.%d.%d.2", i/250%250, i%250)}},
				},
			},
		)
	}
	return objs
}

func BenchmarkTranslate10k(b *testing.B) { benchTranslate(b, benchObjects(10000)) }

// benchTranslate measures Translate with default options on a fixed snapshot of objs.
func benchTranslate(b *testing.B, objs []store.Object) {
	snap, err := store.NewSnapshot(objs...)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		coldResult(snap, DefaultOptions())
	}
}

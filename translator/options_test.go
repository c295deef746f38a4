package translator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

// TestOptions checks the two options: the served class and the cluster domain used by
// ingress.kubernetes.io/service-upstream.
func TestOptions(t *testing.T) {
	ing := func(name, class string) *networkingv1.Ingress {
		return &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: map[string]string{annIngressClass: class}},
			Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
		}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Annotations: map[string]string{annServiceUpstream: "true"}},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	snap, err := store.NewSnapshot(ing("a-kong", "kong"), ing("b-internal", "internal"), svc)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		opts   Options
		route  string
		target string
	}{
		{DefaultOptions(), "ns.a-kong", "web.ns.svc:80"}, // KIC's default cluster domain is empty
		{Options{IngressClass: "kong", ClusterDomain: "cluster.local"}, "ns.a-kong", "web.ns.svc.cluster.local:80"},
		{Options{IngressClass: "internal", ClusterDomain: "corp.example"}, "ns.b-internal", "web.ns.svc.corp.example:80"},
		{Options{IngressClass: "internal"}, "ns.b-internal", "web.ns.svc:80"},
		{Options{}, "ns.a-kong", "web.ns.svc:80"}, // an empty class means KIC's default, "kong"
	}
	for _, c := range cases {
		doc := coldResult(snap, c.opts).Document
		if len(doc.Services) != 1 || len(doc.Services[0].Routes) != 1 || *doc.Services[0].Routes[0].Name != c.route {
			t.Errorf("%+v: want the single route %s", c.opts, c.route)
			continue
		}
		if tg := doc.Upstreams[0].Targets; len(tg) != 1 || *tg[0].Target != c.target {
			t.Errorf("%+v: want target %s", c.opts, c.target)
		}
	}
}

package status

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestServiceAddresses(t *testing.T) {
	tests := []struct {
		name string
		svc  corev1.Service
		want []string
	}{
		{"load balancer assigned", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.0.0.9"}},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}, {Hostname: "lb.example.net"}}}}},
			[]string{"203.0.113.7", "lb.example.net"}},
		{"load balancer pending falls back to cluster IPs", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.0.0.9", "fd00::9"}}},
			[]string{"10.0.0.9", "fd00::9"}},
		{"headless has none", corev1.Service{Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, ClusterIPs: []string{corev1.ClusterIPNone}}}, nil},
		{"external name", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "kong.example.org"}},
			[]string{"kong.example.org"}},
		{"external IPs appended", corev1.Service{Spec: corev1.ServiceSpec{ClusterIP: "10.0.0.1", ExternalIPs: []string{"198.51.100.1"}}},
			[]string{"10.0.0.1", "198.51.100.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serviceAddresses(&tt.svc); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestToLBAndComparisons(t *testing.T) {
	got := toLB([]string{"b.example.com", "10.0.0.2", " ", "10.0.0.2", "a.example.com"})
	want := []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.2"}, {Hostname: "a.example.com"}, {Hostname: "b.example.com"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("toLB = %+v", got)
	}
	rev := []networkingv1.IngressLoadBalancerIngress{want[2], want[0], want[1]}
	if !equal(got, rev) {
		t.Error("equal must ignore order")
	}
	if equal(got, want[:2]) || equal(nil, want) {
		t.Error("equal on different sets")
	}
	if !overlaps([]networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.2"}, {IP: "1.1.1.1"}}, want) {
		t.Error("overlap not found")
	}
	if overlaps([]networkingv1.IngressLoadBalancerIngress{{IP: "1.1.1.1"}}, want) {
		t.Error("foreign status taken for ours")
	}
}

func TestServes(t *testing.T) {
	w := &Writer{opts: Options{IngressClass: "kong"}}
	ing := func(ann, class string) *networkingv1.Ingress {
		i := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{}}}
		if ann != "" {
			i.Annotations[classAnnotation] = ann
		}
		if class != "" {
			i.Spec.IngressClassName = &class
		}
		return i
	}
	tests := []struct {
		ing       *networkingv1.Ingress
		isDefault bool
		want      bool
	}{
		{ing("kong", "other"), false, true}, // the annotation decides
		{ing("other", "kong"), false, false},
		{ing("", "kong"), false, true},
		{ing("", "other"), true, false},
		{ing("", ""), true, true}, // no class: ours only when kong is the default class
		{ing("", ""), false, false},
	}
	for i, tt := range tests {
		if got := w.serves(tt.ing, tt.isDefault); got != tt.want {
			t.Errorf("case %d: serves = %v, want %v", i, got, tt.want)
		}
	}
}

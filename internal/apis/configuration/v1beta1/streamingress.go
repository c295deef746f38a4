package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TCPIngress routes TCP and TLS-over-TCP streams by listener port (and SNI) to Services:
// configuration.konghq.com/v1beta1, deprecated by Kong in favour of Gateway API but still
// translated by KIC v3.5.13.
type TCPIngress struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TCPIngressSpec      `json:"spec,omitempty"`
	Status StreamIngressStatus `json:"status,omitempty"`
}

// TCPIngressSpec is the CRD's spec: rules, and TLS Secrets whose hosts are served like an
// Ingress's spec.tls.
type TCPIngressSpec struct {
	Rules []IngressRule `json:"rules,omitempty"`
	TLS   []IngressTLS  `json:"tls,omitempty"`
}

// IngressRule matches streams arriving on Port (and, for TLS, with SNI Host).
type IngressRule struct {
	Host    string         `json:"host,omitempty"`
	Port    int            `json:"port"`
	Backend IngressBackend `json:"backend"`
}

// IngressBackend names a Service port of the object's namespace.
type IngressBackend struct {
	ServiceName string `json:"serviceName"`
	ServicePort int    `json:"servicePort"`
}

// IngressTLS names the Secret holding the certificate for Hosts.
type IngressTLS struct {
	Hosts      []string `json:"hosts,omitempty"`
	SecretName string   `json:"secretName,omitempty"`
}

// StreamIngressStatus is the status of a TCPIngress or UDPIngress: the addresses clients reach
// Kong at (core LoadBalancerStatus, as the CRD declares it).
type StreamIngressStatus struct {
	LoadBalancer corev1.LoadBalancerStatus `json:"loadBalancer,omitempty"`
}

// UDPIngress routes UDP datagrams by listener port to Services.
type UDPIngress struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   UDPIngressSpec      `json:"spec,omitempty"`
	Status StreamIngressStatus `json:"status,omitempty"`
}

// UDPIngressSpec is the CRD's spec.
type UDPIngressSpec struct {
	Rules []UDPIngressRule `json:"rules,omitempty"`
}

// UDPIngressRule forwards datagrams arriving on Port to Backend.
type UDPIngressRule struct {
	Port    int            `json:"port"`
	Backend IngressBackend `json:"backend"`
}

// StreamRule is a rule of a TCPIngress or UDPIngress (a UDPIngress rule has no Host): what the
// translator and the offline checks read of either kind.
type StreamRule struct {
	Host    string
	Port    int
	Backend IngressBackend
}

// StreamRules returns the TCPIngress's rules, in order.
func (o *TCPIngress) StreamRules() []StreamRule {
	out := make([]StreamRule, len(o.Spec.Rules))
	for i, r := range o.Spec.Rules {
		out[i] = StreamRule{Host: r.Host, Port: r.Port, Backend: r.Backend}
	}
	return out
}

// StreamRules returns the UDPIngress's rules, in order.
func (o *UDPIngress) StreamRules() []StreamRule {
	out := make([]StreamRule, len(o.Spec.Rules))
	for i, r := range o.Spec.Rules {
		out[i] = StreamRule{Port: r.Port, Backend: r.Backend}
	}
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *TCPIngress) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy.
func (in *TCPIngress) DeepCopy() *TCPIngress {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Rules = cloneSlice(in.Spec.Rules)
	if in.Spec.TLS != nil {
		out.Spec.TLS = make([]IngressTLS, len(in.Spec.TLS))
		for i, t := range in.Spec.TLS {
			out.Spec.TLS[i] = IngressTLS{Hosts: cloneSlice(t.Hosts), SecretName: t.SecretName}
		}
	}
	in.Status.LoadBalancer.DeepCopyInto(&out.Status.LoadBalancer)
	return &out
}

// DeepCopyObject implements runtime.Object.
func (in *UDPIngress) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy.
func (in *UDPIngress) DeepCopy() *UDPIngress {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Rules = cloneSlice(in.Spec.Rules)
	in.Status.LoadBalancer.DeepCopyInto(&out.Status.LoadBalancer)
	return &out
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}

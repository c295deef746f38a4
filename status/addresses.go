package status

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// addresses returns the load-balancer entries to publish, sorted: static addresses if given,
// else the publish Service's, else none.
func (w *Writer) addresses(ctx context.Context, snap serviceGetter) ([]networkingv1.IngressLoadBalancerIngress, error) {
	addrs, err := publishAddresses(ctx, w.client, snap, w.opts.PublishService, w.opts.StaticAddresses)
	return toLB(addrs), err
}

// publishAddresses are the addresses clients reach Kong at, for Ingress and Gateway status
// alike: static addresses if given, else the publish Service's, else none. The Service comes
// from the snapshot when its namespace is watched, else from a GET (the writers run on every
// store change, so the store is preferred).
func publishAddresses(ctx context.Context, client kubernetes.Interface, snap serviceGetter, publish string, static []string) ([]string, error) {
	if len(static) > 0 {
		return static, nil
	}
	svc, err := publishService(ctx, client, snap, publish)
	if svc == nil || err != nil {
		return nil, err
	}
	return serviceAddresses(svc), nil
}

// publishService is the publish Service ("namespace/name"; nil when not set), from the snapshot
// when its namespace is watched, else from a GET.
func publishService(ctx context.Context, client kubernetes.Interface, snap serviceGetter, publish string) (*corev1.Service, error) {
	if publish == "" {
		return nil, nil
	}
	ns, name, ok := strings.Cut(publish, "/")
	if !ok {
		return nil, fmt.Errorf("publish service %q is not namespace/name", publish)
	}
	if svc, ok := snap.Service(ns, name); ok {
		return svc, nil
	}
	svc, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("publish service %s: %w", publish, err)
	}
	return svc, nil
}

// serviceGetter is the snapshot lookup addresses needs; *store.Snapshot is one.
type serviceGetter interface {
	Service(namespace, name string) (*corev1.Service, bool)
}

// serviceAddresses: a LoadBalancer's ingress IPs/hostnames when assigned, else its cluster IPs;
// an ExternalName Service's name; plus spec.externalIPs.
func serviceAddresses(svc *corev1.Service) []string {
	var out []string
	switch svc.Spec.Type {
	case corev1.ServiceTypeExternalName:
		out = append(out, svc.Spec.ExternalName)
	case corev1.ServiceTypeLoadBalancer:
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				out = append(out, in.IP)
			} else if in.Hostname != "" {
				out = append(out, in.Hostname)
			}
		}
	}
	if len(out) == 0 {
		for _, ip := range svc.Spec.ClusterIPs {
			if ip != "" && ip != corev1.ClusterIPNone {
				out = append(out, ip)
			}
		}
		if len(svc.Spec.ClusterIPs) == 0 && svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != corev1.ClusterIPNone {
			out = append(out, svc.Spec.ClusterIP)
		}
	}
	return append(out, svc.Spec.ExternalIPs...)
}

// toLB turns addresses into sorted, deduplicated status entries (IP or Hostname by syntax).
func toLB(addrs []string) []networkingv1.IngressLoadBalancerIngress {
	seen := map[string]bool{}
	var out []networkingv1.IngressLoadBalancerIngress
	for _, a := range addrs {
		a = strings.TrimSpace(a)
		if a == "" || seen[a] {
			continue
		}
		seen[a] = true
		if net.ParseIP(a) != nil {
			out = append(out, networkingv1.IngressLoadBalancerIngress{IP: a})
		} else {
			out = append(out, networkingv1.IngressLoadBalancerIngress{Hostname: a})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].IP+out[i].Hostname < out[j].IP+out[j].Hostname })
	return out
}

func key(in networkingv1.IngressLoadBalancerIngress) string { return in.IP + "|" + in.Hostname }

// equal compares address sets, ignoring order and ports (kongsync writes none).
func equal(a, b []networkingv1.IngressLoadBalancerIngress) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[key(x)]++
	}
	for _, x := range b {
		if m[key(x)] == 0 {
			return false
		}
		m[key(x)]--
	}
	return true
}

// overlaps reports whether cur holds any of our addresses (an Ingress that left our class).
func overlaps(cur, ours []networkingv1.IngressLoadBalancerIngress) bool {
	m := map[string]bool{}
	for _, x := range ours {
		m[key(x)] = true
	}
	for _, x := range cur {
		if m[key(x)] {
			return true
		}
	}
	return false
}

package status

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// streamResources are the TCPIngress and UDPIngress resources whose status.loadBalancer the
// Writer keeps, as KIC does (the same addresses as Ingresses, without ports).
var streamResources = map[store.Kind]string{store.KindTCPIngress: "tcpingresses", store.KindUDPIngress: "udpingresses"}

// reconcileStreams brings the status.loadBalancer of every TCPIngress and UDPIngress of our
// class to want (and takes our addresses back from those that left it), writing only what
// differs. Without a dynamic client (Options.Dynamic) it does nothing.
func (w *Writer) reconcileStreams(ctx context.Context, snap *store.Snapshot, want []networkingv1.IngressLoadBalancerIngress, isDefault bool) []error {
	if w.opts.Dynamic == nil {
		return nil
	}
	var errs []error
	for _, k := range []store.Kind{store.KindTCPIngress, store.KindUDPIngress} {
		for _, o := range snap.Objects(k) {
			cur := streamStatus(o)
			var next []networkingv1.IngressLoadBalancerIngress
			class := o.GetAnnotations()[classAnnotation]
			switch {
			case class == w.opts.IngressClass || (class == "" && isDefault):
				next = want
			case overlaps(cur, want):
				next = nil
			default:
				continue
			}
			if equal(cur, next) {
				continue
			}
			if err := w.updateStream(ctx, k, o, next); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// streamStatus is a TCPIngress's or UDPIngress's status.loadBalancer.ingress, ports left out
// (KIC neither writes nor compares them).
func streamStatus(o store.Object) []networkingv1.IngressLoadBalancerIngress {
	var lb []corev1.LoadBalancerIngress
	switch o := o.(type) {
	case *kv1beta1.TCPIngress:
		lb = o.Status.LoadBalancer.Ingress
	case *kv1beta1.UDPIngress:
		lb = o.Status.LoadBalancer.Ingress
	}
	var out []networkingv1.IngressLoadBalancerIngress
	for _, x := range lb {
		out = append(out, networkingv1.IngressLoadBalancerIngress{IP: x.IP, Hostname: x.Hostname})
	}
	return out
}

// updateStream writes status.loadBalancer.ingress as a merge patch of the status subresource
// (nil removes it), guarded by the resourceVersion the decision was made on.
func (w *Writer) updateStream(ctx context.Context, k store.Kind, o store.Object, lb []networkingv1.IngressLoadBalancerIngress) error {
	type addr struct {
		IP       string `json:"ip,omitempty"`
		Hostname string `json:"hostname,omitempty"`
	}
	var ingress []addr
	for _, x := range lb {
		ingress = append(ingress, addr{IP: x.IP, Hostname: x.Hostname})
	}
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": o.GetResourceVersion()},
		"status":   map[string]any{"loadBalancer": map[string]any{"ingress": ingress}},
	})
	if err != nil {
		return err
	}
	gvr := kv1beta1.SchemeGroupVersion.WithResource(streamResources[k])
	_, err = w.opts.Dynamic.Resource(gvr).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.MergePatchType, body,
		metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or a newer version is on its way to the store and triggers a retry
	}
	ref := store.Ref{Kind: k, Namespace: o.GetNamespace(), Name: o.GetName()}
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	w.log.V(1).Info("status updated", "object", ref.String(), "addresses", len(lb))
	if w.Updated != nil {
		w.Updated(ref, lb)
	}
	return nil
}

package informer

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

// lastAppliedAnnotation holds a full copy of the object as last applied by kubectl; for a Secret
// that copy includes its data in clear text, so it is never kept.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// keptAnnotation reports whether annotation key may be read downstream: the translator, the
// store and the status writer read keys under konghq.com/ and ingress.kubernetes.io/, the class
// annotation and the default-class one. TestKeptAnnotationsCoverReaders checks their sources.
func keptAnnotation(key string) bool {
	return strings.HasPrefix(key, "konghq.com/") || strings.HasPrefix(key, "ingress.kubernetes.io/") ||
		key == "kubernetes.io/ingress.class" || key == store.DefaultClassAnnotation
}

// trimMeta drops the metadata no consumer reads: managed fields (often larger than the object),
// owner references, finalizers and every annotation but the kept ones — among them the
// last-applied one, which holds a Secret's data in clear. It mutates in place, which informer
// transforms may do.
func trimMeta(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	for k := range m.Annotations {
		if !keptAnnotation(k) {
			delete(m.Annotations, k)
		}
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
	m.OwnerReferences = nil
	m.Finalizers = nil
}

// transformIngress keeps spec (translated) and status (compared by the status writer); nothing
// reads an Ingress's labels.
func transformIngress(obj any) (any, error) {
	if ing, ok := obj.(*networkingv1.Ingress); ok {
		trimMeta(&ing.ObjectMeta)
		ing.Labels = nil
	}
	return obj, nil
}

// transformIngressClass keeps everything but the trimmed metadata; classes are few and small.
func transformIngressClass(obj any) (any, error) {
	if ic, ok := obj.(*networkingv1.IngressClass); ok {
		trimMeta(&ic.ObjectMeta)
		ic.Labels = nil
	}
	return obj, nil
}

// transformService drops the Service fields the translator never reads. Status is kept: the
// publish Service's load-balancer addresses feed Ingress status.
func transformService(obj any) (any, error) {
	if svc, ok := obj.(*corev1.Service); ok {
		trimMeta(&svc.ObjectMeta)
		svc.Labels = nil
		svc.Spec.Selector = nil
		svc.Spec.SessionAffinityConfig = nil
		svc.Spec.LoadBalancerSourceRanges = nil
		svc.Status.Conditions = nil
	}
	return obj, nil
}

// transformEndpointSlice drops per-endpoint scheduling details (the translator reads addresses,
// conditions and ports only) and every label but the Service name: the EndpointSlice controller
// copies all of the Service's labels onto each of its slices.
func transformEndpointSlice(obj any) (any, error) {
	if es, ok := obj.(*discoveryv1.EndpointSlice); ok {
		trimMeta(&es.ObjectMeta)
		if svc, ok := es.Labels[discoveryv1.LabelServiceName]; ok {
			es.Labels = map[string]string{discoveryv1.LabelServiceName: svc}
		} else {
			es.Labels = nil
		}
		for i := range es.Endpoints {
			ep := &es.Endpoints[i]
			ep.Hints = nil
			ep.DeprecatedTopology = nil
			ep.NodeName = nil
			ep.Zone = nil
			ep.TargetRef = nil
		}
	}
	return obj, nil
}

// caCertConfigMapSelector is the server-side label selector of the ConfigMap informers.
const caCertConfigMapSelector = CACertLabel + "=true"

// transformConfigMap keeps a CA certificate ConfigMap's labels and data (its id and PEM
// certificate); binaryData is never read.
func transformConfigMap(obj any) (any, error) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		trimMeta(&cm.ObjectMeta)
		cm.BinaryData = nil
	}
	return obj, nil
}

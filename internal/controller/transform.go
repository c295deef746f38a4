package controller

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lastAppliedAnnotation holds a full copy of the object as last applied by kubectl; for a Secret
// that copy includes its data in clear text, so it is never kept.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// trimMeta drops the metadata no consumer reads: managed fields (often larger than the object)
// and the last-applied annotation. It mutates in place, which informer transforms may do.
func trimMeta(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	if _, ok := m.Annotations[lastAppliedAnnotation]; ok {
		delete(m.Annotations, lastAppliedAnnotation)
	}
	m.OwnerReferences = nil
	m.Finalizers = nil
}

// transformIngress keeps spec (translated) and status (compared by the status writer).
func transformIngress(obj any) (any, error) {
	if ing, ok := obj.(*networkingv1.Ingress); ok {
		trimMeta(&ing.ObjectMeta)
	}
	return obj, nil
}

// transformIngressClass keeps everything but the trimmed metadata; classes are few and small.
func transformIngressClass(obj any) (any, error) {
	if ic, ok := obj.(*networkingv1.IngressClass); ok {
		trimMeta(&ic.ObjectMeta)
	}
	return obj, nil
}

// transformService drops the Service fields the translator never reads. Status is kept: the
// publish Service's load-balancer addresses feed Ingress status.
func transformService(obj any) (any, error) {
	if svc, ok := obj.(*corev1.Service); ok {
		trimMeta(&svc.ObjectMeta)
		svc.Spec.Selector = nil
		svc.Spec.SessionAffinityConfig = nil
		svc.Spec.LoadBalancerSourceRanges = nil
		svc.Status.Conditions = nil
	}
	return obj, nil
}

// transformEndpointSlice drops per-endpoint scheduling details: the translator reads addresses,
// conditions and ports only.
func transformEndpointSlice(obj any) (any, error) {
	if es, ok := obj.(*discoveryv1.EndpointSlice); ok {
		trimMeta(&es.ObjectMeta)
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

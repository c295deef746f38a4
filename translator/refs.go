package translator

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kongsync/kongsync/store"
)

// References between objects, as every family names them: an object's store.Ref, a Service
// port named by number (the ReferenceGrant check is refgrant.go).

func ingressRef(ing *networkingv1.Ingress) store.Ref {
	return store.Ref{Kind: store.KindIngress, Namespace: ing.Namespace, Name: ing.Name}
}

// servicePortByNumber is KIC's port lookup by number: an ExternalName Service takes any port.
func servicePortByNumber(svc *corev1.Service, n int32) *corev1.ServicePort {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return &corev1.ServicePort{Port: n, TargetPort: intstr.FromInt32(n)}
	}
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == n {
			return &svc.Spec.Ports[i]
		}
	}
	return nil
}

// secretRef is the reference of a Secret, which problems about its certificates name.
func configMapRef(c *corev1.ConfigMap) store.Ref {
	return store.Ref{Kind: store.KindConfigMap, Namespace: c.Namespace, Name: c.Name}
}

func secretRef(s *corev1.Secret) store.Ref {
	return store.Ref{Kind: store.KindSecret, Namespace: s.Namespace, Name: s.Name}
}

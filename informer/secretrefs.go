package informer

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// SecretRefs lists the Secrets outside the always-kept kinds that obj makes the controller
// fetch (an Ingress's TLS Secrets, a Service's certificate annotations, a plugin's configFrom
// and configPatches): the admission webhook fetches those the store does not hold yet, since
// the object that will reference them is only being created.
func SecretRefs(obj store.Object) []store.Ref {
	switch o := obj.(type) {
	case *networkingv1.Ingress:
		return ingressSecrets(o)
	case *corev1.Service:
		return serviceSecrets(o)
	case *configurationv1.KongPlugin:
		return pluginSecrets(o)
	case *configurationv1.KongClusterPlugin:
		return clusterPluginSecrets(o)
	}
	return nil
}

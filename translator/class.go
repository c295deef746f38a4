package translator

// Class filtering every family shares: whether an object's kubernetes.io/ingress.class
// annotation names the class this controller serves.

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// servesClassAnnotation is KIC's class filter for the Kong kinds that carry a class
// (KongConsumer, KongClusterPlugin, KongConsumerGroup, TCPIngress, UDPIngress): the
// kubernetes.io/ingress.class annotation must name our class, or be absent (or empty) when our
// IngressClass is the cluster default. The table of every kind is in docs/translation.md.
func (t *translation) servesClassAnnotation(obj metav1.Object) bool {
	class := obj.GetAnnotations()[annIngressClass]
	return class == t.opts.IngressClass || (class == "" && t.defaultClass)
}

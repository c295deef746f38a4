package translator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// facadeObjects are KongServiceFacades over the pool's first Services (a few of their own, one
// without class annotation, one naming a Service that is not there) and an Ingress of each
// such Service's namespace routing to them, rule paths and default backend.
func facadeObjects(pool []store.Object) []store.Object {
	var out []store.Object
	n := 0
	for _, o := range pool {
		svc, ok := o.(*corev1.Service)
		if !ok || len(svc.Spec.Ports) == 0 || n == 3 {
			continue
		}
		name := fmt.Sprintf("facade-%d", n)
		ann := map[string]string{annIngressClass: "kong", annPlugins: ""}
		if n == 1 {
			ann = nil
		}
		f := &kic.KongServiceFacade{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: svc.Namespace, Annotations: ann,
			UID: types.UID("uid-" + name)}, Spec: kic.KongServiceFacadeSpec{Backend: kic.KongServiceFacadeBackend{
			Name: svc.Name, Port: svc.Spec.Ports[0].Port}}}
		if n == 2 {
			f.Spec.Backend.Name = "absent"
		}
		out = append(out, f, facadeIngress(svc.Namespace, name))
		n++
	}
	return out
}

// facadeIngress is an Ingress of our class with a rule path and the default backend on a facade.
func facadeIngress(ns, facade string) *networkingv1.Ingress {
	class := "kong"
	group := kic.SchemeGroupVersion.Group
	be := networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{APIGroup: &group,
		Kind: kic.KongServiceFacadeKind, Name: facade}}
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "via-" + facade, Namespace: ns, UID: types.UID("uid-via-" + facade)},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, DefaultBackend: be.DeepCopy(), Rules: []networkingv1.IngressRule{{
			Host: facade + ".example", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: "/" + facade, PathType: &pt, Backend: be}}}}}}}}
}

// mutateFacade edits what decides a facade's Kong service: class, the Service and port it
// names (sometimes missing, or not a port), konghq.com annotations over the Service's, tags.
func (w *world) mutateFacade(o *kic.KongServiceFacade) string {
	switch w.r.IntN(5) {
	case 0:
		return w.setClassAnnotation(&o.ObjectMeta)
	case 1:
		o.Spec.Backend.Name = pick(w.r, []string{o.Spec.Backend.Name, "absent", "api"})
		return "backendRef.name " + o.Spec.Backend.Name
	case 2:
		o.Spec.Backend.Port = pick(w.r, []int32{80, 443, 8080, 0, 70000})
		return fmt.Sprintf("backendRef.port %d", o.Spec.Backend.Port)
	case 3:
		setAnn(&o.ObjectMeta, annPlugins, pick(w.r, []string{"", "limit", "svc-auth", "auth-alpha"}))
		return "plugins annotation"
	}
	setAnn(&o.ObjectMeta, annTags, pick(w.r, []string{"a", "a,b", ""}))
	setAnn(&o.ObjectMeta, annPrefix+"protocol", pick(w.r, []string{"", "https", "grpc", "bogus"}))
	return "tags and protocol annotations"
}

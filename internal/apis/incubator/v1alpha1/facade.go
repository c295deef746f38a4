// Package v1alpha1 holds the incubator.ingress-controller.konghq.com/v1alpha1 custom resource
// kongsync reads (KongServiceFacade), with the JSON shape of the CRD KIC installs
// (config/crd/ingress-controller-incubator); like the configuration packages, our own minimal
// types rather than Kong's kubernetes-configuration module.
package v1alpha1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is incubator.ingress-controller.konghq.com/v1alpha1.
var SchemeGroupVersion = schema.GroupVersion{Group: "incubator.ingress-controller.konghq.com", Version: "v1alpha1"}

// KongServiceFacadeKind is the kind an Ingress backend's resource names to use a facade.
const KongServiceFacadeKind = "KongServiceFacade"

// KongServiceFacade (namespaced) stands for a Service port as an Ingress backend
// (backend.resource): KIC makes one Kong service per facade, named after it, shared by every
// Ingress naming it, with the facade's konghq.com annotations over the Service's. KIC reads it
// only with its KongServiceFacade feature gate on, and only with our class (the
// kubernetes.io/ingress.class annotation, or none when our class is the default).
type KongServiceFacade struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KongServiceFacadeSpec   `json:"spec,omitempty"`
	Status KongServiceFacadeStatus `json:"status,omitempty"`
}

// KongServiceFacadeSpec mirrors the CRD's spec.
type KongServiceFacadeSpec struct {
	// Backend is the Service (in the facade's namespace: the reference has no namespace) and
	// port the facade's Kong service routes to.
	Backend KongServiceFacadeBackend `json:"backendRef"`
}

// KongServiceFacadeBackend names a Service port; both are required by the CRD.
type KongServiceFacadeBackend struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
	// missing are the required fields the decoded JSON lacked (the API server refuses such an
	// object; a manifest may hold one): "name", "port", or both.
	missing []string
	seen    bool // decoded from JSON (false: backendRef absent, or built in Go)
}

// Missing lists the required fields the decoded JSON lacked, in schema order.
func (b *KongServiceFacadeBackend) Missing() []string { return b.missing }

// Decoded reports whether the reference was decoded from JSON: a facade decoded without it
// lacks the required spec.backendRef.
func (b *KongServiceFacadeBackend) Decoded() bool { return b.seen }

// UnmarshalJSON decodes the reference, noting which required fields are absent (a zero value
// cannot tell).
func (b *KongServiceFacadeBackend) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name *string `json:"name"`
		Port *int32  `json:"port"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = KongServiceFacadeBackend{seen: true}
	if raw.Name != nil {
		b.Name = *raw.Name
	} else {
		b.missing = append(b.missing, "name")
	}
	if raw.Port != nil {
		b.Port = *raw.Port
	} else {
		b.missing = append(b.missing, "port")
	}
	return nil
}

// KongServiceFacadeStatus is the status part kongsync reads: the conditions (KIC writes
// Programmed).
type KongServiceFacadeStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (in *KongServiceFacade) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongServiceFacade) DeepCopy() *KongServiceFacade {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Backend.missing = append([]string(nil), in.Spec.Backend.missing...)
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return &out
}

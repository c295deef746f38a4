// Package v1alpha1 holds the configuration.konghq.com/v1alpha1 custom resources kongsync reads
// (IngressClassParameters, KongVault, KongLicense, KongCustomEntity), with the JSON shape of the CRD KIC installs; like packages v1 and
// v1beta1, our own minimal types rather than Kong's kubernetes-configuration module.
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is configuration.konghq.com/v1alpha1.
var SchemeGroupVersion = schema.GroupVersion{Group: "configuration.konghq.com", Version: "v1alpha1"}

// IngressClassParametersKind is the kind an IngressClass's spec.parameters must name.
const IngressClassParametersKind = "IngressClassParameters"

// IngressClassParameters are the settings of the IngressClass that references them
// (spec.parameters, namespaced). Only the parameters of the controller's own class are read.
type IngressClassParameters struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec IngressClassParametersSpec `json:"spec,omitempty"`
}

// IngressClassParametersSpec mirrors the CRD's spec; both default to false.
type IngressClassParametersSpec struct {
	// ServiceUpstream makes every Kong upstream target the Service's DNS name and port instead
	// of its endpoints, as the ingress.kubernetes.io/service-upstream annotation does per Service.
	ServiceUpstream bool `json:"serviceUpstream,omitempty"`
	// EnableLegacyRegexDetection prefixes with "~" the Ingress paths Kong 2.x would have taken
	// for regular expressions.
	EnableLegacyRegexDetection bool `json:"enableLegacyRegexDetection,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (in *IngressClassParameters) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy.
func (in *IngressClassParameters) DeepCopy() *IngressClassParameters {
	if in == nil {
		return nil
	}
	out := &IngressClassParameters{TypeMeta: in.TypeMeta, Spec: in.Spec}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

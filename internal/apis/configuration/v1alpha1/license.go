package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// KongLicenseKind is the kind of KongLicense objects.
const KongLicenseKind = "KongLicense"

// KongLicense is a Kong Enterprise license (cluster-scoped). KIC sends Kong Enterprise one
// license entity: that of the newest enabled KongLicense (by creation time, then name). Unlike
// other kinds, its fields sit at the top level, beside metadata; there is no spec.
type KongLicense struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// RawLicenseString is the license's content: Kong's license payload. A secret: kongsync never
	// prints it. Required by the CRD (nil when absent); the schema allows an empty string.
	RawLicenseString *string `json:"rawLicenseString,omitempty"`
	// Enabled lets controllers use the license. Required by the CRD, with the default true: the
	// API server fills it in when absent, and so does kongsync's manifest reading (nil is true).
	Enabled *bool `json:"enabled,omitempty"`

	Status KongLicenseStatus `json:"status,omitempty"`
}

// KongLicenseStatus is the status part: the conditions each controller writes (KIC's
// PickedAsLatest Programmed condition; kongsync neither reads nor writes it).
type KongLicenseStatus struct {
	Controllers []KongLicenseControllerStatus `json:"controllers,omitempty"`
}

// KongLicenseControllerStatus is one controller's entry in status.controllers.
type KongLicenseControllerStatus struct {
	ControllerName string                 `json:"controllerName"`
	ControllerRef  *KongLicenseController `json:"controllerRef,omitempty"`
	Conditions     []metav1.Condition     `json:"conditions,omitempty"`
}

// KongLicenseController is the object of a controller's entry (status.controllers[].controllerRef).
type KongLicenseController struct {
	Group     *string `json:"group,omitempty"`
	Kind      *string `json:"kind,omitempty"`
	Name      string  `json:"name"`
	Namespace *string `json:"namespace,omitempty"`
}

// IsEnabled reports spec enabled, true when unset (the CRD's default).
func (in *KongLicense) IsEnabled() bool { return in.Enabled == nil || *in.Enabled }

// Payload is the raw license string, "" when unset.
func (in *KongLicense) Payload() string {
	if in.RawLicenseString == nil {
		return ""
	}
	return *in.RawLicenseString
}

// DeepCopyObject implements runtime.Object.
func (in *KongLicense) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongLicense) DeepCopy() *KongLicense {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.RawLicenseString != nil {
		s := *in.RawLicenseString
		out.RawLicenseString = &s
	}
	if in.Enabled != nil {
		b := *in.Enabled
		out.Enabled = &b
	}
	if in.Status.Controllers != nil {
		out.Status.Controllers = make([]KongLicenseControllerStatus, len(in.Status.Controllers))
		for i, c := range in.Status.Controllers {
			out.Status.Controllers[i] = c.deepCopy()
		}
	}
	return &out
}

func (in KongLicenseControllerStatus) deepCopy() KongLicenseControllerStatus {
	out := in
	if in.ControllerRef != nil {
		r := *in.ControllerRef
		r.Group, r.Kind, r.Namespace = copyStr(r.Group), copyStr(r.Kind), copyStr(r.Namespace)
		out.ControllerRef = &r
	}
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	return out
}

func copyStr(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

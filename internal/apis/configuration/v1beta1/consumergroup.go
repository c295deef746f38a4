package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// KongConsumerGroup is a Kong consumer group (Kong Enterprise). KongConsumers join it by
// listing its name in consumerGroups; konghq.com/plugins on it attaches plugins scoped to the
// group. KIC names the Kong group after metadata.name and tags it like every object; the spec
// fields are the Kong operator's (Konnect) and KIC does not translate them: they are decoded so
// that kongsync can say so, and controlPlaneRef because KIC serves only objects whose
// controlPlaneRef is unset or of type kic. Its status conditions carry Programmed, as KIC writes
// it on KongConsumerGroups (status.ProgrammedWriter).
type KongConsumerGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KongConsumerGroupSpec   `json:"spec,omitempty"`
	Status KongConsumerGroupStatus `json:"status,omitempty"`
}

// KongConsumerGroupStatus is the status part kongsync reads and writes: the conditions.
type KongConsumerGroupStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ServedByKIC reports whether KIC's controllers reconcile the group: its controlPlaneRef is
// unset or of type kic.
func (in *KongConsumerGroup) ServedByKIC() bool { return in.Spec.ControlPlaneRef.ForKIC() }

// KongConsumerGroupSpec mirrors the CRD's spec.
type KongConsumerGroupSpec struct {
	// Name is the Kong name the Kong operator gives the group; KIC ignores it.
	Name string `json:"name,omitempty"`
	// Tags are the Kong operator's extra tags; KIC ignores them (konghq.com/tags is read).
	Tags            []string         `json:"tags,omitempty"`
	ControlPlaneRef *ControlPlaneRef `json:"controlPlaneRef,omitempty"`
}

// ControlPlaneRef says which control plane reconciles an object: "kic" (or unset) is KIC's
// (and kongsync's), konnectNamespacedRef/konnectID the Kong operator's.
type ControlPlaneRef struct {
	Type                 string                `json:"type,omitempty"`
	KonnectID            *string               `json:"konnectID,omitempty"`
	KonnectNamespacedRef *KonnectNamespacedRef `json:"konnectNamespacedRef,omitempty"`
}

// KonnectNamespacedRef names a Konnect control plane object in the cluster.
type KonnectNamespacedRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// ControlPlaneRefKIC is the controlPlaneRef type of objects KIC reconciles.
const ControlPlaneRefKIC = "kic"

// ForKIC reports whether KIC (and so kongsync) reconciles an object with this reference: it is
// unset, or of type kic (the CRD's default).
func (r *ControlPlaneRef) ForKIC() bool {
	return r == nil || r.Type == "" || r.Type == ControlPlaneRefKIC
}

// DeepCopy returns an independent copy (nil for nil).
func (r *ControlPlaneRef) DeepCopy() *ControlPlaneRef {
	if r == nil {
		return nil
	}
	c := ControlPlaneRef{Type: r.Type, KonnectID: clonePtr(r.KonnectID)}
	if r.KonnectNamespacedRef != nil {
		n := *r.KonnectNamespacedRef
		c.KonnectNamespacedRef = &n
	}
	return &c
}

// DeepCopyObject implements runtime.Object.
func (in *KongConsumerGroup) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongConsumerGroup) DeepCopy() *KongConsumerGroup {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Tags != nil {
		out.Spec.Tags = append([]string(nil), in.Spec.Tags...)
	}
	out.Spec.ControlPlaneRef = in.Spec.ControlPlaneRef.DeepCopy()
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return &out
}

package v1alpha1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
)

// KongVaultKind is the kind of KongVault objects.
const KongVaultKind = "KongVault"

// KongVault is a Kong vault (cluster-scoped): a secret store that Kong configuration values
// reference as {vault://<prefix>/...}. KIC makes one Kong vault entity per served object, named
// by spec.backend, keyed by spec.prefix (unique in Kong). Its status conditions carry
// Programmed, as KIC writes it on KongVaults (status.ProgrammedWriter).
type KongVault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KongVaultSpec   `json:"spec,omitempty"`
	Status KongVaultStatus `json:"status,omitempty"`
}

// KongVaultSpec mirrors the CRD's spec.
type KongVaultSpec struct {
	// Backend is the Kong vault's name: the kind of store (env, aws, gcp, hcv, azure, konnect).
	Backend string `json:"backend"`
	// Prefix is what references name the vault by; the CRD makes it immutable.
	Prefix string `json:"prefix"`
	// Description is copied to the Kong vault when not empty.
	Description string `json:"description,omitempty"`
	// Config is the backend's configuration, kept as raw JSON (the CRD allows any value; KIC
	// refuses one that is not an object).
	Config json.RawMessage `json:"config,omitempty"`
	// Tags are the Kong operator's extra tags; KIC ignores them (konghq.com/tags is read).
	Tags []string `json:"tags,omitempty"`
	// ControlPlaneRef: KIC serves only vaults whose reference is unset or of type kic.
	ControlPlaneRef *configurationv1beta1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`
}

// KongVaultStatus is the status part kongsync reads and writes: the conditions.
type KongVaultStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ServedByKIC reports whether KIC's controllers reconcile the vault: its controlPlaneRef is
// unset or of type kic.
func (in *KongVault) ServedByKIC() bool { return in.Spec.ControlPlaneRef.ForKIC() }

// DeepCopyObject implements runtime.Object.
func (in *KongVault) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongVault) DeepCopy() *KongVault {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Config != nil {
		out.Spec.Config = append(json.RawMessage(nil), in.Spec.Config...)
	}
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

// Package v1 holds the subset of Kong's configuration.konghq.com/v1 custom resources that
// kongsync reads, with the same JSON shape as the CRDs KIC installs. They are our own minimal
// types rather than Kong's kubernetes-configuration module, which pulls in the whole Kong
// operator API surface for four structs.
package v1

import (
	"encoding/json"

	"github.com/kong/go-kong/kong"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
)

// SchemeGroupVersion is configuration.konghq.com/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: "configuration.konghq.com", Version: "v1"}

// KongConsumer is a Kong consumer, with references to Secrets holding its credentials.
type KongConsumer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Username       string           `json:"username,omitempty"`
	CustomID       string           `json:"custom_id,omitempty"`
	Credentials    []string         `json:"credentials,omitempty"`
	ConsumerGroups []string         `json:"consumerGroups,omitempty"`
	Spec           KongConsumerSpec `json:"spec,omitempty"`
	Status         Status           `json:"status,omitempty"`
}

// Status is the status subresource's part kongsync reads and writes: the conditions, where the
// status writer keeps Programmed (status.ProgrammedWriter).
type Status struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

func (in Status) deepCopy() Status {
	if in.Conditions == nil {
		return in
	}
	out := Status{Conditions: make([]metav1.Condition, len(in.Conditions))}
	for i := range in.Conditions {
		in.Conditions[i].DeepCopyInto(&out.Conditions[i])
	}
	return out
}

// KongConsumerSpec carries the consumer's extra tags and its controlPlaneRef: KIC's controllers
// skip a KongConsumer whose reference names another control plane (the Kong operator's).
type KongConsumerSpec struct {
	Tags            []string                              `json:"tags,omitempty"`
	ControlPlaneRef *configurationv1beta1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`
}

// ServedByKIC reports whether KIC's controllers reconcile the consumer: its controlPlaneRef is
// unset or of type kic.
func (in *KongConsumer) ServedByKIC() bool { return in.Spec.ControlPlaneRef.ForKIC() }

// KongPlugin is a namespaced plugin configuration, attached to objects by the
// konghq.com/plugins annotation.
type KongPlugin struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	PluginFields
	Status Status `json:"status,omitempty"`
}

// KongClusterPlugin is the cluster-scoped form of KongPlugin.
type KongClusterPlugin struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	PluginFields
	Status Status `json:"status,omitempty"`
}

// PluginFields are the top-level fields KongPlugin and KongClusterPlugin share; embedded, they
// keep the CRDs' flat JSON shape.
type PluginFields struct {
	PluginName   string          `json:"plugin"`
	InstanceName string          `json:"instance_name,omitempty"`
	Disabled     bool            `json:"disabled,omitempty"`
	Config       json.RawMessage `json:"config,omitempty"`
	// RunOn is decoded only to be dropped, as KIC drops it: Kong 3.x has no such field.
	RunOn     string   `json:"run_on,omitempty"`
	Protocols []string `json:"protocols,omitempty"`
	// ConfigFrom takes the whole config from a Secret key instead of Config.
	ConfigFrom *ConfigSource `json:"configFrom,omitempty"`
	// ConfigPatches set values from Secret keys at JSON pointers into Config.
	ConfigPatches []ConfigPatch `json:"configPatches,omitempty"`
	// Ordering is Kong's dynamic plugin ordering (Enterprise), passed through.
	Ordering *kong.PluginOrdering `json:"ordering,omitempty"`
}

// ConfigSource names the Secret key a plugin's config, or a patch value, is read from.
type ConfigSource struct {
	SecretValue SecretValueFromSource `json:"secretKeyRef"`
}

// SecretValueFromSource is a key of a Secret. Namespace is read only for KongClusterPlugins
// (which have no namespace of their own); a KongPlugin reads its own namespace, as in KIC,
// whose KongPlugin type has no such field.
type SecretValueFromSource struct {
	Namespace string `json:"namespace,omitempty"`
	Secret    string `json:"name"`
	Key       string `json:"key"`
}

// ConfigPatch sets the JSON value stored in a Secret key at Path (a JSON pointer) of the config.
type ConfigPatch struct {
	Path      string       `json:"path"`
	ValueFrom ConfigSource `json:"valueFrom"`
}

// DeepCopyObject implements runtime.Object.
func (in *KongConsumer) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongConsumer) DeepCopy() *KongConsumer {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Credentials = cloneStrings(in.Credentials)
	out.ConsumerGroups = cloneStrings(in.ConsumerGroups)
	out.Spec.Tags = cloneStrings(in.Spec.Tags)
	out.Spec.ControlPlaneRef = in.Spec.ControlPlaneRef.DeepCopy()
	out.Status = in.Status.deepCopy()
	return &out
}

// DeepCopyObject implements runtime.Object.
func (in *KongPlugin) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy.
func (in *KongPlugin) DeepCopy() *KongPlugin {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.PluginFields = in.PluginFields.deepCopy()
	out.Status = in.Status.deepCopy()
	return &out
}

// DeepCopyObject implements runtime.Object.
func (in *KongClusterPlugin) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy.
func (in *KongClusterPlugin) DeepCopy() *KongClusterPlugin {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.PluginFields = in.PluginFields.deepCopy()
	out.Status = in.Status.deepCopy()
	return &out
}

func (in PluginFields) deepCopy() PluginFields {
	out := in
	out.Config = append(json.RawMessage(nil), in.Config...)
	out.Protocols = cloneStrings(in.Protocols)
	if in.ConfigFrom != nil {
		c := *in.ConfigFrom
		out.ConfigFrom = &c
	}
	if in.ConfigPatches != nil {
		out.ConfigPatches = append([]ConfigPatch(nil), in.ConfigPatches...)
	}
	out.Ordering = in.Ordering.DeepCopy()
	return out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

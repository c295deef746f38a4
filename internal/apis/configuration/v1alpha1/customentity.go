package v1alpha1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// KongCustomEntityKind is the kind of KongCustomEntity objects.
const KongCustomEntityKind = "KongCustomEntity"

// KongCustomEntity (namespaced) is a Kong entity of a type KIC has no kind for, typically one a
// plugin brings (degraphql_routes): spec.type is the declarative config's top-level key,
// spec.fields the entity itself. When spec.parentRef names a KongPlugin or KongClusterPlugin,
// KIC makes one entity per Kong service, route or consumer that plugin is attached to, filling
// the entity's foreign-key fields (as Kong's schema of the type declares them) with their ids.
// KIC reads it with its KongCustomEntity feature gate on (the default); its class is
// spec.controllerName.
type KongCustomEntity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KongCustomEntitySpec   `json:"spec"`
	Status KongCustomEntityStatus `json:"status,omitempty"`
}

// KongCustomEntitySpec mirrors the CRD's spec (kubernetes-configuration v1.5.2): type, fields
// and controllerName are required, parentRef optional.
type KongCustomEntitySpec struct {
	// EntityType is the Kong entity type (the CRD's spec.type), immutable.
	EntityType string `json:"type"`
	// Fields is the entity, kept as raw JSON: the CRD allows any value (preserve-unknown-fields);
	// KIC needs an object. nil when absent.
	Fields json.RawMessage `json:"fields,omitempty"`
	// ControllerName is the class the entity belongs to, matched like an ingress class.
	ControllerName string `json:"controllerName"`
	// ParentRef is the KongPlugin or KongClusterPlugin whose attachments the entity follows.
	ParentRef *ObjectReference `json:"parentRef,omitempty"`

	// missing are the required fields the decoded JSON lacked ("type", "fields",
	// "controllerName"): the API server refuses such an object; a manifest may hold one.
	missing []string
	seen    bool // decoded from JSON (false: spec absent, or built in Go)
}

// Missing lists the required spec fields the decoded JSON lacked, in schema order.
func (s *KongCustomEntitySpec) Missing() []string { return s.missing }

// Decoded reports whether the spec was decoded from JSON: an entity decoded without it lacks
// the required spec.
func (s *KongCustomEntitySpec) Decoded() bool { return s.seen }

// UnmarshalJSON decodes the spec, noting which required fields are absent or null (the API
// server drops a null before checking required fields, so it refuses both).
func (s *KongCustomEntitySpec) UnmarshalJSON(data []byte) error {
	var raw struct {
		EntityType     *string          `json:"type"`
		Fields         json.RawMessage  `json:"fields"`
		ControllerName *string          `json:"controllerName"`
		ParentRef      *ObjectReference `json:"parentRef"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = KongCustomEntitySpec{ParentRef: raw.ParentRef, seen: true}
	if raw.EntityType != nil {
		s.EntityType = *raw.EntityType
	} else {
		s.missing = append(s.missing, "type")
	}
	if len(raw.Fields) > 0 && string(raw.Fields) != "null" {
		s.Fields = raw.Fields
	} else {
		s.missing = append(s.missing, "fields")
	}
	if raw.ControllerName != nil {
		s.ControllerName = *raw.ControllerName
	} else {
		s.missing = append(s.missing, "controllerName")
	}
	return nil
}

// ObjectReference is spec.parentRef: group and kind optional (KIC attaches only to group
// configuration.konghq.com, kind KongPlugin or KongClusterPlugin, the CRD's enum), namespace
// optional (the entity's own when empty), name required.
type ObjectReference struct {
	Group     *string `json:"group,omitempty"`
	Kind      *string `json:"kind,omitempty"`
	Namespace *string `json:"namespace,omitempty"`
	Name      string  `json:"name"`

	nameMissing bool // decoded from JSON without name, which the CRD requires
}

// NameMissing reports whether the reference was decoded from JSON without its required name.
func (r *ObjectReference) NameMissing() bool { return r.nameMissing }

// UnmarshalJSON decodes the reference, noting an absent name (a zero value cannot tell).
func (r *ObjectReference) UnmarshalJSON(data []byte) error {
	type plain ObjectReference
	var raw struct {
		plain
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*r = ObjectReference(raw.plain)
	if raw.Name != nil {
		r.Name = *raw.Name
	} else {
		r.nameMissing = true
	}
	return nil
}

// KongCustomEntityStatus is the status part kongsync reads and writes: the conditions
// (Programmed, as KIC writes it).
type KongCustomEntityStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ServedByClass is KIC's class filter of KongCustomEntities (its reconciler's and its store's
// together): spec.controllerName names the class, or is empty while the class is the cluster
// default and no kubernetes.io/ingress.class annotation names another.
func (in *KongCustomEntity) ServedByClass(class string, isDefault bool) bool {
	if in.Spec.ControllerName == class {
		return true
	}
	ann, has := in.Annotations["kubernetes.io/ingress.class"]
	return in.Spec.ControllerName == "" && isDefault && (!has || ann == class)
}

// DeepCopyObject implements runtime.Object.
func (in *KongCustomEntity) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongCustomEntity) DeepCopy() *KongCustomEntity {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Fields != nil {
		out.Spec.Fields = append(json.RawMessage(nil), in.Spec.Fields...)
	}
	out.Spec.missing = append([]string(nil), in.Spec.missing...)
	if r := in.Spec.ParentRef; r != nil {
		cp := *r
		cp.Group, cp.Kind, cp.Namespace = copyStr(r.Group), copyStr(r.Kind), copyStr(r.Namespace)
		out.Spec.ParentRef = &cp
	}
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return &out
}

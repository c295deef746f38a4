package store

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
)

// customEntityParentKinds is the enum of spec.parentRef.kind.
var customEntityParentKinds = []string{"KongPlugin", "KongClusterPlugin"}

// KnownEntityTypes are the Kong entity types a KongCustomEntity may not have: KIC translates
// them from its own kinds. The CRD's rule ("The type field cannot be one of the known Kong
// entity types") and KIC's translator (IsKnownEntityType) refuse the same list.
var KnownEntityTypes = []string{"services", "routes", "upstreams", "targets", "plugins", "consumers", "consumer_groups"}

// validateCustomEntity is KongCustomEntity's schema (kubernetes-configuration v1.5.2): spec
// required, with type, fields and controllerName (any value: fields preserves unknown fields,
// null dropped as absent); spec.parentRef.name required and spec.parentRef.kind one of
// KongPlugin, KongClusterPlugin; the CEL rule refusing the known entity types. The other rule
// (spec.type immutable) is a transition rule.
func validateCustomEntity(e *configurationv1alpha1.KongCustomEntity) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	if !e.Spec.Decoded() {
		return append(errs, field.Required(sp, ""))
	}
	for _, m := range e.Spec.Missing() {
		errs = append(errs, field.Required(sp.Child(m), ""))
	}
	if r := e.Spec.ParentRef; r != nil {
		if r.NameMissing() {
			errs = append(errs, field.Required(sp.Child("parentRef", "name"), ""))
		}
		if r.Kind != nil && !contains(customEntityParentKinds, *r.Kind) {
			errs = append(errs, field.NotSupported(sp.Child("parentRef", "kind"), *r.Kind, customEntityParentKinds))
		}
	}
	if contains(KnownEntityTypes, e.Spec.EntityType) {
		errs = append(errs, field.Invalid(sp, e.Spec.EntityType, "The type field cannot be one of the known Kong entity types"))
	}
	return errs
}

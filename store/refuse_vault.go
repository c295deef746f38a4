package store

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
)

// controlPlaneRefTypes is the enum of spec.controlPlaneRef.type in Kong's CRDs.
var controlPlaneRefTypes = []string{"konnectID", "konnectNamespacedRef", "kic"}

// validateVault is KongVault's schema (kubernetes-configuration v1.5.2): spec.backend and
// spec.prefix required and not empty (minLength 1; the lean type cannot tell an absent field
// from an empty one, and the API server refuses both), spec.tags at most 20 entries of 1 to 128
// characters (maxItems and the CEL rule "tags entries must not be longer than 128 characters"),
// and the enum of spec.controlPlaneRef.type. The CRD's other rules are transition rules
// (oldSelf) or on Konnect's parts of controlPlaneRef (translator/crdrules_test.go lists them).
func validateVault(v *configurationv1alpha1.KongVault) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	if v.Spec.Backend == "" {
		errs = append(errs, field.Required(sp.Child("backend"), "must be at least 1 character"))
	}
	if v.Spec.Prefix == "" {
		errs = append(errs, field.Required(sp.Child("prefix"), "must be at least 1 character"))
	}
	tp := sp.Child("tags")
	if n := len(v.Spec.Tags); n > 20 {
		errs = append(errs, field.TooMany(tp, n, 20))
	}
	for i, t := range v.Spec.Tags {
		if n := len([]rune(t)); n < 1 || n > 128 {
			errs = append(errs, field.Invalid(tp.Index(i), t, "tags entries must not be longer than 128 characters"))
		}
	}
	if r := v.Spec.ControlPlaneRef; r != nil && r.Type != "" && !contains(controlPlaneRefTypes, r.Type) {
		errs = append(errs, field.NotSupported(sp.Child("controlPlaneRef", "type"), r.Type, controlPlaneRefTypes))
	}
	return errs
}

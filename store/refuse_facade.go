package store

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
)

// validateFacade is KongServiceFacade's schema (kubernetes-configuration v1.5.x): spec.backendRef
// with its name and port required. The schema bounds neither (an empty name or a port Kong
// refuses is the translator's problem); spec itself required is seen as backendRef missing,
// the lean type not telling an absent spec from an empty one. Manifests are the objects checked,
// and they are decoded from JSON, so an absent backendRef is told from a zero one.
func validateFacade(f *incubatorv1alpha1.KongServiceFacade) field.ErrorList {
	var errs field.ErrorList
	bp := field.NewPath("spec", "backendRef")
	if !f.Spec.Backend.Decoded() {
		return append(errs, field.Required(bp, ""))
	}
	for _, m := range f.Spec.Backend.Missing() {
		errs = append(errs, field.Required(bp.Child(m), ""))
	}
	return errs
}

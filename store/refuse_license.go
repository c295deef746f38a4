package store

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
)

// validateLicense is KongLicense's schema (kubernetes-configuration v1.5.2): rawLicenseString
// required (an empty string passes the schema; the translator skips it). enabled is required
// too, but defaulted to true, so an absent one is never refused. The refusal never quotes the
// license: it is a secret.
func validateLicense(l *configurationv1alpha1.KongLicense) field.ErrorList {
	if l.RawLicenseString == nil {
		return field.ErrorList{field.Required(field.NewPath("rawLicenseString"), "")}
	}
	return nil
}

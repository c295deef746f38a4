// Package configuration holds no code: its test walks Kong's published CRD schemas
// (internal/apis/kongcrds) against kongsync's own types in its v1 and v1beta1 packages, so that
// a field of the CRDs users install is either decoded or listed, with a reason, as ignored.
package configuration

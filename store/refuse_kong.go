package store

import (
	"bytes"

	"k8s.io/apimachinery/pkg/util/validation/field"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
)

// The rules of Kong's published CRDs (kubernetes-configuration v1.5.2, config/crd/
// ingress-controller) that the translator does not already check on every source: evaluating
// the CRDs' OpenAPI schemas and CEL rules with k8s.io/apiextensions-apiserver would add ~10 MB
// to the binary (docs/bad-input.md), so the few rules of the kinds kongsync reads are Go
// checks here, and translator/crdrules_test.go asserts that every x-kubernetes-validations rule
// of those CRDs is covered (here or by the translator) or listed as not applicable.

var (
	pluginProtocols = []string{"http", "https", "grpc", "grpcs", "tcp", "tls", "udp"}
	pluginRunOn     = []string{"first", "second", "all"}
)

// validatePluginFields is KongPlugin's and KongClusterPlugin's schema: the protocols and run_on
// enums, and the CEL rules "Using both config and configFrom fields is not allowed." and "Using
// both configFrom and configPatches fields is not allowed." (has(self.config) is true for any
// config, even {}). The schema's required fields (plugin, secretKeyRef's name, key and, for
// KongClusterPlugin, namespace, a patch's path) are present-or-absent rules that an empty string
// satisfies; the lean types cannot tell the two apart, and the translator reports an empty one.
func validatePluginFields(f *configurationv1.PluginFields) field.ErrorList {
	var errs field.ErrorList
	for i, p := range f.Protocols {
		if !contains(pluginProtocols, p) {
			errs = append(errs, field.NotSupported(field.NewPath("protocols").Index(i), p, pluginProtocols))
		}
	}
	if f.RunOn != "" && !contains(pluginRunOn, f.RunOn) {
		errs = append(errs, field.NotSupported(field.NewPath("run_on"), f.RunOn, pluginRunOn))
	}
	hasConfig := len(bytes.TrimSpace(f.Config)) > 0 && string(bytes.TrimSpace(f.Config)) != "null"
	if hasConfig && f.ConfigFrom != nil {
		errs = append(errs, field.Forbidden(field.NewPath("configFrom"), "Using both config and configFrom fields is not allowed."))
	}
	if f.ConfigFrom != nil && len(f.ConfigPatches) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("configPatches"), "Using both configFrom and configPatches fields is not allowed."))
	}
	return errs
}

// validateConsumer is KongConsumer's spec.tags schema: at most 20 tags (maxItems) and the CEL
// rule "tags entries must not be longer than 128 characters" (self.all(tag, size(tag) >= 1 &&
// size(tag) <= 128); CEL's size counts characters).
func validateConsumer(c *configurationv1.KongConsumer) field.ErrorList {
	var errs field.ErrorList
	tp := field.NewPath("spec", "tags")
	if n := len(c.Spec.Tags); n > 20 {
		errs = append(errs, field.TooMany(tp, n, 20))
	}
	for i, t := range c.Spec.Tags {
		if n := len([]rune(t)); n < 1 || n > 128 {
			errs = append(errs, field.Invalid(tp.Index(i), t, "tags entries must not be longer than 128 characters"))
		}
	}
	return errs
}

// validateStreamRules is TCPIngress's and UDPIngress's schema (they have no CEL rules): each
// rule's port and backend servicePort between 1 and 65535 (required, minimum 1) and its
// backend serviceName not empty (minLength 1).
func validateStreamRules(ports, servicePorts []int, serviceNames []string) field.ErrorList {
	var errs field.ErrorList
	for i := range ports {
		rp := field.NewPath("spec", "rules").Index(i)
		if ports[i] < 1 || ports[i] > 65535 {
			errs = append(errs, field.Invalid(rp.Child("port"), ports[i], "must be between 1 and 65535"))
		}
		if servicePorts[i] < 1 || servicePorts[i] > 65535 {
			errs = append(errs, field.Invalid(rp.Child("backend", "servicePort"), servicePorts[i], "must be between 1 and 65535"))
		}
		if serviceNames[i] == "" {
			errs = append(errs, field.Required(rp.Child("backend", "serviceName"), ""))
		}
	}
	return errs
}

// validateStreamIngress checks the rules of a TCPIngress or UDPIngress.
func validateStreamIngress(rules []configurationv1beta1.StreamRule) field.ErrorList {
	var ports, sp []int
	var names []string
	for _, r := range rules {
		ports, sp, names = append(ports, r.Port), append(sp, r.Backend.ServicePort), append(names, r.Backend.ServiceName)
	}
	return validateStreamRules(ports, sp, names)
}

package store

import (
	"fmt"
	"net/netip"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's rules for the built-in kinds kongsync reads. k8s.io/kubernetes's validation
// packages (pkg/apis/networking/validation, pkg/apis/core/validation, …) cannot be required as
// a library: the module replaces its staging modules with v0.0.0 and validates internal types
// (with conversion from v1 through its whole API machinery); k8s.io/api has no validation. So
// each rule below is the one named in its comment, with apimachinery's helpers, and only the
// create-time rules that matter for what kongsync reads; defaulted fields (a Service's type and
// protocol, a path's scope) count as their default.

// validateIngress is networking/validation.ValidateIngressCreate's spec checks.
func validateIngress(ing *networkingv1.Ingress) field.ErrorList {
	var errs field.ErrorList
	spec, sp := &ing.Spec, field.NewPath("spec")
	// ValidateIngressSpec: "either `defaultBackend` or `rules` must be specified".
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Required(sp, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, sp.Child("defaultBackend"))...)
	}
	for i := range spec.Rules {
		errs = append(errs, validateIngressRule(&spec.Rules[i], sp.Child("rules").Index(i))...)
	}
	for i, tls := range spec.TLS {
		p := sp.Child("tls").Index(i)
		for j, h := range tls.Hosts {
			errs = append(errs, hostErrs(h, p.Child("hosts").Index(j), false)...)
		}
		if tls.SecretName != "" { // validateTLSSecretName: a Secret name when set
			errs = append(errs, nameErrs(apivalidation.NameIsDNSSubdomain, tls.SecretName, p.Child("secretName"))...)
		}
	}
	if spec.IngressClassName != nil { // ValidateIngressClassName
		errs = append(errs, nameErrs(apivalidation.NameIsDNSSubdomain, *spec.IngressClassName, sp.Child("ingressClassName"))...)
	}
	// ValidateIngressCreate also refuses a kubernetes.io/ingress.class annotation that differs
	// from ingressClassName, but on create only: an update adds one unchecked, so a cluster can
	// hold such Ingresses and the translator decides between the two (as KIC does). Not refused.
	return errs
}

// hostErrs is validateIngressRules' and validateIngressTLS's host rule: a DNS-1123 subdomain,
// or a wildcard one (*.example.com), and (for rules) not an IP address.
func hostErrs(host string, p *field.Path, rule bool) field.ErrorList {
	var errs field.ErrorList
	if rule {
		if _, err := netip.ParseAddr(host); err == nil {
			errs = append(errs, field.Invalid(p, host, "must be a DNS name, not an IP address"))
		}
	}
	msgs := validation.IsDNS1123Subdomain(host)
	if strings.Contains(host, "*") {
		msgs = validation.IsWildcardDNS1123Subdomain(host)
	}
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, host, m))
	}
	return errs
}

// validateIngressRule is validateIngressRules, validateHTTPIngressRuleValue and
// validateHTTPIngressPath.
func validateIngressRule(r *networkingv1.IngressRule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if r.Host != "" {
		errs = append(errs, hostErrs(r.Host, p.Child("host"), true)...)
	}
	if r.HTTP == nil {
		return errs
	}
	hp := p.Child("http")
	if len(r.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(hp.Child("paths"), ""))
	}
	for i := range r.HTTP.Paths {
		path := &r.HTTP.Paths[i]
		pp := hp.Child("paths").Index(i)
		errs = append(errs, validatePathType(path, pp)...)
		errs = append(errs, validateIngressBackend(&path.Backend, pp.Child("backend"))...)
	}
	return errs
}

// invalidPathSequences and invalidPathSuffixes are the networking validation's, refused in
// Exact and Prefix paths.
var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

// validatePathType is validateHTTPIngressPath's path rules: pathType required and known; Exact
// and Prefix paths absolute and without dot segments, doubled or encoded slashes;
// ImplementationSpecific paths absolute when set.
func validatePathType(path *networkingv1.HTTPIngressPath, p *field.Path) field.ErrorList {
	if path.PathType == nil {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	switch *path.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(p.Child("path"), path.Path, "must be an absolute path"))
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(path.Path, seq) {
				errs = append(errs, field.Invalid(p.Child("path"), path.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suf := range invalidPathSuffixes {
			if strings.HasSuffix(path.Path, suf) {
				errs = append(errs, field.Invalid(p.Child("path"), path.Path, fmt.Sprintf("cannot end with '%s'", suf)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(p.Child("path"), path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("pathType"), *path.PathType,
			[]string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}))
	}
	return errs
}

// validateIngressBackend is the networking validation's: a Service or a resource backend, not
// both; a Service backend's name (a DNS-1123 label: the relaxed Service name rule) and exactly
// one of port name and number; a resource backend's kind and name.
func validateIngressBackend(b *networkingv1.IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Forbidden(p, "cannot set both resource and service backends")}
	case b.Resource != nil:
		var errs field.ErrorList
		if b.Resource.Kind == "" {
			errs = append(errs, field.Required(p.Child("resource", "kind"), ""))
		}
		if b.Resource.Name == "" {
			errs = append(errs, field.Required(p.Child("resource", "name"), ""))
		}
		return errs
	case b.Service == nil:
		return field.ErrorList{field.Required(p, "resource or service backend is required")}
	}
	var errs field.ErrorList
	s, sp := b.Service, p.Child("service")
	if s.Name == "" {
		errs = append(errs, field.Required(sp.Child("name"), ""))
	} else {
		errs = append(errs, nameErrs(apivalidation.NameIsDNSLabel, s.Name, sp.Child("name"))...)
	}
	switch {
	case s.Port.Name != "" && s.Port.Number != 0:
		errs = append(errs, field.Forbidden(p, "cannot set both port name & port number"))
	case s.Port.Name != "":
		for _, m := range validation.IsValidPortName(s.Port.Name) {
			errs = append(errs, field.Invalid(sp.Child("port", "name"), s.Port.Name, m))
		}
	case s.Port.Number != 0:
		for _, m := range validation.IsValidPortNum(int(s.Port.Number)) {
			errs = append(errs, field.Invalid(sp.Child("port", "number"), s.Port.Number, m))
		}
	default:
		errs = append(errs, field.Required(p, "port name or number is required"))
	}
	return errs
}

// validateIngressClass is ValidateIngressClass's spec checks: a controller (a domain-prefixed
// path of at most 250 bytes) and, when set, parameters naming a kind and a name, with a
// namespace exactly when their scope (default Cluster) is Namespace.
func validateIngressClass(ic *networkingv1.IngressClass) field.ErrorList {
	sp := field.NewPath("spec")
	var errs field.ErrorList
	if len(ic.Spec.Controller) > 250 {
		errs = append(errs, field.TooLong(sp.Child("controller"), "", 250))
	}
	errs = append(errs, validation.IsDomainPrefixedPath(sp.Child("controller"), ic.Spec.Controller)...)
	prm := ic.Spec.Parameters
	if prm == nil {
		return errs
	}
	pp := sp.Child("parameters")
	if prm.Kind == "" {
		errs = append(errs, field.Required(pp.Child("kind"), ""))
	}
	if prm.Name == "" {
		errs = append(errs, field.Required(pp.Child("name"), ""))
	}
	scope := networkingv1.IngressClassParametersReferenceScopeCluster
	if prm.Scope != nil {
		scope = *prm.Scope
	}
	switch {
	case scope != networkingv1.IngressClassParametersReferenceScopeCluster && scope != networkingv1.IngressClassParametersReferenceScopeNamespace:
		errs = append(errs, field.NotSupported(pp.Child("scope"), scope, []string{"Cluster", "Namespace"}))
	case scope == networkingv1.IngressClassParametersReferenceScopeNamespace && prm.Namespace == nil:
		errs = append(errs, field.Required(pp.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
	case scope == networkingv1.IngressClassParametersReferenceScopeCluster && prm.Namespace != nil:
		errs = append(errs, field.Forbidden(pp.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
	}
	return errs
}

// nameErrs applies a name rule to a field that names another object.
func nameErrs(rule apivalidation.ValidateNameFunc, name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, m := range rule(name, false) {
		errs = append(errs, field.Invalid(p, name, m))
	}
	return errs
}

// ingressNotes says which parts of a stored Ingress route nothing: a rule with a host and no
// http section is valid (a host claimed, say, for TLS only) but gives Kong no route.
func ingressNotes(ing *networkingv1.Ingress) []string {
	var notes []string
	for i, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			what := "a rule without a host"
			if r.Host != "" {
				what = "host " + quoteShort(r.Host)
			}
			notes = append(notes, fmt.Sprintf("spec.rules[%d]: %s has no http paths; it routes nothing", i, what))
		}
	}
	return notes
}

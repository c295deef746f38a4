package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	icp "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The IngressClass this controller serves (Options.IngressClass) may name, in spec.parameters,
// an IngressClassParameters object whose settings apply to the whole translation, as in KIC:
// serviceUpstream to every Kong upstream's targets, enableLegacyRegexDetection to every
// Ingress path. Pieces that depend on them read both objects through the recording view
// (classParams), so that a change to either re-translates exactly those pieces; assemble
// reports a reference it cannot follow (classParamsProblems).

// classParams returns the settings of our IngressClass's IngressClassParameters, recording
// the reads in the running piece. No class, no parameters, or a reference KIC refuses give
// the defaults (all false), as in KIC.
func (t *translation) classParams() icp.IngressClassParametersSpec {
	c := &t.cp
	if !c.done {
		c.done = true
		if ic, ok := t.snap.snap.IngressClass(t.opts.IngressClass); ok {
			c.class = ic
			c.ns, c.name, c.refErr = paramsRef(ic)
			if c.refErr == "" && c.name != "" {
				c.params, _ = t.snap.snap.IngressClassParameters(c.ns, c.name)
			}
		}
	}
	var class, params store.Object
	if c.class != nil {
		class = c.class
	}
	t.snap.note(store.KindIngressClass, "", t.opts.IngressClass, class)
	if c.name == "" {
		return icp.IngressClassParametersSpec{}
	}
	if c.params != nil {
		params = c.params
	}
	t.snap.note(store.KindIngressClassParameters, c.ns, c.name, params)
	if c.params == nil {
		return icp.IngressClassParametersSpec{}
	}
	return c.params.Spec
}

// paramsRef checks an IngressClass's spec.parameters the way KIC does: it must name an
// IngressClassParameters of group configuration.konghq.com, namespaced. No parameters give an
// empty name and no error.
func paramsRef(ic *networkingv1.IngressClass) (ns, name, reason string) {
	p := ic.Spec.Parameters
	switch {
	case p == nil:
		return "", "", ""
	case p.APIGroup == nil || *p.APIGroup != icp.SchemeGroupVersion.Group:
		return "", "", "must name apiGroup " + icp.SchemeGroupVersion.Group
	case p.Kind != icp.IngressClassParametersKind:
		return "", "", "must name kind " + icp.IngressClassParametersKind
	case p.Scope == nil || p.Namespace == nil:
		return "", "", "must name namespaced parameters (scope Namespace and a namespace)"
	}
	return *p.Namespace, p.Name, ""
}

// classParamsProblems reports, once per build, a parameters reference of our IngressClass that
// cannot be followed: KIC logs it and uses the defaults, as kongsync does.
func (t *translation) classParamsProblems() {
	ic, ok := t.snap.snap.IngressClass(t.opts.IngressClass)
	if !ok {
		return
	}
	ref := store.Ref{Kind: store.KindIngressClass, Name: ic.Name}
	ns, name, reason := paramsRef(ic)
	switch {
	case reason != "":
		t.problem(ref, "spec.parameters", "%s; the defaults (serviceUpstream and enableLegacyRegexDetection off) apply", reason)
	case name == "":
	default:
		if _, found := t.snap.snap.IngressClassParameters(ns, name); !found {
			t.missingRef(ref, "spec.parameters", "IngressClassParameters %s/%s not found; the defaults apply", ns, name)
		}
	}
}

// legacyPlainPath reports whether Kong 2.x took p for a plain (not regex) path: only the
// characters of `^[a-zA-Z0-9.\-_~/%]*$`, tested without a regexp (every Ingress path is).
func legacyPlainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '-', c == '_', c == '~', c == '/', c == '%':
		default:
			return false
		}
	}
	return true
}

// legacyRegexPath applies KIC's legacy regex detection (enableLegacyRegexDetection) to a Kong
// route path already through the regex marker: a path that is not already a regex and that
// Kong 2.x would have read as one gets Kong 3's "~" prefix.
func legacyRegexPath(p string) string {
	if strings.HasPrefix(p, kongRegexPrefix) || legacyPlainPath(p) {
		return p
	}
	return kongRegexPrefix + p
}

// legacySensitive reports whether enableLegacyRegexDetection could change any path of ing: a
// path of only the characters Kong 2.x took for plain ones stays as it is whatever its type
// (Prefix and Exact add only "/", "~" and "$" to a regex that already starts with "~"). Only
// the pieces of such Ingresses read the class parameters.
func legacySensitive(ing *networkingv1.Ingress) bool {
	for i := range ing.Spec.Rules {
		if h := ing.Spec.Rules[i].HTTP; h != nil {
			for j := range h.Paths {
				if !legacyPlainPath(h.Paths[j].Path) {
					return true
				}
			}
		}
	}
	return false
}

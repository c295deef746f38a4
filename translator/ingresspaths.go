package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// collapseSlashes replaces every run of slashes with one slash, as KIC does before translating
// a path. It returns p itself when there is nothing to collapse.
func collapseSlashes(p string) string {
	if !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && p[i-1] == '/' {
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// badKongPath reports, and returns true for, an Ingress path that would become a Kong route path
// Kong certainly rejects — and with it the whole configuration: a regex path that does not start
// with "~/" (a regex marker or konghq.com/regex-prefix followed by something other than a
// slash), a regex PCRE2 does not compile (internal/pcre), a % that is not an escape, an empty
// segment, or a plain path with "." or
// ".." segments (Kong wants normalized paths; the API server refuses such Prefix and Exact
// paths, but not ImplementationSpecific ones).
func (t *ingressBuild) badKongPath(ing *networkingv1.Ingress, pos pathPos, path string, pt networkingv1.PathType, rs *routeSettings) bool {
	if !mayBeBadKongPath(path, rs.regexMarker) {
		return false
	}
	var buf [2]string
	for _, kp := range ingressPaths(path, pt, rs.regexMarker, rs.legacyRegex, buf[:0]) {
		why := kongPathProblem(kp)
		if why == "" {
			continue
		}
		if kp == path {
			t.problem(ingressRef(ing), pos.field(".path"), "%s %s; path skipped", quoteShort(path), why)
		} else {
			t.problem(ingressRef(ing), pos.field(".path"), "%s becomes Kong path %s, which %s; path skipped", quoteShort(path), quoteShort(kp), why)
		}
		return true
	}
	return false
}

// mayBeBadKongPath is a cheap filter: only paths that hold regex syntax, a dot segment candidate,
// or the regex marker (or a non-default one) can fail kongPathProblem.
func mayBeBadKongPath(path, marker string) bool {
	return marker != defaultRegexMarker || strings.HasPrefix(path, marker) ||
		strings.ContainsAny(path, regexMeta) || strings.Contains(path, "/.") || strings.Contains(path, "%")
}

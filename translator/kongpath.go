package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// badKongPath reports, and returns true for, an Ingress path that would become a Kong route path
// Kong certainly rejects — and with it the whole configuration: a regex path that does not start
// with "~/" (a regex marker or konghq.com/regex-prefix followed by something other than a
// slash), a regex that does not compile (see certainlyInvalidRegex), or a plain path with "." or
// ".." segments (Kong wants normalized paths; the API server refuses such Prefix and Exact
// paths, but not ImplementationSpecific ones).
func (t *translation) badKongPath(ing *networkingv1.Ingress, pos pathPos, path string, pt networkingv1.PathType, rs *routeSettings) bool {
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
		strings.ContainsAny(path, regexMeta) || strings.Contains(path, "/.")
}

// kongPathProblem says why Kong rejects route path kp, or "".
func kongPathProblem(kp string) string {
	if re, ok := strings.CutPrefix(kp, kongRegexPrefix); ok {
		if !strings.HasPrefix(re, "/") {
			return "is a regex path that does not start with ~/ (Kong requires it)"
		}
		if err := certainlyInvalidRegex(re); err != nil {
			return "is not a valid regular expression (" + syntaxCode(err) + ")"
		}
		return ""
	}
	for _, seg := range strings.Split(kp, "/") {
		if seg == "." || seg == ".." {
			return "has a . or .. segment (Kong accepts only normalized paths)"
		}
	}
	return ""
}

package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// badKongPath reports, and returns true for, an Ingress path that would become a Kong route path
// Kong certainly rejects — and with it the whole configuration: a regex path that does not start
// with "~/" (a regex marker or konghq.com/regex-prefix followed by something other than a
// slash), a regex PCRE2 does not compile (internal/pcre), a % that is not an escape, an empty
// segment, or a plain path with "." or
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
		strings.ContainsAny(path, regexMeta) || strings.Contains(path, "/.") || strings.Contains(path, "%")
}

// kongPathProblem says why Kong rejects route path kp, or "".
func kongPathProblem(kp string) string {
	if why := percentProblem(kp); why != "" {
		return why
	}
	if strings.Contains(kp, "//") {
		return "has an empty segment (Kong refuses //)"
	}
	if re, ok := strings.CutPrefix(kp, kongRegexPrefix); ok {
		if !strings.HasPrefix(re, "/") {
			return "is a regex path that does not start with ~/ (Kong requires it)"
		}
		if why := pcreProblem(re); why != "" {
			return "is not a regular expression PCRE2 compiles (" + why + ")"
		}
		return ""
	}
	if hasDotSegment(kp) {
		return "has a . or .. segment (Kong accepts only normalized paths)"
	}
	return ""
}

// hasDotSegment reports whether a path has a "." or ".." segment, without splitting it.
func hasDotSegment(p string) bool {
	for len(p) > 0 {
		seg := p
		if i := strings.IndexByte(p, '/'); i >= 0 {
			seg, p = p[:i], p[i+1:]
		} else {
			p = ""
		}
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// percentProblem is Kong's check of every route path, regex or not: a % must start a
// two-hex-digit escape.
func percentProblem(kp string) string {
	for i := 0; i < len(kp); i++ {
		if kp[i] == '%' && (i+2 >= len(kp) || !isHexDigit(kp[i+1]) || !isHexDigit(kp[i+2])) {
			return "has a % that does not start a %XX escape (Kong refuses it)"
		}
	}
	return ""
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

package translator

import (
	"errors"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/internal/pcre"
	"github.com/kongsync/kongsync/store"
)

// What Kong refuses in a route, whichever family made it: a path that is not a valid Kong path,
// a header or path regex PCRE2 does not compile. One such route makes Kong refuse the whole
// configuration, so families skip the route with a problem instead.

// kongHeaderRegexPrefix marks a route header value as a regular expression; Kong compiles the
// rest with PCRE2 (traditional router) or refuses the configuration for it (the default
// traditional_compatible router's validation).
const kongHeaderRegexPrefix = "~*"

// pcreProblem says why PCRE2 refuses re, or "".
func pcreProblem(re string) string {
	err := pcre.Check(re)
	if err == nil {
		return ""
	}
	var e *pcre.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// badHeaderRegexes reports every konghq.com/headers.<name> value that is a regex PCRE2 does not
// compile and returns true when there is one: the Ingress's routes are then skipped (dropping
// only the header would widen the route to every request).
func (t *translation) badHeaderRegexes(ref store.Ref, headers map[string][]string) bool {
	names := make([]string, 0, len(headers))
	for name := range headers {
		names = append(names, name)
	}
	sort.Strings(names)
	bad := false
	for _, name := range names {
		for _, v := range headers[name] {
			re, ok := strings.CutPrefix(v, kongHeaderRegexPrefix)
			if !ok {
				continue
			}
			if why := pcreProblem(re); why != "" {
				t.problem(ref, annotationField(annHeadersPrefix+name),
					"header regex %s does not compile with PCRE2 (%s), and Kong refuses it; the Ingress's routes are skipped",
					quoteShort(re), why)
				bad = true
			}
		}
	}
	return bad
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

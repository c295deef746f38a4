package translator

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/internal/pcre"
	"github.com/kongsync/kongsync/store"
)

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

// badHTTPMatches reports, and returns true for, matches of rules g that Kong refuses: a path
// whose Kong path is invalid (a RegularExpression, or an Exact or PathPrefix value, which KIC
// writes into a regex unescaped) or a RegularExpression header value PCRE2 does not compile.
func (h *httpRouteCtx) badHTTPMatches(g []int) bool {
	bad := false
	for _, i := range g {
		for j := range h.r.Spec.Rules[i].Matches {
			m := &h.r.Spec.Rules[i].Matches[j]
			field := func() string { return "spec.rules[" + strconv.Itoa(i) + "].matches[" + strconv.Itoa(j) + "]" }
			if kp, why := pathMatchProblem(m.Path); why != "" {
				h.t.problem(h.ref, field()+".path.value", "Kong path %s %s; the rule's Kong service is skipped", quoteShort(kp), why)
				bad = true
			}
			for k, x := range m.Headers {
				if x.Type == nil || *x.Type != gatewayv1.HeaderMatchRegularExpression {
					continue
				}
				if why := pcreProblem(x.Value); why != "" {
					h.t.problem(h.ref, field()+".headers["+strconv.Itoa(k)+"].value",
						"regex %s does not compile with PCRE2 (%s); the rule's Kong service is skipped", quoteShort(x.Value), why)
					bad = true
				}
			}
		}
	}
	return bad
}

// pathMatchProblem is why Kong would refuse a Kong path of a path match (appendKongPaths), and
// that path; "" when it takes them all. A prefix's plain path /p/ is checked as /p: adding the
// slash makes no empty, dot or percent problem that /p does not have. One allocation at most.
func pathMatchProblem(p *gatewayv1.HTTPPathMatch) (string, string) {
	if p == nil || p.Value == nil {
		return "", ""
	}
	v := *p.Value
	t := gatewayv1.PathMatchPathPrefix
	if p.Type != nil {
		t = *p.Type
	}
	kp := "~" + v + "$"
	if t == gatewayv1.PathMatchRegularExpression {
		kp = kp[:len(kp)-1]
	}
	if why := kongPathProblem(kp); why != "" {
		return kp, why
	}
	if t == gatewayv1.PathMatchPathPrefix {
		if why := kongPathProblem(v); why != "" {
			return v, why
		}
	}
	return "", ""
}

// badGRPCMatch reports, and returns true for, a GRPCRoute method match whose Kong path Kong
// refuses (a RegularExpression service or method that PCRE2 does not compile).
func (t *translation) badGRPCMatch(ref store.Ref, rule int, r *gatewayv1.GRPCRouteRule) bool {
	for m := range r.Matches {
		mm := r.Matches[m].Method
		if mm == nil {
			continue
		}
		kp := "~/" + grpcPathPart(mm.Type, mm.Service, ".+") + "/" + grpcPathPart(mm.Type, mm.Method, "")
		if why := kongPathProblem(kp); why != "" {
			t.problem(ref, "spec.rules["+strconv.Itoa(rule)+"].matches["+strconv.Itoa(m)+"].method",
				"Kong path %s %s; the rule is skipped", quoteShort(kp), why)
			return true
		}
	}
	return false
}

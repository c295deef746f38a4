package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/translator/atc"
)

// Ingress routes under Kong's expressions router, as KIC v3.5.13 writes them: one route per
// (Ingress, host, Service, port) as under the traditional router, with the same name, id and
// tags, matching
//
//	(hosts) && (paths) && (headers) && (methods) && (SNIs)
//
// (each part left out when the route has none) and a priority from what it matches
// (exprPriority). The default backend matches `http.path ^= "/"` with priority 0.

// exprPathMatch adds one Ingress path's match: Prefix `/foo` is `== "/foo"` or `^= "/foo/"`
// (Prefix `/` is `^= "/"`), Exact `/foo` is `== "/foo"`, ImplementationSpecific is a prefix
// match, or, after the regex marker, a regex anchored with ^ (the marker alone is "^/").
func exprPathMatch(m *matchExpr, p exprPath, marker string) {
	switch p.pt {
	case networkingv1.PathTypePrefix:
		// The path is absolute with its slashes collapsed: "/" + base + optionally "/".
		base := strings.Trim(p.path, "/")
		if base == "" {
			m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
			return
		}
		slashed := p.path
		if len(slashed) == len(base)+1 {
			slashed += "/"
		}
		m.or()
		m.str(atc.FieldHTTPPath, atc.OpEqual, slashed[:len(base)+1])
		m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, slashed)
		m.end()
	case networkingv1.PathTypeExact:
		m.str(atc.FieldHTTPPath, atc.OpEqual, p.path) // "/" + the path without leading slashes
	default:
		if re, ok := strings.CutPrefix(p.path, marker); ok {
			m.str(atc.FieldHTTPPath, atc.OpRegexMatch, anchoredRegex(re))
			return
		}
		m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, p.path)
	}
}

// anchoredRegex is a path regex as KIC anchors it: "^/" when empty, else with a leading ^.
func anchoredRegex(re string) string {
	if re == "" {
		return "^/"
	}
	if !strings.HasPrefix(re, "^") {
		return "^" + re
	}
	return re
}

// exprPathLength is the length KIC counts for a path in the route's priority, and whether the
// path counts as a regex (Prefix and Exact do: the traditional router matches them by regex).
func exprPathLength(p exprPath, marker string) (int, bool) {
	switch p.pt {
	case networkingv1.PathTypePrefix:
		if base := strings.Trim(p.path, "/"); base != "" {
			return 2 + len(base), true
		}
		return 1, true
	case networkingv1.PathTypeExact:
		return 1 + len(strings.TrimLeft(p.path, "/")), true
	}
	if re, ok := strings.CutPrefix(p.path, marker); ok {
		return len(re), true
	}
	return len(p.path), false
}

// exprPriority is KIC's priority of an Ingress route under the expressions router. From the
// lowest bit: the longest path's length (bits 0-15, capped), whether a path is a regex (16),
// whether the route has hosts and none is a wildcard (32), the number of headers (33-40,
// capped at 255), the number of kinds of criteria matched (41-43: paths, hosts, headers,
// methods, SNIs), and the Ingress kind (44-45).
func exprPriority(paths []exprPath, marker string, hosts, headers int, plainHosts, methods, snis bool) uint64 {
	var maxLen int
	var regex bool
	for _, p := range paths {
		n, re := exprPathLength(p, marker)
		maxLen = max(maxLen, n)
		regex = regex || re
	}
	fields := 0
	for _, has := range [...]bool{len(paths) > 0, hosts > 0, headers > 0, methods, snis} {
		if has {
			fields++
		}
	}
	prio := uint64(min(maxLen, 1<<16-1))
	if regex {
		prio |= 1 << 16
	}
	if hosts > 0 && plainHosts {
		prio |= 1 << 32
	}
	prio += uint64(min(headers, 255)) << 33
	prio += uint64(fields) << 41
	return prio + priorityKindIngress<<priorityKindShift
}

// exprRuleRoute makes a rule route's expression and priority from its host, the Ingress's
// host aliases and route annotations, and its paths.
func (t *ingressBuild) exprRuleRoute(rs *routeSettings, g *routeGroup) {
	m := &t.expr
	m.reset()
	var o routeOptions
	if rs.opts != nil {
		o = *rs.opts
	}
	hosts, plain := 0, true
	m.and()
	m.or()
	if g.host != "" {
		m.host(g.host)
		hosts, plain = 1, !strings.HasPrefix(g.host, "*")
	}
	if o.aliasesWritten != nil {
		for _, h := range o.aliasesWritten {
			m.host(h)
			plain = plain && !strings.HasPrefix(h, "*")
		}
		hosts += len(o.aliasesWritten)
	} else {
		for _, h := range o.hostAliases {
			m.host(*h)
			plain = plain && !strings.HasPrefix(*h, "*")
		}
		hosts += len(o.hostAliases)
	}
	m.end()
	m.or()
	for _, p := range g.xpaths {
		exprPathMatch(m, p, rs.regexMarker)
	}
	m.end()
	m.annotationHeaders(o.headers)
	m.methods(o.methods)
	m.sniPtrs(o.snis)
	m.end()
	// KIC counts Host header annotations, which it leaves out of the expression, as headers.
	prio := exprPriority(g.xpaths, rs.regexMarker, hosts, len(o.headers)+o.hostHeaders, plain, len(o.methods) > 0, len(o.snis) > 0)
	(&exprRoute{}).apply(&g.route.r.Route, m, prio) // its own allocation: traditional routes carry none
}

// exprDefaultRoute makes the default backend's route match every path, with priority 0.
func exprDefaultRoute(a *routeAlloc) {
	var m matchExpr
	m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
	(&exprRoute{}).apply(&a.r.Route, &m, 0)
}

// badExprPath reports, and returns true for, an Ingress path the expressions router would
// refuse, and with it the whole configuration: a regex (after the regex marker) that does not
// compile. Kong compiles it with Rust's regex crate, whose syntax is RE2's, which Go's
// regexp/syntax parses. It also reports, without skipping the path, that the class
// parameters' enableLegacyRegexDetection does not apply here (KIC ignores it under
// expressions).
func (t *ingressBuild) badExprPath(ing *networkingv1.Ingress, pos pathPos, path string, pt networkingv1.PathType, rs *routeSettings) bool {
	if pt != networkingv1.PathTypeImplementationSpecific {
		return false
	}
	re, ok := strings.CutPrefix(path, rs.regexMarker)
	if !ok {
		if rs.legacyRegex && legacyRegexPath(path) != path {
			t.problem(ingressRef(ing), pos.field(".path"), "%s: legacy regex detection (enableLegacyRegexDetection) does not apply "+
				"under Kong's expressions router, as in KIC; matched as a plain prefix", quoteShort(path))
		}
		return false
	}
	if err := atc.CheckRegex(anchoredRegex(re)); err != nil {
		t.problem(ingressRef(ing), pos.field(".path"), "%s is not a regular expression Kong's expressions router compiles (%s); path skipped",
			quoteShort(path), err.Error())
		return true
	}
	return false
}

package translator

import (
	"slices"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/translator/atc"
)

// exprRoutes are the Kong routes of the rules g of one Kong service under Kong's expressions
// router, as KIC writes them: one per hostname, rule and match (a rule without matches counts
// as one empty match), named httproute.<ns>.<name>.<hostname or _>.<rule>.<match>, each with
// the expression of its hostname and match and the priority of its traits (gwexprorder.go
// orders ties). False when a filter or a match cannot be translated (a problem on the route;
// the Kong service is skipped).
func (h *httpRouteCtx) exprRoutes(g []int) ([]*document.Route, bool) {
	hosts := exprHostnames(h.hosts)
	type ruleCtx struct {
		in, rewrite bool
		tags        []*string
	}
	rules := make([]ruleCtx, len(h.r.Spec.Rules))
	n := 0
	for _, i := range g {
		rule := &h.r.Spec.Rules[i]
		rc := &rules[i]
		rc.in, rc.rewrite, rc.tags = true, slices.ContainsFunc(rule.Filters, isPrefixRewrite), h.p.objTags(h.t, h.ref.Kind, h.r)
		if nm := rule.Name; nm != nil && strings.TrimSpace(string(*nm)) != "" {
			rc.tags = objectTagsWith(h.ref.Kind, h.r, TagNamedRouteRule, []string{string(*nm)})
		}
		n += len(hosts) * max(len(rule.Matches), 1)
	}
	out := make([]*document.Route, 0, n)
	for k := range h.p.ties { // by name: the routes come out sorted
		tie := &h.p.ties[k]
		rc := &rules[tie.rule]
		if !rc.in {
			continue
		}
		var m gatewayv1.HTTPRouteMatch
		if ms := h.r.Spec.Rules[tie.rule].Matches; int(tie.match) < len(ms) {
			m = ms[tie.match]
		}
		r, ok := h.exprRoute(tie, hosts[tie.host], &m, rc.rewrite, rc.tags)
		if !ok {
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

// exprHostnames are the hostnames a route is split by: its effective hosts, or one empty one.
func exprHostnames(hosts []*string) []string {
	if len(hosts) == 0 {
		return []string{""}
	}
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = *h
	}
	return out
}

// exprRouteName is KIC's name of the Kong route of one split match.
func exprRouteName(ns, name, host string, rule, match int) string {
	return routePrefixHTTP + ns + "." + name + "." + hostLabel(host) + "." + strconv.Itoa(rule) + "." + strconv.Itoa(match)
}

const routePrefixHTTP = "httproute."

// hostLabel is a hostname as KIC writes it into a name: "_" for none, each '*' as '_'.
func hostLabel(host string) string {
	if host == "" {
		return "_"
	}
	return strings.ReplaceAll(host, "*", "_")
}

// isPrefixRewrite reports a URLRewrite filter replacing the matched prefix, for which KIC makes
// a PathPrefix match capture the rest of the path.
func isPrefixRewrite(f gatewayv1.HTTPRouteFilter) bool {
	return f.Type == gatewayv1.HTTPRouteFilterURLRewrite && f.URLRewrite != nil && f.URLRewrite.Path != nil &&
		f.URLRewrite.Path.Type == gatewayv1.PrefixMatchHTTPPathModifier
}

// exprRoute is the Kong route of one split match.
func (h *httpRouteCtx) exprRoute(tie *exprTie, host string, mt *gatewayv1.HTTPRouteMatch, rewrite bool,
	tags []*string) (*document.Route, bool) {
	rule, match := int(tie.rule), int(tie.match)
	r := h.base(tie.name, tags)
	r.Hosts = nil
	m := &h.m
	m.reset()
	m.and()
	m.hosts(host)
	if h.rs.opts != nil {
		m.sniPtrs(h.rs.opts.snis)
	}
	httpMatchExpr(m, mt, rewrite)
	m.end()
	if mt.Path != nil && mt.Path.Type != nil && *mt.Path.Type == gatewayv1.PathMatchRegularExpression ||
		len(mt.Headers) > 0 || len(mt.QueryParams) > 0 {
		if err := checkExpr(m); err != nil {
			h.t.problem(h.ref, "spec.rules["+strconv.Itoa(rule)+"].matches["+strconv.Itoa(match)+"]",
				"Kong's expressions router refuses the match (%s); the rule's Kong service is skipped", err.Error())
			return nil, false
		}
	}
	path := ""
	if mt.Path != nil && mt.Path.Value != nil {
		path = *mt.Path.Value
	}
	if !h.applyFilters(r, rule, h.r.Spec.Rules[rule].Filters, path, tags) {
		return nil, false
	}
	r.Paths = nil // a prefix rewrite's paths: the expression captures the rest of the path instead
	exprRouteTail(&exprRoute{}, r, m, tie.base, h.rs)
	if r.HTTPSRedirectStatusCode == nil {
		r.HTTPSRedirectStatusCode = h.t.defaults.code426
	}
	return r, true
}

// httpMatchExpr adds KIC's matcher of an HTTPRoute match to m: an And of its path, headers
// (by name), query parameters (by name) and method, each present.
func httpMatchExpr(m *matchExpr, mt *gatewayv1.HTTPRouteMatch, rewrite bool) {
	m.and()
	if mt.Path != nil {
		pathExpr(m, mt.Path, rewrite)
	}
	if len(mt.Headers) > 0 {
		hs := slices.Clone(mt.Headers)
		slices.SortStableFunc(hs, func(a, b gatewayv1.HTTPHeaderMatch) int { return strings.Compare(string(a.Name), string(b.Name)) })
		m.and()
		for _, x := range hs {
			headerExpr(m, string(x.Name), x.Type == nil || *x.Type == gatewayv1.HeaderMatchExact,
				x.Type != nil && *x.Type == gatewayv1.HeaderMatchRegularExpression, x.Value)
		}
		m.end()
	}
	if len(mt.QueryParams) > 0 {
		qs := slices.Clone(mt.QueryParams)
		slices.SortStableFunc(qs, func(a, b gatewayv1.HTTPQueryParamMatch) int { return strings.Compare(string(a.Name), string(b.Name)) })
		m.and()
		for _, x := range qs {
			switch {
			case x.Type == nil || *x.Type == gatewayv1.QueryParamMatchExact:
				m.str(atc.QueryField(string(x.Name)), atc.OpEqual, x.Value)
			case *x.Type == gatewayv1.QueryParamMatchRegularExpression:
				m.str(atc.QueryField(string(x.Name)), atc.OpRegexMatch, x.Value)
			}
		}
		m.end()
	}
	if mt.Method != nil {
		m.or()
		if validMethod.MatchString(string(*mt.Method)) {
			m.str(atc.FieldHTTPMethod, atc.OpEqual, string(*mt.Method))
		}
		m.end()
	}
	m.end()
}

// headerExpr adds KIC's predicate of one header match (exact or regex; nothing otherwise).
func headerExpr(m *matchExpr, name string, exact, regex bool, value string) {
	switch {
	case exact:
		m.str(atc.HeaderField(name), atc.OpEqual, value)
	case regex:
		m.str(atc.HeaderField(name), atc.OpRegexMatch, value)
	}
}

// pathExpr adds KIC's matcher of a path match. A prefix (its trailing slash dropped) matches
// itself or below it; with a prefix rewrite, below it through a regex capturing the rest.
func pathExpr(m *matchExpr, p *gatewayv1.HTTPPathMatch, rewrite bool) {
	v := ""
	if p.Value != nil {
		v = *p.Value
	}
	switch {
	case p.Type != nil && *p.Type == gatewayv1.PathMatchExact:
		m.str(atc.FieldHTTPPath, atc.OpEqual, v)
		return
	case p.Type != nil && *p.Type == gatewayv1.PathMatchRegularExpression:
		if !strings.HasPrefix(v, "^") {
			v = "^" + v
		}
		m.str(atc.FieldHTTPPath, atc.OpRegexMatch, v)
		return
	}
	if v == "" || v == "/" {
		v = "/"
	} else {
		v = strings.TrimSuffix(v, "/")
	}
	if !rewrite && v == "/" {
		m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
		return
	}
	m.or()
	m.str(atc.FieldHTTPPath, atc.OpEqual, v)
	switch {
	case rewrite && v == "/":
		m.str(atc.FieldHTTPPath, atc.OpRegexMatch, "^/(.*)")
	case rewrite:
		m.str(atc.FieldHTTPPath, atc.OpRegexMatch, "^"+v+"(/.*)")
	default:
		m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, v+"/")
	}
	m.end()
}

// httpBasePriority is KIC's priority of an HTTPRoute split match without the relative-order
// bits: bit 43 a precise hostname, 35-42 the hostname's length, 34 an Exact path, 33 a
// RegularExpression one, 23-32 the path's length less one, 22 a method, 17-21 the header
// matches, 12-16 the query parameter matches, 44-45 the kind (sums, as KIC adds them).
func httpBasePriority(host string, m *gatewayv1.HTTPRouteMatch) uint64 {
	var p uint64
	if host != "" {
		p += uint64(len(host)) << 35
		if !strings.HasPrefix(host, "*") {
			p += 1 << 43
		}
	}
	if m.Path != nil {
		if t := m.Path.Type; t != nil && *t == gatewayv1.PathMatchExact {
			p += 1 << 34
		} else if t != nil && *t == gatewayv1.PathMatchRegularExpression {
			p += 1 << 33
		}
		if m.Path.Value != nil && len(*m.Path.Value) > 0 {
			p += uint64(len(*m.Path.Value)-1) << 23
		}
	}
	p += uint64(len(m.Headers)) << 17
	if m.Method != nil {
		p += 1 << 22
	}
	p += uint64(len(m.QueryParams)) << 12
	return p + priorityKindHTTPRoute<<priorityKindShift
}

// httpTies are the split matches of every rule of an HTTPRoute (those of rules whose Kong
// service is skipped too: KIC orders them all), sorted by Kong route name.
func (h *httpRouteCtx) httpTies() []exprTie {
	hosts := exprHostnames(h.hosts)
	var out []exprTie
	for i := range h.r.Spec.Rules {
		rule := &h.r.Spec.Rules[i]
		for hi, host := range hosts {
			for j := 0; j < max(len(rule.Matches), 1); j++ {
				var m gatewayv1.HTTPRouteMatch
				if j < len(rule.Matches) {
					m = rule.Matches[j]
				}
				out = append(out, exprTie{name: exprRouteName(h.ref.Namespace, h.ref.Name, host, i, j),
					base: httpBasePriority(host, &m), rule: int32(i), match: int32(j), host: int32(hi)})
			}
		}
	}
	slices.SortFunc(out, func(a, b exprTie) int { return strings.Compare(a.name, b.name) })
	return out
}

package translator

import (
	"slices"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
)

// exprRoutes are the Kong routes of the rules g of one Kong service under Kong's expressions
// router, as KIC writes them: one per hostname, rule and match (a rule without matches counts
// as one empty match), named httproute.<ns>.<name>.<hostname or _>.<rule>.<match>, each with
// the expression of its hostname and match and the priority of its traits (gwexprorder.go
// orders ties). False when a filter or a match cannot be translated (a problem on the route;
// the Kong service is skipped).
func (h *httpRouteCtx) exprRoutes(g []int) ([]*document.Route, bool) {
	splits := max(len(h.hosts), 1)
	rules := h.sc.exprRules[:0]
	for range h.r.Spec.Rules {
		rules = append(rules, exprRuleCtx{})
	}
	h.sc.exprRules = rules
	n := 0
	for _, i := range g {
		rule := &h.r.Spec.Rules[i]
		rc := &rules[i]
		rc.in, rc.rewrite, rc.tags = true, slices.ContainsFunc(rule.Filters, isPrefixRewrite), h.p.objTags(h.t, h.ref.Kind, h.r)
		if nm := rule.Name; nm != nil && strings.TrimSpace(string(*nm)) != "" {
			rc.tags = objectTagsWith(h.ref.Kind, h.r, TagNamedRouteRule, []string{string(*nm)})
		}
		n += splits * max(len(rule.Matches), 1)
	}
	var out []*document.Route
	if n == 1 && h.p.arena.take(takenRoutes) {
		out = h.p.arena.routes[:0]
	} else {
		out = make([]*document.Route, 0, n)
	}
	for k := range h.p.ties { // by name: the routes come out sorted
		tie := &h.p.ties[k]
		rc := &rules[tie.rule]
		if !rc.in {
			continue
		}
		r, ok := h.exprRoute(tie, matchAt(h.r.Spec.Rules[tie.rule].Matches, int(tie.match)), rc.rewrite, rc.tags)
		if !ok {
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

// matchAt is match j of a rule's matches, or an empty one (never modified) for a rule without.
func matchAt(ms []gatewayv1.HTTPRouteMatch, j int) *gatewayv1.HTTPRouteMatch {
	if j < len(ms) {
		return &ms[j]
	}
	return &noHTTPMatch
}

var noHTTPMatch gatewayv1.HTTPRouteMatch

// exprRouteName is KIC's name of the Kong route of one split match (in pack, when given).
func exprRouteName(pack *strPack, ns, name, host string, rule, match int) string {
	return packJoin(pack, routePrefixHTTP, ns, ".", name, ".", hostLabel(host), ".", strconv.Itoa(rule), ".", strconv.Itoa(match))
}

// hostLabel is a hostname as KIC writes it into a name: "_" for none, each '*' as '_'.
func hostLabel(host string) string {
	if host == "" {
		return "_"
	}
	return strings.ReplaceAll(host, "*", "_")
}

// exprRoute is the Kong route of one split match.
func (h *httpRouteCtx) exprRoute(tie *exprTie, mt *gatewayv1.HTTPRouteMatch, rewrite bool, tags []*string) (*document.Route, bool) {
	rule, match := int(tie.rule), int(tie.match)
	a := h.base(tie.name, tags)
	h.describeSplit(tie.host, mt, rewrite)
	if ar := h.p.arena; ar != nil && &ar.route == a {
		h.m.xs = &ar.xs
	}
	h.m.pack = h.p.arena.strings(0)
	if err := h.t.render(a, h.m); err != nil {
		h.t.problem(h.ref, "spec.rules["+strconv.Itoa(rule)+"].matches["+strconv.Itoa(match)+"]",
			"Kong's expressions router refuses the match (%s); the rule's Kong service is skipped", err.Error())
		return nil, false
	}
	path := ""
	if mt.Path != nil && mt.Path.Value != nil {
		path = *mt.Path.Value
	}
	if !h.applyFilters(&a.r, rule, h.r.Spec.Rules[rule].Filters, path, tags) {
		return nil, false
	}
	return &a.r, true
}

// describeSplit describes the split match of hostname hi and match mt in h's scratch.
func (h *httpRouteCtx) describeSplit(hi int32, mt *gatewayv1.HTTPRouteMatch, rewrite bool) {
	m := h.m
	m.reset(dialectHTTPRoute, h.rs)
	if len(h.hosts) > 0 {
		m.hosts = h.hosts[hi : hi+1]
	}
	m.rewrite = rewrite
	describeHTTPMatch(m, mt)
	describeHTTPValues(m, mt)
}

// httpTies are the split matches of every rule of an HTTPRoute (those of rules whose Kong
// service is skipped too: KIC orders them all), sorted by Kong route name.
func (h *httpRouteCtx) httpTies() []exprTie {
	ar := h.p.arena
	var out []exprTie
	if ar.take(takenTies) {
		out = ar.ties[:0]
	}
	for i := range h.r.Spec.Rules {
		rule := &h.r.Spec.Rules[i]
		for hi := range max(len(h.hosts), 1) {
			host := ""
			if hi < len(h.hosts) {
				host = *h.hosts[hi]
			}
			for j := 0; j < max(len(rule.Matches), 1); j++ {
				h.describeSplit(int32(hi), matchAt(rule.Matches, j), false)
				out = append(out, exprTie{name: exprRouteName(ar.strings(0), h.ref.Namespace, h.ref.Name, host, i, j),
					base: h.m.httpBasePriority(), rule: int32(i), match: int32(j), host: int32(hi)})
			}
		}
	}
	slices.SortFunc(out, func(a, b exprTie) int { return strings.Compare(a.name, b.name) })
	return out
}

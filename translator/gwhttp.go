package translator

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// httpRoutePiece translates an HTTPRoute as KIC's traditional router does (docs/translation.md,
// "Gateway API"): rules with the same backendRefs share one Kong service, named after the
// smallest rule index; within it, matches of rules with the same filters that differ only in
// their paths share one Kong route, named after the first of them.
func (t *translation) httpRoutePiece(r *gatewayv1.HTTPRoute, m *routeMatch) *routePiece {
	ref := routeRef(store.KindHTTPRoute, r)
	b := t.bindParents(ref, r, r.Spec.ParentRefs, r.Spec.Hostnames)
	p := &routePiece{parents: b.parents, served: b.served()}
	if !p.served {
		t.unservedHTTP(p, ref, r)
		return p
	}
	if msg := t.validHTTPRoute(ref, r); msg != "" {
		p.refuse(msg)
		t.unservedHTTP(p, ref, r)
		return p
	}
	rs := t.routeSettingsFor(ref, r)
	h := httpRouteCtx{t: t, p: p, ref: ref, r: r, rs: rs, hosts: effectiveHosts(r.Spec.Hostnames, &b),
		protocols: t.listenerProtocols(ref, r.Spec.ParentRefs), m: m}
	expr := t.expressions()
	if expr {
		t.reportExprIgnored(ref, r.Annotations)
		p.ties, p.owner = h.httpTies(), tieOwner{created: r.CreationTimestamp.Time, ns: ref.Namespace, name: ref.Name}
	}
	var resolved refsVerdict
	for _, g := range groupHTTPRules(r) {
		name := "httproute." + ref.Namespace + "." + ref.Name + "." + strconv.Itoa(slices.Min(g))
		if len(g) > 1 {
			kicOrder(g)
		}
		first := &r.Spec.Rules[g[0]]
		bes, reason := t.resolveBackendRefs(ref, httpBackendRefs(first.BackendRefs), "spec.rules["+strconv.Itoa(g[0])+"]")
		if resolved.reason == "" {
			resolved = reason
		}
		routes := h.routes
		if expr {
			routes = h.exprRoutes
		}
		rts, ok := routes(g)
		if !ok {
			continue
		}
		rsvc := &routeService{name: name, protocol: "http", backends: bes, refs: len(first.BackendRefs), routes: rts}
		for _, i := range g {
			if ms, ok := backendTimeout(r.Spec.Rules[i].Timeouts); ok {
				rsvc.timeout = ms
			}
		}
		t.buildRouteService(p, store.KindHTTPRoute, r, rsvc)
	}
	setResolvedRefs(p, resolved)
	t.annotationPlugins(p, ref, r)
	return p
}

// validHTTPRoute applies KIC's checks that refuse a whole HTTPRoute; it returns why, or "".
func (t *translation) validHTTPRoute(ref store.Ref, r *gatewayv1.HTTPRoute) string {
	if len(r.Spec.Rules) == 0 {
		t.problem(ref, "spec.rules", "no rules; the route is not translated")
		return "the route has no rules"
	}
	for i := range r.Spec.Rules {
		for j, m := range r.Spec.Rules[i].Matches {
			if len(m.QueryParams) > 0 && !t.opts.RouterFlavor.Expressions() {
				t.problem(ref, "spec.rules["+strconv.Itoa(i)+"].matches["+strconv.Itoa(j)+"].queryParams",
					"query parameter matches need Kong's expressions router, which kongsync does not generate; the route is not translated")
				return "query parameter matches are not supported"
			}
		}
	}
	return ""
}

// unservedHTTP sets the ResolvedRefs condition of an HTTPRoute that is not translated.
func (t *translation) unservedHTTP(p *routePiece, ref store.Ref, r *gatewayv1.HTTPRoute) {
	if len(p.parents) == 0 {
		return
	}
	rules := make([][]gatewayv1.BackendRef, len(r.Spec.Rules))
	for i := range r.Spec.Rules {
		rules[i] = httpBackendRefs(r.Spec.Rules[i].BackendRefs)
	}
	setResolvedRefs(p, t.unservedRefs(ref, rules))
}

// httpBackendRefs are the BackendRef parts of HTTPBackendRefs (their filters are not applied, as
// in KIC).
func httpBackendRefs(refs []gatewayv1.HTTPBackendRef) []gatewayv1.BackendRef {
	out := make([]gatewayv1.BackendRef, len(refs))
	for i := range refs {
		out[i] = refs[i].BackendRef
	}
	return out
}

// backendTimeout is a rule's timeouts.backendRequest in milliseconds, when set and not KIC's
// default of 60 s.
func backendTimeout(to *gatewayv1.HTTPRouteTimeouts) (int, bool) {
	if to == nil || to.BackendRequest == nil {
		return 0, false
	}
	d, err := time.ParseDuration(string(*to.BackendRequest))
	if err != nil || d.Milliseconds() == defaultTimeout {
		return 0, false
	}
	return int(d.Milliseconds()), true
}

// groupHTTPRules groups the rule indices of r by their backendRefs (order-insensitive), each
// group in rule order, the groups by their first rule.
func groupHTTPRules(r *gatewayv1.HTTPRoute) [][]int {
	idx := make([]int, len(r.Spec.Rules))
	for i := range idx {
		idx[i] = i
	}
	return groupByKey(idx, func(i int) string { return sortedJSONKey(r.Spec.Rules[i].BackendRefs) })
}

// groupByKey groups items by key, each group in item order, the groups by their first item. A
// single item is its own group without its key computed (keys are JSON, and most routes have one
// rule and one match).
func groupByKey[T any](items []T, key func(T) string) [][]T {
	if len(items) <= 1 {
		return [][]T{items}
	}
	var keys []string
	var groups [][]T
	for _, it := range items {
		k := key(it)
		if at := slices.Index(keys, k); at >= 0 {
			groups[at] = append(groups[at], it)
			continue
		}
		keys, groups = append(keys, k), append(groups, []T{it})
	}
	return groups
}

// kicOrder sorts rule indices the way KIC orders a group's rules: by the string
// "<namespace>/<name>.<index>", so rule 10 comes before rule 2. The order decides route names
// and the rule whose backendRefs the group uses.
func kicOrder(g []int) {
	sort.SliceStable(g, func(a, b int) bool { return strconv.Itoa(g[a]) < strconv.Itoa(g[b]) })
}

// sortedJSONKey is a key equal for lists with the same elements in any order.
func sortedJSONKey[T any](items []T) string {
	keys := make([]string, len(items))
	for i := range items {
		b, _ := json.Marshal(items[i])
		keys[i] = string(b)
	}
	sort.Strings(keys)
	return strings.Join(keys, ";")
}

// effectiveHosts are the Kong route hosts of an HTTPRoute attached through b: each route
// hostname narrowed to the listener hostname it intersects (KIC's filterHostnames); with no
// route hostnames, the listeners' hostnames (none, meaning any host, if a listener has none).
// With a parent assumed offline the route's hostnames are used as they are.
func effectiveHosts(hs []gatewayv1.Hostname, b *bound) []*string {
	if b.assumed {
		return hostnamePtrs(hs)
	}
	if len(hs) == 0 {
		var out []*string
		for _, l := range b.listeners {
			if l.Hostname == nil {
				return nil
			}
			out = append(out, kong.String(string(*l.Hostname)))
		}
		return out
	}
	var out []*string
	for _, h := range hs {
		for _, l := range b.listeners {
			if l.Hostname == nil {
				out = append(out, kong.String(string(h)))
				break
			}
			if x := hostIntersection(string(h), string(*l.Hostname)); x != "" {
				out = append(out, kong.String(x))
				break
			}
		}
	}
	return out
}

func hostnamePtrs(hs []gatewayv1.Hostname) []*string {
	var out []*string
	for _, h := range hs {
		out = append(out, kong.String(string(h)))
	}
	return out
}

// listenerProtocols are the Kong route protocols of an HTTPRoute: "http" and "https" for the
// HTTP and HTTPS listeners of its parent Gateways (sectionName respected), sorted; nil (Kong's
// default) when no parent Gateway is known.
func (t *translation) listenerProtocols(ref store.Ref, parents []gatewayv1.ParentReference) []*string {
	var httpL, httpsL bool
	t.parentListeners(ref, parents, func(l *gatewayv1.Listener) {
		httpL = httpL || l.Protocol == gatewayv1.HTTPProtocolType
		httpsL = httpsL || l.Protocol == gatewayv1.HTTPSProtocolType
	})
	switch d := t.defaults; {
	case httpL && httpsL:
		return d.protoBoth
	case httpL:
		return d.protoHTTP
	case httpsL:
		return d.protoHTTPS
	}
	return nil
}

// routes are the Kong routes of the rules g (in KIC's order) of one Kong service, or false
// when a filter cannot be translated (a problem on the route; the Kong service is skipped).
func (h *httpRouteCtx) routes(g []int) ([]*document.Route, bool) {
	if h.badHTTPMatches(g) {
		return nil, false
	}
	var out []*document.Route
	fgroups := groupByKey(g, func(i int) string { return sortedJSONKey(h.r.Spec.Rules[i].Filters) })
	for _, fg := range fgroups {
		var matches []matchRef
		for _, i := range fg {
			if len(h.r.Spec.Rules[i].Matches) == 0 {
				out = append(out, h.catchAll(i))
			}
			for j := range h.r.Spec.Rules[i].Matches {
				matches = append(matches, matchRef{i, j})
			}
		}
		if len(matches) == 0 {
			continue
		}
		mgroups := groupByKey(matches, func(m matchRef) string { return httpMatchKey(&h.r.Spec.Rules[m.rule].Matches[m.match]) })
		for _, mg := range mgroups {
			rs, ok := h.matchRoutes(fg[0], mg)
			if !ok {
				return nil, false
			}
			out = append(out, rs...)
		}
	}
	return out, true
}

// httpMatchKey is KIC's key of matches that may share a Kong route: method, headers (names
// lowercased, the first of each name, sorted) and query parameters; not the path.
func httpMatchKey(m *gatewayv1.HTTPRouteMatch) string {
	var hs []gatewayv1.HTTPHeaderMatch
	for _, x := range m.Headers {
		x.Name = gatewayv1.HTTPHeaderName(strings.ToLower(string(x.Name)))
		if !slices.ContainsFunc(hs, func(y gatewayv1.HTTPHeaderMatch) bool { return y.Name == x.Name }) {
			hs = append(hs, x)
		}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
	b, _ := json.Marshal(struct {
		Method  *gatewayv1.HTTPMethod
		Headers []gatewayv1.HTTPHeaderMatch
		Query   []gatewayv1.HTTPQueryParamMatch
	}{m.Method, hs, m.QueryParams})
	return string(b)
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

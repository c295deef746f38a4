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
// their paths share one Kong route, named after the first of them. The piece and what it is
// made of live in one arena (gwarena.go); sc is the build's scratch.
func (t *translation) httpRoutePiece(r *gatewayv1.HTTPRoute, sc *gwScratch) *routePiece {
	ref := routeRef(store.KindHTTPRoute, r)
	var ar *routeArena
	b := t.bindParents(ref, r, r.Spec.ParentRefs, r.Spec.Hostnames, &ar, sc)
	if ar == nil {
		return &routePiece{} // no parent of kongsync's
	}
	p := &ar.piece
	p.parents, p.served = b.parents, b.served()
	if !p.served {
		t.unservedHTTP(p, ref, r)
		return p
	}
	if msg := t.validHTTPRoute(ref, r); msg != "" {
		p.refuse(msg)
		t.unservedHTTP(p, ref, r)
		return p
	}
	rs := t.parseRouteSettingsFor(ref, r, &ar.rs)
	h := httpRouteCtx{t: t, p: p, ref: ref, r: r, rs: rs, hosts: effectiveHosts(r.Spec.Hostnames, &b, ar),
		protocols: t.listenerProtocols(ref, r.Spec.ParentRefs), m: &sc.match, sc: sc}
	expr := t.expressions()
	ar.strings(httpPackSize(r, len(h.hosts), expr))
	if expr {
		t.reportExprIgnored(ref, r.Annotations)
		p.ties, p.owner = h.httpTies(), tieOwner{created: r.CreationTimestamp.Time, ns: ref.Namespace, name: ref.Name}
	}
	var resolved refsVerdict
	for _, g := range groupHTTPRules(r, sc) {
		if len(g) > 1 {
			kicOrder(g)
		}
		first := &r.Spec.Rules[g[0]]
		bes, reason := t.resolveBackendRefs(ref, len(first.BackendRefs), func(k int) *gatewayv1.BackendRef {
			return &first.BackendRefs[k].BackendRef
		}, "spec.rules["+strconv.Itoa(g[0])+"]", ar)
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
		rsvc := ar.newRouteService()
		*rsvc = routeService{name: packJoin(ar.strings(0), routePrefixHTTP, ref.Namespace, ".", ref.Name, ".", strconv.Itoa(slices.Min(g))),
			protocol: "http", backends: bes, refs: len(first.BackendRefs), routes: rts, timeout: groupTimeout(r, g)}
		t.buildRouteService(p, store.KindHTTPRoute, r, rsvc)
	}
	setResolvedRefs(p, resolved)
	t.annotationPlugins(p, ref, r)
	return p
}

// httpPackSize is about the bytes of the strings an HTTPRoute's entities hold, for its arena:
// the route's tags and a Service's (its namespace's tag shared, kind, group and version
// constant), two targets; per rule its Kong service's name and id; per match its Kong route's
// name, id and paths or expression, per hostname under expressions. Strings beyond it take
// their own buffers (strPack.reserve).
func httpPackSize(r *gatewayv1.HTTPRoute, hosts int, expr bool) int {
	name := len(routePrefixHTTP) + len(r.Namespace) + len(r.Name) + 4
	n := 2*(len(TagName)+len(r.Name)+len(TagUID)+len(r.UID)) + 2*24
	splits := 1
	if expr {
		splits = max(hosts, 1)
	}
	for i := range r.Spec.Rules {
		n += name + 36
		for _, m := range r.Spec.Rules[i].Matches {
			path := 1
			if m.Path != nil && m.Path.Value != nil {
				path = len(*m.Path.Value)
			}
			n += splits * (name + 2 + 36 + 2*path + 4)
		}
		if len(r.Spec.Rules[i].Matches) == 0 {
			n += splits * (name + 2 + 36)
		}
	}
	if expr {
		n += splits * 64 // each expression's fields and operators
	}
	return min(n, 4096)
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

// groupTimeout is the backendRequest timeout of the rules g (the last one set, in KIC's order),
// 0 for none.
func groupTimeout(r *gatewayv1.HTTPRoute, g []int) int {
	ms := 0
	for _, i := range g {
		if v, ok := backendTimeout(r.Spec.Rules[i].Timeouts); ok {
			ms = v
		}
	}
	return ms
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
// group in rule order, the groups by their first rule (in sc's scratch).
func groupHTTPRules(r *gatewayv1.HTTPRoute, sc *gwScratch) [][]int {
	idx := sc.rules[:0]
	for i := range r.Spec.Rules {
		idx = append(idx, i)
	}
	sc.rules = idx
	return groupByKey(idx, func(i int) string { return sortedJSONKey(r.Spec.Rules[i].BackendRefs) }, &sc.ruleGroup)
}

// groupByKey groups items by key, each group in item order, the groups by their first item. A
// single item is its own group (in one) without its key computed (keys are JSON, and most
// routes have one rule and one match).
func groupByKey[T any](items []T, key func(T) string, one *[1][]T) [][]T {
	if len(items) <= 1 {
		one[0] = items
		return one[:]
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
// With a parent assumed offline the route's hostnames are used as they are. The first lives in
// ar, when given.
func effectiveHosts(hs []gatewayv1.Hostname, b *bound, ar *routeArena) []*string {
	if b.assumed {
		return hostnamePtrs(hs)
	}
	var out []*string
	inArena := ar.take(takenHosts)
	add := func(h string) {
		if inArena && len(out) == 0 {
			ar.hostVals[0] = h
			out = append(ar.hosts[:0], &ar.hostVals[0])
			return
		}
		out = append(out, kong.String(h))
	}
	if len(hs) == 0 {
		for _, l := range b.listeners {
			if l.Hostname == nil {
				return nil
			}
			add(string(*l.Hostname))
		}
		return out
	}
	for _, h := range hs {
		for _, l := range b.listeners {
			if l.Hostname == nil {
				add(string(h))
				break
			}
			if x := hostIntersection(string(h), string(*l.Hostname)); x != "" {
				add(x)
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
	if h.p.arena.take(takenRoutes) {
		out = h.p.arena.routes[:0]
	}
	fgroups := groupByKey(g, func(i int) string { return sortedJSONKey(h.r.Spec.Rules[i].Filters) }, &h.sc.fltGroup)
	for _, fg := range fgroups {
		matches := h.sc.matches[:0]
		for _, i := range fg {
			if len(h.r.Spec.Rules[i].Matches) == 0 {
				out = append(out, h.catchAll(i))
			}
			for j := range h.r.Spec.Rules[i].Matches {
				matches = append(matches, matchRef{i, j})
			}
		}
		h.sc.matches = matches
		if len(matches) == 0 {
			continue
		}
		mgroups := groupByKey(matches, func(m matchRef) string { return httpMatchKey(&h.r.Spec.Rules[m.rule].Matches[m.match]) }, &h.sc.mtGroup)
		for _, mg := range mgroups {
			var ok bool
			if out, ok = h.matchRoutes(fg[0], mg, out); !ok {
				return nil, false
			}
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

// plainPath reports a path of no character Kong's path checks look at: it starts with "/",
// has no "//", and none of "%", ".", "$", "^" or the regex metacharacters.
func plainPath(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.Contains(v, "//") && !strings.ContainsAny(v, regexMeta+"%.$^")
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
	if plainPath(v) {
		return "", "" // as a regex, a literal anchored at / that PCRE2 takes; as a path, normalized
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

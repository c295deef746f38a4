package translator

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

// The changes a world makes to Gateway API routes: their parents, hostnames, rules, matches,
// filters, backendRefs and annotations, often to invalid values.

// Values the route mutations draw from.
var (
	gwPaths     = []string{"/", "/web", "/api", "/api/v2", "/re/[0-9]+", "/x/", "", "relative"}
	gwPathTypes = []gatewayv1.PathMatchType{gatewayv1.PathMatchPathPrefix, gatewayv1.PathMatchExact,
		gatewayv1.PathMatchRegularExpression}
	gwMethods = []gatewayv1.HTTPMethod{gatewayv1.HTTPMethodGet, gatewayv1.HTTPMethodPost, gatewayv1.HTTPMethodDelete}
)

// mutateParentRefs edits a route's parentRefs: which Gateway (of any namespace, maybe missing),
// sectionName, port, kind; adds or removes one.
func (w *world) mutateParentRefs(ns string, prs *[]gatewayv1.ParentReference) string {
	if len(*prs) == 0 || w.r.IntN(6) == 0 {
		*prs = append(*prs, w.newParentRef(ns))
		return "parentRef added"
	}
	i := w.r.IntN(len(*prs))
	p := &(*prs)[i]
	at := fmt.Sprintf("parentRefs[%d] ", i)
	switch w.r.IntN(8) {
	case 0, 1:
		if p.SectionName != nil && w.r.IntN(3) == 0 {
			p.SectionName = nil
			return at + "sectionName removed"
		}
		p.SectionName = ptrOf(gatewayv1.SectionName(pick(w.r, listenerNames)))
		return at + "sectionName " + string(*p.SectionName)
	case 2:
		if p.Port != nil || w.r.IntN(2) == 0 {
			p.Port = nil
			return at + "port removed"
		}
		p.Port = ptrOf(pick(w.r, listenerPorts))
		return fmt.Sprintf("%sport %d", at, *p.Port)
	case 3, 4:
		*p = w.newParentRef(ns)
		return at + "to Gateway " + string(p.Name)
	case 5:
		if len(*prs) > 1 {
			*prs = slices.Delete(*prs, i, i+1)
			return at + "removed"
		}
		p.Namespace = nil
		return at + "namespace removed"
	case 6:
		switch w.r.IntN(3) {
		case 0:
			p.Kind = ptrOf(gatewayv1.Kind("Service"))
			return at + "kind Service"
		case 1:
			p.Group = ptrOf(gatewayv1.Group("example.com"))
			return at + "group example.com"
		}
		p.Kind, p.Group = ptrOf(gatewayv1.Kind("Gateway")), ptrOf(gatewayv1.Group(store.GatewayGroup))
		return at + "kind Gateway." + store.GatewayGroup
	}
	*prs = append(*prs, w.newParentRef(ns))
	return "parentRef added"
}

// newParentRef is a parentRef to a Gateway of the route's namespace or of another (maybe
// missing), often with a sectionName.
func (w *world) newParentRef(ns string) gatewayv1.ParentReference {
	gwNS := ns
	if w.r.IntN(2) == 0 {
		gwNS = w.gwNamespace()
	}
	nsField := ""
	if gwNS != ns || w.r.IntN(4) == 0 {
		nsField = gwNS
	}
	section := ""
	if w.r.IntN(2) == 0 {
		section = pick(w.r, listenerNames)
	}
	return parentRef(nsField, pick(w.r, w.names(store.KindGateway, gwNS)), section)
}

// setHostnames sets a route's hostnames to none, one or two.
func (w *world) setHostnames(hs *[]gatewayv1.Hostname) string {
	switch w.r.IntN(4) {
	case 0:
		*hs = nil
		return "hostnames removed"
	case 1:
		*hs = append(*hs, gatewayv1.Hostname(w.gwHostname()))
		return "hostname added"
	}
	*hs = []gatewayv1.Hostname{gatewayv1.Hostname(w.gwHostname())}
	if w.r.IntN(3) == 0 {
		*hs = append(*hs, gatewayv1.Hostname(w.gwHostname()))
	}
	return fmt.Sprintf("hostnames %v", *hs)
}

// randomBackendRef is a backendRef to a Service of the route's namespace or (now and then)
// another, maybe missing, with a port (maybe undeclared, maybe none) and a weight (maybe none or
// 0); rarely without a kind or of another kind.
func (w *world) randomBackendRef(ns string) gatewayv1.BackendRef {
	target, nsField := ns, ""
	if w.r.IntN(4) == 0 {
		target = w.gwNamespace()
		nsField = target
	}
	b := backendRef(nsField, pick(w.r, w.names(store.KindService, target)), pick(w.r, []int32{80, 80, 80, 443, 8080, 9999, 0}),
		pick(w.r, []int32{-1, -1, 0, 1, 50, 100}))
	switch w.r.IntN(16) {
	case 0:
		b.Kind = nil
	case 1:
		b.Kind = ptrOf(gatewayv1.Kind("ConfigMap"))
	case 2:
		b.Group = ptrOf(gatewayv1.Group("example.com"))
	}
	return b
}

// mutateBackendRefs edits a rule's backendRefs: replaced, one added or removed, or one's weight,
// port or namespace changed.
func (w *world) mutateBackendRefs(ns string, refs *[]gatewayv1.BackendRef) string {
	n := w.r.IntN(7)
	if len(*refs) == 0 {
		n = 1
	}
	switch n {
	case 0:
		*refs = nil
		for range 1 + w.r.IntN(3) {
			*refs = append(*refs, w.randomBackendRef(ns))
		}
		return fmt.Sprintf("%d backendRefs", len(*refs))
	case 1:
		*refs = append(*refs, w.randomBackendRef(ns))
		return "backendRef added"
	case 2:
		i := w.r.IntN(len(*refs))
		*refs = slices.Delete(*refs, i, i+1)
		return fmt.Sprintf("backendRefs[%d] removed", i)
	}
	i := w.r.IntN(len(*refs))
	b := &(*refs)[i]
	switch n {
	case 3:
		b.Weight = pick(w.r, []*int32{nil, ptrOf(int32(0)), ptrOf(int32(1)), ptrOf(int32(10)), ptrOf(int32(90))})
		return fmt.Sprintf("backendRefs[%d] weight", i)
	case 4:
		b.Port = pick(w.r, []*int32{nil, ptrOf(int32(80)), ptrOf(int32(443)), ptrOf(int32(9999))})
		return fmt.Sprintf("backendRefs[%d] port", i)
	case 5:
		if b.Namespace != nil && w.r.IntN(2) == 0 {
			b.Namespace = nil
			return fmt.Sprintf("backendRefs[%d] namespace removed", i)
		}
		target := w.gwNamespace()
		b.Namespace = ptrOf(gatewayv1.Namespace(target))
		b.Name = gatewayv1.ObjectName(pick(w.r, w.names(store.KindService, target)))
		return fmt.Sprintf("backendRefs[%d] to %s/%s", i, target, b.Name)
	}
	b.Name = gatewayv1.ObjectName(pick(w.r, w.names(store.KindService, ns)))
	return fmt.Sprintf("backendRefs[%d] name %s", i, b.Name)
}

// setRoutePlugins sets konghq.com/plugins on a route to KongPlugins of its namespace or, in the
// "namespace:name" form, of another (which needs a ReferenceGrant), or removes it.
func (w *world) setRoutePlugins(m *metav1.ObjectMeta) string {
	if w.r.IntN(2) == 0 {
		return w.setPluginsAnnotation(m)
	}
	ns := w.gwNamespace()
	v := ns + ":" + pick(w.r, w.names(store.KindKongPlugin, ns))
	setAnn(m, annPlugins, v)
	return fmt.Sprintf("plugins annotation %q", v)
}

func (w *world) mutateHTTPRoute(o *gatewayv1.HTTPRoute) string {
	s := &o.Spec
	if len(s.Rules) == 0 {
		s.Rules = append(s.Rules, w.newHTTPRule(o.Namespace))
		return "rule added"
	}
	ri := w.r.IntN(len(s.Rules))
	rule := &s.Rules[ri]
	at := fmt.Sprintf("rules[%d] ", ri)
	switch n := w.r.IntN(18); {
	case n <= 1:
		return w.mutateParentRefs(o.Namespace, &s.ParentRefs)
	case n == 2:
		return w.setHostnames(&s.Hostnames)
	case n <= 5:
		return at + w.mutateHTTPMatches(rule)
	case n <= 7:
		return at + w.mutateHTTPFilters(o.Namespace, rule)
	case n <= 9:
		refs := httpBackendRefs(rule.BackendRefs)
		what := w.mutateBackendRefs(o.Namespace, &refs)
		rule.BackendRefs = httpBackends(refs...)
		return at + what
	case n == 10:
		if w.r.IntN(2) == 0 {
			s.Rules = append(s.Rules, *rule.DeepCopy()) // the same backendRefs: one Kong service
			return at + "copied"
		}
		s.Rules = append(s.Rules, w.newHTTPRule(o.Namespace))
		return "rule added"
	case n == 11 && (len(s.Rules) > 1 || w.r.IntN(4) == 0):
		s.Rules = slices.Delete(s.Rules, ri, ri+1)
		return at + "removed"
	case n == 12:
		rule.Name = pick(w.r, []*gatewayv1.SectionName{nil, ptrOf(gatewayv1.SectionName("main")), ptrOf(gatewayv1.SectionName("alt"))})
		return at + "name"
	case n == 13:
		rule.Timeouts = pick(w.r, []*gatewayv1.HTTPRouteTimeouts{nil, {BackendRequest: ptrOf(gatewayv1.Duration("5s"))},
			{BackendRequest: ptrOf(gatewayv1.Duration("60s"))}, {BackendRequest: ptrOf(gatewayv1.Duration("bad"))},
			{Request: ptrOf(gatewayv1.Duration("10s"))}})
		return at + "timeouts"
	case n == 14:
		return w.setRoutePlugins(&o.ObjectMeta)
	}
	return w.setAnnFrom(&o.ObjectMeta, ingressAnnotations)
}

// newHTTPRule is a rule with up to two matches, maybe a filter, and backendRefs.
func (w *world) newHTTPRule(ns string) gatewayv1.HTTPRouteRule {
	var rule gatewayv1.HTTPRouteRule
	for range w.r.IntN(3) {
		rule.Matches = append(rule.Matches, gatewayv1.HTTPRouteMatch{Path: pathMatch(pick(w.r, gwPathTypes), pick(w.r, gwPaths))})
	}
	if w.r.IntN(2) == 0 {
		rule.Filters = append(rule.Filters, w.randomHTTPFilter(ns))
	}
	var refs []gatewayv1.BackendRef
	w.mutateBackendRefs(ns, &refs)
	rule.BackendRefs = httpBackends(refs...)
	return rule
}

// mutateHTTPMatches edits one match of a rule (path, headers, method, query parameters), or adds
// or removes a match.
func (w *world) mutateHTTPMatches(rule *gatewayv1.HTTPRouteRule) string {
	if len(rule.Matches) == 0 || w.r.IntN(6) == 0 {
		m := gatewayv1.HTTPRouteMatch{Path: pathMatch(pick(w.r, gwPathTypes), pick(w.r, gwPaths))}
		if len(rule.Matches) > 0 && w.r.IntN(2) == 0 { // differs only in the path: may share a Kong route
			m.Headers, m.Method = rule.Matches[0].Headers, rule.Matches[0].Method
		}
		rule.Matches = append(rule.Matches, m)
		return "match added"
	}
	i := w.r.IntN(len(rule.Matches))
	m := &rule.Matches[i]
	at := fmt.Sprintf("matches[%d] ", i)
	switch w.r.IntN(9) {
	case 0, 1:
		if m.Path == nil {
			m.Path = &gatewayv1.HTTPPathMatch{}
		}
		m.Path.Value = ptrOf(pick(w.r, gwPaths))
		return at + "path " + *m.Path.Value
	case 2:
		if m.Path == nil {
			m.Path = pathMatch(gatewayv1.PathMatchPathPrefix, "/")
		}
		m.Path.Type = pick(w.r, []*gatewayv1.PathMatchType{nil, &gwPathTypes[0], &gwPathTypes[1], &gwPathTypes[2]})
		return at + "path type"
	case 3:
		m.Path = nil
		return at + "path removed"
	case 4, 5:
		return at + w.mutateHeaderMatches(&m.Headers)
	case 6:
		if m.Method != nil && w.r.IntN(2) == 0 {
			m.Method = nil
			return at + "method removed"
		}
		m.Method = ptrOf(pick(w.r, gwMethods))
		return at + "method " + string(*m.Method)
	case 7:
		if len(m.QueryParams) > 0 || w.r.IntN(3) > 0 {
			m.QueryParams = nil
			return at + "queryParams removed"
		}
		m.QueryParams = []gatewayv1.HTTPQueryParamMatch{{Name: "q", Value: "1"}}
		return at + "queryParams"
	}
	if len(rule.Matches) > 1 {
		rule.Matches = slices.Delete(rule.Matches, i, i+1)
		return at + "removed"
	}
	rule.Matches = nil
	return "matches removed"
}

// mutateHeaderMatches adds a header match (exact, regular expression, unsupported type, or a
// name given twice) or removes one.
func (w *world) mutateHeaderMatches(hs *[]gatewayv1.HTTPHeaderMatch) string {
	if len(*hs) > 0 && w.r.IntN(3) == 0 {
		i := w.r.IntN(len(*hs))
		*hs = slices.Delete(*hs, i, i+1)
		return fmt.Sprintf("headers[%d] removed", i)
	}
	h := gatewayv1.HTTPHeaderMatch{Name: gatewayv1.HTTPHeaderName(pick(w.r, []string{"x-env", "X-Env", "x-team"})),
		Value: pick(w.r, []string{"prod", "dev", "^a.*"})}
	h.Type = pick(w.r, []*gatewayv1.HeaderMatchType{nil, ptrOf(gatewayv1.HeaderMatchExact),
		ptrOf(gatewayv1.HeaderMatchRegularExpression), ptrOf(gatewayv1.HeaderMatchType("Bogus"))})
	*hs = append(*hs, h)
	return "header " + string(h.Name) + " added"
}

// mutateHTTPFilters adds a filter, removes one, or replaces the rule's filters.
func (w *world) mutateHTTPFilters(ns string, rule *gatewayv1.HTTPRouteRule) string {
	switch n := w.r.IntN(4); {
	case n == 0 && len(rule.Filters) > 0:
		i := w.r.IntN(len(rule.Filters))
		rule.Filters = slices.Delete(rule.Filters, i, i+1)
		return fmt.Sprintf("filters[%d] removed", i)
	case n == 1:
		rule.Filters = []gatewayv1.HTTPRouteFilter{w.randomHTTPFilter(ns)}
		return "filters " + string(rule.Filters[0].Type)
	}
	f := w.randomHTTPFilter(ns)
	rule.Filters = append(rule.Filters, f)
	return "filter " + string(f.Type) + " added"
}

// randomHTTPFilter is a filter of each type KIC translates (header modifiers, redirects,
// rewrites, ExtensionRefs to the namespace's KongPlugins, maybe missing), some invalid, or of an
// unsupported type.
func (w *world) randomHTTPFilter(ns string) gatewayv1.HTTPRouteFilter {
	headers := func() *gatewayv1.HTTPHeaderFilter {
		return pick(w.r, []*gatewayv1.HTTPHeaderFilter{{Set: []gatewayv1.HTTPHeader{{Name: "x-a", Value: "1"}}},
			{Add: []gatewayv1.HTTPHeader{{Name: "x-b", Value: ""}}, Remove: []string{"x-c"}}, {}})
	}
	switch w.r.IntN(10) {
	case 0:
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: headers()}
	case 1:
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterResponseHeaderModifier, ResponseHeaderModifier: headers()}
	case 2, 3:
		rd := &gatewayv1.HTTPRequestRedirectFilter{StatusCode: pick(w.r, []*int{nil, ptrOf(301), ptrOf(302)})}
		if w.r.IntN(2) == 0 {
			rd.Hostname, rd.Scheme = ptrOf(gatewayv1.PreciseHostname("moved.example.com")), pick(w.r, []*string{nil, ptrOf("https")})
			rd.Port = pick(w.r, []*int32{nil, ptrOf(int32(8443))})
		}
		rd.Path = pick(w.r, []*gatewayv1.HTTPPathModifier{nil, {Type: gatewayv1.FullPathHTTPPathModifier, ReplaceFullPath: ptrOf("/moved")},
			{Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptrOf("/p")}})
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestRedirect, RequestRedirect: rd}
	case 4, 5:
		rw := pick(w.r, []*gatewayv1.HTTPURLRewriteFilter{nil, {Hostname: ptrOf(gatewayv1.PreciseHostname("internal.example.com"))},
			{Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.FullPathHTTPPathModifier, ReplaceFullPath: ptrOf("/full")}},
			{Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptrOf("/")}},
			{Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptrOf("/new/")}},
			{Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.FullPathHTTPPathModifier}}})
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterURLRewrite, URLRewrite: rw}
	case 6, 7:
		f := extensionRef(pick(w.r, w.names(store.KindKongPlugin, ns)))
		if w.r.IntN(6) == 0 {
			f.ExtensionRef.Group = "example.com"
		}
		return f
	case 8:
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestMirror}
	}
	return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterExtensionRef} // without its reference
}

func (w *world) mutateGRPCRoute(o *gatewayv1.GRPCRoute) string {
	s := &o.Spec
	if len(s.Rules) == 0 {
		s.Rules = append(s.Rules, gatewayv1.GRPCRouteRule{})
	}
	ri := w.r.IntN(len(s.Rules))
	rule := &s.Rules[ri]
	at := fmt.Sprintf("rules[%d] ", ri)
	switch n := w.r.IntN(13); {
	case n <= 1:
		return w.mutateParentRefs(o.Namespace, &s.ParentRefs)
	case n == 2:
		return w.setHostnames(&s.Hostnames)
	case n <= 4:
		return at + w.mutateGRPCMatches(rule)
	case n <= 6:
		refs := grpcBackendRefs(rule.BackendRefs)
		what := w.mutateBackendRefs(o.Namespace, &refs)
		rule.BackendRefs = nil
		for _, r := range refs {
			rule.BackendRefs = append(rule.BackendRefs, gatewayv1.GRPCBackendRef{BackendRef: r})
		}
		return at + what
	case n == 7:
		s.Rules = append(s.Rules, *rule.DeepCopy())
		return at + "copied"
	case n == 8 && len(s.Rules) > 1:
		s.Rules = slices.Delete(s.Rules, ri, ri+1)
		return at + "removed"
	case n == 9:
		if len(rule.Filters) > 0 {
			rule.Filters = nil
			return at + "filters removed"
		}
		rule.Filters = []gatewayv1.GRPCRouteFilter{{Type: gatewayv1.GRPCRouteFilterRequestHeaderModifier}}
		return at + "filter added"
	case n == 10:
		rule.Name = pick(w.r, []*gatewayv1.SectionName{nil, ptrOf(gatewayv1.SectionName("echo")), ptrOf(gatewayv1.SectionName(" "))})
		return at + "name"
	case n == 11:
		return w.setRoutePlugins(&o.ObjectMeta)
	}
	return w.setAnnFrom(&o.ObjectMeta, ingressAnnotations)
}

func grpcBackendRefs(refs []gatewayv1.GRPCBackendRef) []gatewayv1.BackendRef {
	out := make([]gatewayv1.BackendRef, len(refs))
	for i := range refs {
		out[i] = refs[i].BackendRef
	}
	return out
}

// mutateGRPCMatches edits a GRPCRoute rule's matches: method service and method (exact or regular
// expression, maybe unset), headers; adds or removes one.
func (w *world) mutateGRPCMatches(rule *gatewayv1.GRPCRouteRule) string {
	if len(rule.Matches) == 0 || w.r.IntN(4) == 0 {
		rule.Matches = append(rule.Matches, gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{
			Service: ptrOf(pick(w.r, []string{"echo.Echo", "shop.Cart"}))}})
		return "match added"
	}
	i := w.r.IntN(len(rule.Matches))
	m := &rule.Matches[i]
	at := fmt.Sprintf("matches[%d] ", i)
	switch w.r.IntN(5) {
	case 0:
		m.Method = nil
		return at + "method removed"
	case 1:
		if m.Method == nil {
			m.Method = &gatewayv1.GRPCMethodMatch{}
		}
		m.Method.Type = pick(w.r, []*gatewayv1.GRPCMethodMatchType{nil, ptrOf(gatewayv1.GRPCMethodMatchExact),
			ptrOf(gatewayv1.GRPCMethodMatchRegularExpression)})
		return at + "method type"
	case 2:
		if m.Method == nil {
			m.Method = &gatewayv1.GRPCMethodMatch{}
		}
		m.Method.Service = pick(w.r, []*string{nil, ptrOf("echo.Echo"), ptrOf("shop\\..*")})
		m.Method.Method = pick(w.r, []*string{nil, ptrOf("Ping"), ptrOf("Get.*")})
		return at + "method"
	case 3:
		if len(m.Headers) > 0 && w.r.IntN(2) == 0 {
			m.Headers = nil
			return at + "headers removed"
		}
		m.Headers = append(m.Headers, gatewayv1.GRPCHeaderMatch{Name: gatewayv1.GRPCHeaderName(pick(w.r, []string{"x-v", "x-team"})),
			Value: pick(w.r, []string{"1", "2"})})
		return at + "header added"
	}
	if len(rule.Matches) > 1 {
		rule.Matches = slices.Delete(rule.Matches, i, i+1)
		return at + "removed"
	}
	rule.Matches = nil
	return "matches removed"
}

// l4Edit reaches into a TCPRoute, UDPRoute or TLSRoute for the edits they share.
type l4Edit struct {
	meta      *metav1.ObjectMeta
	parents   *[]gatewayv1.ParentReference
	hostnames *[]gatewayv1.Hostname // TLSRoute only
	n         int                   // rules
	rule      func(i int) (*[]gatewayv1.BackendRef, **gatewayv1.SectionName)
	add       func(name *gatewayv1.SectionName, refs []gatewayv1.BackendRef)
	remove    func(i int)
}

func l4EditOf(o store.Object) l4Edit {
	switch o := o.(type) {
	case *gatewayv1.TCPRoute:
		return l4Edit{meta: &o.ObjectMeta, parents: &o.Spec.ParentRefs, n: len(o.Spec.Rules),
			rule: func(i int) (*[]gatewayv1.BackendRef, **gatewayv1.SectionName) {
				return &o.Spec.Rules[i].BackendRefs, &o.Spec.Rules[i].Name
			},
			add: func(n *gatewayv1.SectionName, refs []gatewayv1.BackendRef) {
				o.Spec.Rules = append(o.Spec.Rules, gatewayv1.TCPRouteRule{Name: n, BackendRefs: refs})
			},
			remove: func(i int) { o.Spec.Rules = slices.Delete(o.Spec.Rules, i, i+1) }}
	case *gatewayv1.UDPRoute:
		return l4Edit{meta: &o.ObjectMeta, parents: &o.Spec.ParentRefs, n: len(o.Spec.Rules),
			rule: func(i int) (*[]gatewayv1.BackendRef, **gatewayv1.SectionName) {
				return &o.Spec.Rules[i].BackendRefs, &o.Spec.Rules[i].Name
			},
			add: func(n *gatewayv1.SectionName, refs []gatewayv1.BackendRef) {
				o.Spec.Rules = append(o.Spec.Rules, gatewayv1.UDPRouteRule{Name: n, BackendRefs: refs})
			},
			remove: func(i int) { o.Spec.Rules = slices.Delete(o.Spec.Rules, i, i+1) }}
	case *gatewayv1.TLSRoute:
		return l4Edit{meta: &o.ObjectMeta, parents: &o.Spec.ParentRefs, hostnames: &o.Spec.Hostnames, n: len(o.Spec.Rules),
			rule: func(i int) (*[]gatewayv1.BackendRef, **gatewayv1.SectionName) {
				return &o.Spec.Rules[i].BackendRefs, &o.Spec.Rules[i].Name
			},
			add: func(n *gatewayv1.SectionName, refs []gatewayv1.BackendRef) {
				o.Spec.Rules = append(o.Spec.Rules, gatewayv1.TLSRouteRule{Name: n, BackendRefs: refs})
			},
			remove: func(i int) { o.Spec.Rules = slices.Delete(o.Spec.Rules, i, i+1) }}
	}
	panic(fmt.Sprintf("l4EditOf: %T", o))
}

// mutateL4Route edits a TCPRoute, UDPRoute or TLSRoute: parents, hostnames (TLS), a rule's
// backendRefs (maybe none) or name; adds or removes a rule.
func (w *world) mutateL4Route(o store.Object) string {
	e := l4EditOf(o)
	ns := o.GetNamespace()
	switch n := w.r.IntN(11); {
	case n <= 2:
		return w.mutateParentRefs(ns, e.parents)
	case n == 3 && e.hostnames != nil:
		return w.setHostnames(e.hostnames)
	case n == 4 || e.n == 0:
		var refs []gatewayv1.BackendRef
		if w.r.IntN(5) > 0 {
			w.mutateBackendRefs(ns, &refs)
		}
		e.add(nil, refs)
		return fmt.Sprintf("rule added with %d backendRefs", len(refs))
	case n == 5 && e.n > 1:
		i := w.r.IntN(e.n)
		e.remove(i)
		return fmt.Sprintf("rules[%d] removed", i)
	case n == 6:
		i := w.r.IntN(e.n)
		_, name := e.rule(i)
		*name = pick(w.r, []*gatewayv1.SectionName{nil, ptrOf(gatewayv1.SectionName("main")), ptrOf(gatewayv1.SectionName("alt"))})
		return fmt.Sprintf("rules[%d] name", i)
	case n == 7:
		return w.setRoutePlugins(e.meta)
	case n == 8:
		return w.setAnnFrom(e.meta, ingressAnnotations)
	}
	i := w.r.IntN(e.n)
	refs, _ := e.rule(i)
	return fmt.Sprintf("rules[%d] ", i) + w.mutateBackendRefs(ns, refs)
}

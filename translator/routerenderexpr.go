package translator

import (
	"errors"
	"slices"
	"strings"

	"github.com/kongsync/kongsync/translator/atc"
)

// renderExpr sets the route's expression and priority from m, KIC's way for each family, in
// KIC's order of the parts (each part left out when empty):
//
//	Ingress      (hosts and host aliases) && (paths) && (headers) && (methods) && (SNIs)
//	HTTPRoute    (host) && (SNIs) && ((path) && (headers) && (query parameters) && (method))
//	GRPCRoute    (method's path) && (headers) && (host) && (SNIs)
//	stream       (SNIs) && (ports)
//
// The SNIs, headers and methods of Ingresses and the SNIs of Gateway API routes are the route
// annotations'. An HTTPRoute or GRPCRoute match with nothing to match is KIC's catch-all of the
// http and https protocols.
func (t *translation) renderExpr(a *routeAlloc, m *routeMatch) error {
	x := &m.x
	x.reset()
	x.and()
	o := m.rs.options()
	switch m.dialect {
	case dialectIngress:
		m.ingressHosts(o)
		x.or()
		for _, p := range m.paths {
			ingressPathExpr(x, p, m.rs.regexMarker)
		}
		x.end()
		x.annotationHeaders(o.headers)
		x.methods(o.methods)
		x.sniPtrs(o.snis)
	case dialectIngressDefault:
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
	case dialectHTTPRoute:
		x.hosts(m.host())
		x.sniPtrs(o.snis)
		m.httpMatchExpr()
	case dialectGRPCRoute:
		for _, p := range m.paths {
			grpcMethodExpr(x, p)
		}
		m.headerExprs()
		x.hosts(m.host())
		x.sniPtrs(o.snis)
	case dialectStream:
		x.snis(m.snis...)
		x.ports(m.ports...)
	}
	x.end()
	if err := m.checkExpr(); err != nil {
		return err
	}
	if x.empty() {
		if m.dialect == dialectStream {
			return errNothingToMatch
		}
		x.reset()
		x.protocols(catchAllProtocols[:]...)
	}
	xs := m.xs
	if xs == nil {
		xs = &exprRoute{} // the route's own: traditional routes carry none
	}
	x.out = x.appendTo(x.out[:0])
	if m.pack != nil {
		m.pack.reserve(len(x.out))
		m.pack.writeBytes(x.out)
		xs.expr = m.pack.take()
	} else {
		xs.expr = string(x.out)
	}
	xs.prio = m.priority()
	a.r.Expression, a.r.Priority = &xs.expr, &xs.prio
	return nil
}

// catchAllProtocols are the protocols of KIC's catch-all expression, for a split match of an
// HTTPRoute or GRPCRoute with nothing to match (Kong takes no empty expression):
// `(net.protocol == "http") || (net.protocol == "https")`.
var catchAllProtocols = [...]string{"http", "https"}

// checkExpr is what Kong's expressions router says of a Gateway API route's expression when it
// holds what a tenant writes beyond literals (field names, regexes): nil when Kong takes it.
// Ingress paths and annotations are checked where they are read.
func (m *routeMatch) checkExpr() error {
	tenant := len(m.headers) > 0 || len(m.queries) > 0
	for _, p := range m.paths {
		tenant = tenant || p.kind == pathRegex || p.kind == pathGRPCRegex
	}
	if !tenant || m.dialect != dialectHTTPRoute && m.dialect != dialectGRPCRoute {
		return nil
	}
	return atc.Check(m.x.matcher())
}

// ingressHosts adds an Ingress route's Or of its host and the host aliases, each as written
// (KIC matches every alias written, repeats included).
func (m *routeMatch) ingressHosts(o *routeOptions) {
	x := &m.x
	x.or()
	for _, h := range m.hosts {
		x.host(*h)
	}
	if o.aliasesWritten != nil {
		for _, h := range o.aliasesWritten {
			x.host(h)
		}
	} else {
		for _, h := range o.hostAliases {
			x.host(*h)
		}
	}
	x.end()
}

// ingressPathExpr adds one Ingress path's match: Prefix `/foo` is `== "/foo"` or `^= "/foo/"`
// (Prefix `/` is `^= "/"`), Exact `/foo` is `== "/foo"`, ImplementationSpecific is a prefix
// match, or, after the regex marker, a regex anchored with ^ (the marker alone is "^/").
func ingressPathExpr(x *matchExpr, p matchPath, marker string) {
	switch p.kind {
	case pathPrefix:
		// The path is absolute with its slashes collapsed: "/" + base + optionally "/".
		base := strings.Trim(p.value, "/")
		if base == "" {
			x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
			return
		}
		slashed := p.value
		if len(slashed) == len(base)+1 {
			slashed += "/"
		}
		x.or()
		x.str(atc.FieldHTTPPath, atc.OpEqual, slashed[:len(base)+1])
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, slashed)
		x.end()
	case pathExact:
		x.str(atc.FieldHTTPPath, atc.OpEqual, p.value) // "/" + the path without leading slashes
	default:
		if re, ok := strings.CutPrefix(p.value, marker); ok {
			x.str(atc.FieldHTTPPath, atc.OpRegexMatch, anchoredRegex(re))
			return
		}
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, p.value)
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

// httpMatchExpr adds KIC's matcher of an HTTPRoute match: an And of its path, headers (by
// name), query parameters (by name) and method, each present.
func (m *routeMatch) httpMatchExpr() {
	x := &m.x
	x.and()
	for _, p := range m.paths {
		httpPathExpr(x, p, m.rewrite)
	}
	m.headerExprs()
	m.valueExprs(m.queries, atc.QueryField)
	for _, v := range m.methods {
		x.or()
		if validMethod.MatchString(v) {
			x.str(atc.FieldHTTPMethod, atc.OpEqual, v)
		}
		x.end()
	}
	x.end()
}

// headerExprs adds an And of the header matches, by name (exact and regex ones; KIC leaves
// others out).
func (m *routeMatch) headerExprs() { m.valueExprs(m.headers, atc.HeaderField) }

// valueExprs adds an And of the matches vs on the fields field names, by name: exact and regex
// ones (KIC leaves others out); nothing when vs is empty.
func (m *routeMatch) valueExprs(vs []matchValue, field func(name string) atc.Field) {
	if len(vs) == 0 {
		return
	}
	x := &m.x
	x.and()
	for _, i := range m.byName(vs) {
		v := &vs[i]
		switch v.kind {
		case valueExact:
			x.str(field(v.name), atc.OpEqual, v.value)
		case valueRegex:
			x.str(field(v.name), atc.OpRegexMatch, v.value)
		}
	}
	x.end()
}

// byName are the indexes of vs sorted by name, stably.
func (m *routeMatch) byName(vs []matchValue) []int {
	m.order = m.order[:0]
	for i := range vs {
		m.order = append(m.order, i)
	}
	slices.SortStableFunc(m.order, func(a, b int) int { return strings.Compare(vs[a].name, vs[b].name) })
	return m.order
}

// httpPathExpr adds KIC's matcher of an HTTPRoute path match. A prefix (its trailing slash
// dropped) matches itself or below it; with a prefix rewrite, below it through a regex
// capturing the rest.
func httpPathExpr(x *matchExpr, p matchPath, rewrite bool) {
	v := p.value
	switch p.kind {
	case pathNone:
		return
	case pathExact:
		x.str(atc.FieldHTTPPath, atc.OpEqual, v)
		return
	case pathRegex:
		if !strings.HasPrefix(v, "^") {
			v = "^" + v
		}
		x.str(atc.FieldHTTPPath, atc.OpRegexMatch, v)
		return
	}
	if v == "" || v == "/" {
		v = "/"
	} else {
		v = strings.TrimSuffix(v, "/")
	}
	if !rewrite && v == "/" {
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
		return
	}
	x.or()
	x.str(atc.FieldHTTPPath, atc.OpEqual, v)
	switch {
	case rewrite && v == "/":
		x.str(atc.FieldHTTPPath, atc.OpRegexMatch, "^/(.*)")
	case rewrite:
		x.str(atc.FieldHTTPPath, atc.OpRegexMatch, "^"+v+"(/.*)")
	default:
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, v+"/")
	}
	x.end()
}

// grpcMethodExpr adds KIC's path matcher of a GRPCRoute method match.
func grpcMethodExpr(x *matchExpr, p matchPath) {
	noSvc, noMethod := p.flags&pathNoValue != 0, p.flags&pathNoMethod != 0
	switch {
	case noSvc && noMethod:
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
	case p.kind == pathGRPCRegex:
		x.str(atc.FieldHTTPPath, atc.OpRegexMatch, "^"+grpcKongPath(p)[1:])
	case noMethod:
		x.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/"+p.value+"/")
	case noSvc:
		x.str(atc.FieldHTTPPath, atc.OpSuffixMatch, "/"+p.method)
	default:
		x.str(atc.FieldHTTPPath, atc.OpEqual, "/"+p.value+"/"+p.method)
	}
}

// errNothingToMatch: a stream route whose expression would be empty, which Kong refuses.
var errNothingToMatch = errors.New("nothing to match")

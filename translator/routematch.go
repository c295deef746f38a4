package translator

import (
	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// One seam between the route families and Kong's two routers. A family describes what each Kong
// route it makes matches once, in a routeMatch: the hosts, the paths with their kind, the
// headers, query parameters, methods, SNIs and ports its object asks for, and the object's
// route annotations. The description knows no router flavor. render (routerender.go) is the one
// place that turns it into the route's traditional match fields (paths, hosts, headers,
// methods, snis, destinations) or into its expression and priority (routeexpr.go,
// routepriority.go), each as KIC writes that family's routes under that flavor. What stays a
// family's own is which Kong routes exist (under expressions KIC splits HTTPRoutes and
// GRPCRoutes by hostname and match) and the checks of what Kong would refuse.
//
// A family keeps one routeMatch per build and resets it for each route, so that its lists are
// allocated once per build, not per route.

// matchDialect is the family whose matches a routeMatch holds: KIC translates each family's
// matches its own way (path forms, which annotations match, the priority's bit layout).
type matchDialect uint8

const (
	dialectIngress        matchDialect = iota // an Ingress rule route: one host, the paths to one Service port
	dialectIngressDefault                     // the Ingress default backend's catch-all route
	dialectHTTPRoute                          // an HTTPRoute match (traditional: the matches sharing a route)
	dialectGRPCRoute                          // a GRPCRoute match
	dialectStream                             // a TCPIngress or UDPIngress rule
	dialectL4                                 // a TCPRoute, UDPRoute or TLSRoute rule
)

// pathKind is how a path matches.
type pathKind uint8

const (
	pathPrefix    pathKind = iota // the path and the paths below it (Ingress Prefix, Gateway API PathPrefix)
	pathExact                     // the path alone
	pathRegex                     // a regular expression (Gateway API RegularExpression)
	pathAsWritten                 // Ingress ImplementationSpecific: a prefix, or a regex after the regex marker
	pathNone                      // a Gateway API match without a path: it keeps its place (a prefix rewrite reads the first)
	pathGRPC                      // a gRPC method match: value the service, method the method
	pathGRPCRegex                 // a gRPC method match of regular expressions
)

// pathFlags qualify a matchPath.
type pathFlags uint8

const (
	pathNoValue  pathFlags = 1 << iota // a Gateway API path match without a value (manifests only), or a gRPC match without a service
	pathNoMethod                       // a gRPC method match without a method
)

// matchPath is one path a route matches: an Ingress path (slashes collapsed), a Gateway API
// path match's value as written, or a gRPC method match.
type matchPath struct {
	value, method string
	kind          pathKind
	flags         pathFlags
}

// matchOp is how a header or query parameter value matches.
type matchOp uint8

const (
	valueExact matchOp = iota
	valueRegex
	valueOther // a type neither router translates: under expressions KIC leaves it out (it still counts)
)

// matchValue is a header or query parameter match, as written.
type matchValue struct {
	name, value string
	kind        matchOp
}

// routeMatch is what one Kong route matches. Lists the family fills are its own scratch, reset
// per route; hosts alone is kept by the route (the traditional router's hosts), so it must
// point at storage that outlives the build: the route's or the piece's.
type routeMatch struct {
	dialect matchDialect
	rs      *routeSettings // the object's route annotations; KIC applies them per family and flavor
	hosts   []*string
	paths   []matchPath
	headers []matchValue
	queries []matchValue
	methods []string
	snis    []string
	ports   []int
	// rewrite: a URLRewrite filter replaces the matched prefix, so the route's prefix path
	// captures the rest of the path (HTTPRoutes).
	rewrite bool
	// whole: a rule without matches, matching everything its hosts do (GRPCRoutes: without
	// hosts either, the traditional route matches the path "/").
	whole bool
	// pack, when set, holds the strings render makes (the expression, Kong paths), xs the
	// expression and priority, and vals the first Kong paths' strings: a family that allocates
	// its routes in bulk gives them.
	pack *strPack
	xs   *exprRoute
	vals []string

	x     matchExpr // the expression being rendered
	order []int     // sorting scratch (headers and queries by name)
}

// reset starts the description of a route of dialect d with the object's route settings rs.
func (m *routeMatch) reset(d matchDialect, rs *routeSettings) {
	m.dialect, m.rs = d, rs
	m.hosts, m.paths, m.headers, m.queries = nil, m.paths[:0], m.headers[:0], m.queries[:0]
	m.methods, m.snis, m.ports = m.methods[:0], m.snis[:0], m.ports[:0]
	m.rewrite, m.whole, m.pack, m.xs, m.vals = false, false, nil, nil, nil
}

// header and query add a header or query parameter match.
func (m *routeMatch) header(name, value string, k matchOp) {
	m.headers = append(m.headers, matchValue{name: name, value: value, kind: k})
}

func (m *routeMatch) query(name, value string, k matchOp) {
	m.queries = append(m.queries, matchValue{name: name, value: value, kind: k})
}

// host is the route's first host, "" for none.
func (m *routeMatch) host() string {
	if len(m.hosts) == 0 {
		return ""
	}
	return *m.hosts[0]
}

// routeAlloc is a route with the values its own pointer fields point at, so that a typical
// route costs one allocation (plus one for its name and id) instead of one per field. Nothing
// modifies a route after translation.
type routeAlloc struct {
	r              document.Route
	name, id, host string
	hosts          [1]*string
	paths          [2]*string
}

// addPath appends a Kong path; the list's first two entries live in the route's own storage,
// and the path "/" (the most common) points at the shared default.
func (a *routeAlloc) addPath(p string, slash *string) {
	v := slash
	if p != "/" {
		v = kong.String(p)
	}
	a.addPathPtr(v)
}

// addPathPtr appends a Kong path held elsewhere.
func (a *routeAlloc) addPathPtr(v *string) {
	if n := len(a.r.Paths); n < len(a.paths) && (n == 0 || &a.r.Paths[0] == &a.paths[0]) {
		a.paths[n] = v
		a.r.Paths = a.paths[:n+1]
		return
	}
	a.r.Paths = append(a.r.Paths, v)
}

// grpcKongPath is the traditional path of a gRPC method match: ~/<service>/<method>, a missing
// service .+, a missing method "" (.+ for regular expressions).
func grpcKongPath(p matchPath) string {
	regex := p.kind == pathGRPCRegex
	svc, method := p.value, p.method
	if p.flags&pathNoValue != 0 {
		svc = ".+"
	}
	if p.flags&pathNoMethod != 0 {
		method = ""
		if regex {
			method = ".+"
		}
	}
	return "~/" + svc + "/" + method
}

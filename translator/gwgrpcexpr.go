package translator

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator/atc"
)

// grpcExprCtx is what the Kong services of a GRPCRoute are made with under expressions.
type grpcExprCtx struct {
	t         *translation
	p         *routePiece
	ref       store.Ref
	r         *gatewayv1.GRPCRoute
	rs        *routeSettings
	tags      []*string // the route object's, with every named rule (KIC tags per object)
	protocol  string    // of the Kong services
	protocols []*string // of the Kong routes: grpc, grpcs for the parents' HTTP, HTTPS listeners
	hosts     []string  // the route's own hostnames (KIC splits by them only), or one empty
	m         matchExpr // the expression of the route being made
	// noStripPath drops the strip-path annotation's true from the gRPC routes (a problem).
	noStripPath bool
}

// newGRPCExprCtx prepares the expression translation of r and its split matches' ties.
func (t *translation) newGRPCExprCtx(p *routePiece, ref store.Ref, r *gatewayv1.GRPCRoute, rs *routeSettings, tags []*string,
	protocol string) *grpcExprCtx {
	g := &grpcExprCtx{t: t, p: p, ref: ref, r: r, rs: rs, tags: tags, protocol: protocol, hosts: []string{""}}
	if len(r.Spec.Hostnames) > 0 {
		g.hosts = make([]string, len(r.Spec.Hostnames))
		for i, h := range r.Spec.Hostnames {
			g.hosts[i] = string(h)
		}
	}
	var ps []string
	if len(t.parentPorts(ref, r.Spec.ParentRefs, gatewayv1.HTTPProtocolType)) > 0 {
		ps = append(ps, "grpc")
	}
	if len(t.parentPorts(ref, r.Spec.ParentRefs, gatewayv1.HTTPSProtocolType)) > 0 {
		ps = append(ps, "grpcs")
	}
	g.protocols = kong.StringSlice(ps...)
	if o := rs.opts; o != nil && o.stripPath != nil && *o.stripPath && len(ps) > 0 && len(o.protocols) == 0 {
		t.problem(ref, annotationField(annStripPath), "Kong refuses strip_path on a route with protocol %s, and under its "+
			"expressions router KIC would send it (Kong would refuse the whole configuration); annotation ignored", ps[0])
		g.noStripPath = true
	}
	t.reportExprIgnored(ref, r.Annotations)
	for i := range r.Spec.Rules {
		rule := &r.Spec.Rules[i]
		for hi, host := range g.hosts {
			for j := 0; j < max(len(rule.Matches), 1); j++ {
				p.ties = append(p.ties, exprTie{name: grpcExprName(ref, host, i) + "." + strconv.Itoa(j),
					base: grpcBasePriority(host, grpcMatchAt(rule, j)), rule: int32(i), match: int32(j), host: int32(hi)})
			}
		}
	}
	slices.SortFunc(p.ties, func(a, b exprTie) int { return strings.Compare(a.name, b.name) })
	p.owner = tieOwner{created: r.CreationTimestamp.Time, ns: ref.Namespace, name: ref.Name}
	return g
}

// grpcExprName is KIC's Kong service name of one hostname and rule of a GRPCRoute.
func grpcExprName(ref store.Ref, host string, rule int) string {
	return "grpcroute." + ref.Namespace + "." + ref.Name + "." + hostLabel(host) + "." + strconv.Itoa(rule)
}

// grpcMatchAt is match j of a rule, or an empty one for a rule without matches.
func grpcMatchAt(rule *gatewayv1.GRPCRouteRule, j int) *gatewayv1.GRPCRouteMatch {
	if j < len(rule.Matches) {
		return &rule.Matches[j]
	}
	return &gatewayv1.GRPCRouteMatch{}
}

// rule makes the Kong services of rule i, one per hostname, each with one Kong route per match.
func (g *grpcExprCtx) rule(i int, bes []gwBackend) {
	rule := &g.r.Spec.Rules[i]
	for _, host := range g.hosts {
		name := grpcExprName(g.ref, host, i)
		var routes []*document.Route
		for j := 0; j < max(len(rule.Matches), 1); j++ {
			r, ok := g.route(name+"."+strconv.Itoa(j), host, i, j, grpcMatchAt(rule, j))
			if !ok {
				return
			}
			routes = append(routes, r)
		}
		g.t.buildRouteService(g.p, store.KindGRPCRoute, g.r, &routeService{name: name, protocol: g.protocol, backends: bes,
			refs: len(rule.BackendRefs), routes: routes})
	}
}

// route is the Kong route of one split match.
func (g *grpcExprCtx) route(name, host string, rule, match int, mt *gatewayv1.GRPCRouteMatch) (*document.Route, bool) {
	m := &g.m
	m.reset()
	m.and()
	if mt.Method != nil {
		grpcMethodExpr(m, mt.Method)
	}
	if len(mt.Headers) > 0 {
		hs := slices.Clone(mt.Headers)
		slices.SortStableFunc(hs, func(a, b gatewayv1.GRPCHeaderMatch) int { return strings.Compare(string(a.Name), string(b.Name)) })
		m.and()
		for _, x := range hs {
			headerExpr(m, string(x.Name), x.Type == nil || *x.Type == gatewayv1.GRPCHeaderMatchExact,
				x.Type != nil && *x.Type == gatewayv1.GRPCHeaderMatchRegularExpression, x.Value)
		}
		m.end()
	}
	m.hosts(host)
	if g.rs.opts != nil {
		m.sniPtrs(g.rs.opts.snis)
	}
	m.end()
	if mt.Method != nil && mt.Method.Type != nil && *mt.Method.Type == gatewayv1.GRPCMethodMatchRegularExpression || len(mt.Headers) > 0 {
		if err := checkExpr(m); err != nil {
			g.t.problem(g.ref, "spec.rules["+strconv.Itoa(rule)+"].matches["+strconv.Itoa(match)+"]",
				"Kong's expressions router refuses the match (%s); the rule is skipped", err.Error())
			return nil, false
		}
	}
	r := &document.Route{Route: kong.Route{ID: kong.String(g.t.ids.routes.id(name)), Name: kong.String(name),
		PreserveHost: g.t.defaults.yes, Protocols: g.protocols, Tags: g.tags}}
	exprRouteTail(&exprRoute{}, r, m, grpcBasePriority(host, mt), g.rs)
	if g.noStripPath {
		r.StripPath = nil
	}
	if r.HTTPSRedirectStatusCode == nil {
		r.HTTPSRedirectStatusCode = g.t.defaults.code426
	}
	return r, true
}

// grpcMethodExpr adds KIC's path matcher of a GRPCRoute method match.
func grpcMethodExpr(m *matchExpr, mm *gatewayv1.GRPCMethodMatch) {
	svc, method := mm.Service, mm.Method
	switch {
	case svc == nil && method == nil:
		m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/")
	case mm.Type != nil && *mm.Type == gatewayv1.GRPCMethodMatchRegularExpression:
		m.str(atc.FieldHTTPPath, atc.OpRegexMatch, "^/"+grpcPathPart(mm.Type, svc, ".+")+"/"+grpcPathPart(mm.Type, method, ".+"))
	case method == nil:
		m.str(atc.FieldHTTPPath, atc.OpPrefixMatch, "/"+*svc+"/")
	case svc == nil:
		m.str(atc.FieldHTTPPath, atc.OpSuffixMatch, "/"+*method)
	default:
		m.str(atc.FieldHTTPPath, atc.OpEqual, "/"+*svc+"/"+*method)
	}
}

// grpcBasePriority is KIC's priority of a GRPCRoute split match without the relative-order
// bits: bit 43 a precise hostname, 35-42 its length, 24-34 the service's length, 13-23 the
// method's, 8-12 the header matches, 44-45 the kind.
func grpcBasePriority(host string, m *gatewayv1.GRPCRouteMatch) uint64 {
	p := uint64(priorityKindGRPCRoute) << priorityKindShift
	if host != "" {
		p += uint64(len(host)) << 35
		if !strings.HasPrefix(host, "*") {
			p += 1 << 43
		}
	}
	if mm := m.Method; mm != nil {
		if mm.Service != nil {
			p += uint64(len(*mm.Service)) << 24
		}
		if mm.Method != nil {
			p += uint64(len(*mm.Method)) << 13
		}
	}
	return p + uint64(len(m.Headers))<<8
}

// grpcPathPart is a method match's service or method: the value, or KIC's default for a
// missing one (exactDefault for Exact matches, ".+" for RegularExpression ones).
func grpcPathPart(typ *gatewayv1.GRPCMethodMatchType, v *string, exactDefault string) string {
	if v != nil {
		return *v
	}
	if typ != nil && *typ == gatewayv1.GRPCMethodMatchRegularExpression {
		return ".+"
	}
	return exactDefault
}

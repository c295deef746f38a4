package translator

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
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
	hosts     []*string // the route's own hostnames (KIC splits by them only), or one nil
	m         *routeMatch
	// noStripPath drops the strip-path annotation's true from the gRPC routes (a problem).
	noStripPath bool
}

// newGRPCExprCtx prepares the expression translation of r and its split matches' ties.
func (t *translation) newGRPCExprCtx(p *routePiece, ref store.Ref, r *gatewayv1.GRPCRoute, rs *routeSettings, tags []*string,
	protocol string, m *routeMatch) *grpcExprCtx {
	g := &grpcExprCtx{t: t, p: p, ref: ref, r: r, rs: rs, tags: tags, protocol: protocol, hosts: []*string{nil}, m: m}
	if len(r.Spec.Hostnames) > 0 {
		g.hosts = hostnamePtrs(r.Spec.Hostnames)
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
				describeGRPC(m, rs, g.hostList(hi), grpcMatchAt(rule, j))
				p.ties = append(p.ties, exprTie{name: grpcExprName(ref, hostString(host), i) + "." + strconv.Itoa(j),
					base: m.grpcBasePriority(), rule: int32(i), match: int32(j), host: int32(hi)})
			}
		}
	}
	slices.SortFunc(p.ties, func(a, b exprTie) int { return strings.Compare(a.name, b.name) })
	p.owner = tieOwner{created: r.CreationTimestamp.Time, ns: ref.Namespace, name: ref.Name}
	return g
}

// hostList is the hosts of the split matches of hostname hi: it, or none.
func (g *grpcExprCtx) hostList(hi int) []*string {
	if g.hosts[hi] == nil {
		return nil
	}
	return g.hosts[hi : hi+1]
}

// hostString is a hostname, "" for none.
func hostString(h *string) string {
	if h == nil {
		return ""
	}
	return *h
}

// grpcExprName is KIC's Kong service name of one hostname and rule of a GRPCRoute.
func grpcExprName(ref store.Ref, host string, rule int) string {
	return "grpcroute." + ref.Namespace + "." + ref.Name + "." + hostLabel(host) + "." + strconv.Itoa(rule)
}

// rule makes the Kong services of rule i, one per hostname, each with one Kong route per match.
func (g *grpcExprCtx) rule(i int, bes []gwBackend) {
	rule := &g.r.Spec.Rules[i]
	for hi, host := range g.hosts {
		name := grpcExprName(g.ref, hostString(host), i)
		var routes []*document.Route
		for j := 0; j < max(len(rule.Matches), 1); j++ {
			r, ok := g.route(name+"."+strconv.Itoa(j), hi, i, j, grpcMatchAt(rule, j))
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
func (g *grpcExprCtx) route(name string, hi, rule, match int, mt *gatewayv1.GRPCRouteMatch) (*document.Route, bool) {
	a := &routeAlloc{name: name, id: g.t.ids.routes.id(name)}
	a.r.Route = kong.Route{ID: &a.id, Name: &a.name, PreserveHost: g.t.defaults.yes, Protocols: g.protocols, Tags: g.tags}
	describeGRPC(g.m, g.rs, g.hostList(hi), mt)
	if err := g.t.render(a, g.m); err != nil {
		g.t.problem(g.ref, "spec.rules["+strconv.Itoa(rule)+"].matches["+strconv.Itoa(match)+"]",
			"Kong's expressions router refuses the match (%s); the rule is skipped", err.Error())
		return nil, false
	}
	if g.noStripPath {
		a.r.StripPath = nil
	}
	return &a.r, true
}

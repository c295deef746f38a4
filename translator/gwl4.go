package translator

import (
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// l4Rule is what TCPRoute, UDPRoute and TLSRoute rules share.
type l4Rule struct {
	name     *gatewayv1.SectionName
	backends []gatewayv1.BackendRef
}

func l4Rules[R any](rules []R, f func(R) l4Rule) []l4Rule {
	out := make([]l4Rule, len(rules))
	for i, r := range rules {
		out[i] = f(r)
	}
	return out
}

// routePrefix is the first label of the names of a route kind's Kong entities.
func routePrefix(k store.Kind) string {
	switch k {
	case store.KindHTTPRoute:
		return "httproute"
	case store.KindGRPCRoute:
		return "grpcroute"
	case store.KindTCPRoute:
		return "tcproute"
	case store.KindUDPRoute:
		return "udproute"
	}
	return "tlsroute"
}

// l4RoutePiece translates a TCPRoute, UDPRoute or TLSRoute as KIC does: one Kong service per
// rule, `<kind>.<ns>.<name>.<rule>`, with one route `….<rule>.0` matching the ports of the
// Gateway listeners the parentRefs name (TCP and UDP) or the route's hostnames as SNIs (TLS
// passthrough). A TCP or UDP rule without backendRefs is skipped, as KIC skips it.
func (t *translation) l4RoutePiece(kind store.Kind, obj store.Object, spec gatewayv1.CommonRouteSpec, rules []l4Rule,
	hostnames []gatewayv1.Hostname, sc *gwScratch) *routePiece {
	ref := routeRef(kind, obj)
	b := t.bindParents(ref, obj, spec.ParentRefs, hostnames, nil, sc)
	p := &routePiece{parents: b.parents, served: b.served()}
	if !p.served {
		t.unservedL4(p, ref, rules)
		return p
	}
	base := routePrefix(kind) + "." + ref.Namespace + "." + ref.Name + "."
	protocol := map[store.Kind]string{store.KindTCPRoute: "tcp", store.KindUDPRoute: "udp", store.KindTLSRoute: "tcp"}[kind]
	ports := t.parentPorts(ref, spec.ParentRefs, routeProtocols(kind)[0])
	if kind != store.KindTLSRoute && len(ports) == 0 {
		// KIC emits a stream route without destinations, which Kong refuses (with the whole config).
		t.problem(ref, "spec.parentRefs", "no %s listener port of a parent Gateway is known; the route is not translated",
			routeProtocols(kind)[0])
		p.served = false
		t.unservedL4(p, ref, rules)
		return p
	}
	rs := t.routeSettingsFor(ref, obj)
	if t.expressions() {
		t.reportExprIgnored(ref, obj.GetAnnotations())
	}
	var resolved refsVerdict
	for i, r := range rules {
		field := "spec.rules[" + strconv.Itoa(i) + "]"
		if kind != store.KindTLSRoute && len(r.backends) == 0 {
			t.problem(ref, field+".backendRefs", "a %s rule needs at least one backendRef; rule skipped", kind)
			continue
		}
		bes, reason := t.resolveBackendRefs(ref, len(r.backends), func(k int) *gatewayv1.BackendRef { return &r.backends[k] }, field, nil)
		if resolved.reason == "" {
			resolved = reason
		}
		name := base + strconv.Itoa(i)
		route, ok := t.l4Route(kind, obj, name+".0", r.name, ports, hostnames, passthrough(b.listeners), rs, &sc.match)
		if !ok {
			t.problem(ref, field, "nothing to match under Kong's expressions router (KIC's SNI check takes no wildcard hostname); rule skipped")
			continue
		}
		t.buildRouteService(p, kind, obj, &routeService{name: name, protocol: protocol, backends: bes,
			refs: len(r.backends), routes: []*document.Route{route}})
	}
	setResolvedRefs(p, resolved)
	t.annotationPlugins(p, ref, obj)
	return p
}

// unservedL4 sets the ResolvedRefs condition of an L4 or TLS route that is not translated.
func (t *translation) unservedL4(p *routePiece, ref store.Ref, rules []l4Rule) {
	if len(p.parents) == 0 {
		return
	}
	refs := make([][]gatewayv1.BackendRef, len(rules))
	for i := range rules {
		refs[i] = rules[i].backends
	}
	setResolvedRefs(p, t.unservedRefs(ref, refs))
}

// l4Route is the one Kong route of an L4 or TLS rule: the listener ports (TCP and UDP) or the
// route's hostnames as SNIs (TLS), rendered for the router flavor translated for (m is the
// build's scratch); false when nothing is left to match under expressions.
func (t *translation) l4Route(kind store.Kind, obj store.Object, name string, rule *gatewayv1.SectionName,
	ports []int32, hostnames []gatewayv1.Hostname, passthrough bool, rs *routeSettings, m *routeMatch) (*document.Route, bool) {
	a := &routeAlloc{name: name, id: t.ids.routes.id(name)}
	a.r.Route = kong.Route{ID: &a.id, Name: &a.name, Tags: routeTags(kind, obj, rule)}
	m.reset(dialectStream, rs)
	switch kind {
	case store.KindTLSRoute:
		a.r.Protocols = kong.StringSlice("tls")
		if passthrough {
			a.r.Protocols = kong.StringSlice("tls_passthrough")
		}
		for _, h := range hostnames {
			m.snis = append(m.snis, string(h))
		}
	default:
		a.r.Protocols = kong.StringSlice(map[store.Kind]string{store.KindTCPRoute: "tcp", store.KindUDPRoute: "udp"}[kind])
		for _, p := range ports {
			m.ports = append(m.ports, int(p))
		}
	}
	return &a.r, t.render(a, m) == nil
}

// routeTags are a route object's tags, with KIC's k8s-named-route-rule tag for a named rule.
func routeTags(kind store.Kind, obj store.Object, rule *gatewayv1.SectionName) []*string {
	if rule == nil || strings.TrimSpace(string(*rule)) == "" {
		return objectTagsIn(kind, obj, nil, nil)
	}
	return objectTagsWith(kind, obj, TagNamedRouteRule, []string{string(*rule)})
}

// setResolvedRefs records the route's ResolvedRefs condition on each of its parents.
func setResolvedRefs(p *routePiece, v refsVerdict) {
	for i := range p.parents {
		ps := &p.parents[i]
		ps.ResolvedRefs, ps.ResolvedRefsReason, ps.ResolvedRefsMessage = v.reason == "", v.reason, v.message
		if v.reason == "" {
			ps.ResolvedRefsReason = ReasonResolvedRefs
		}
	}
}

// passthrough reports whether a TLSRoute attached to a listener that passes TLS through (KIC
// reads the same from the route's status; kongsync from the spec it admitted the route by).
func passthrough(ls []*gatewayv1.Listener) bool {
	for _, l := range ls {
		if l.TLS != nil && l.TLS.Mode != nil && *l.TLS.Mode == gatewayv1.TLSModePassthrough {
			return true
		}
	}
	return false
}

package translator

import (
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// grpcRoutePiece translates a GRPCRoute as KIC's traditional router does: one Kong service per
// rule (grpc when a parent Gateway has an HTTP listener, else grpcs), one Kong route per match
// with the path ~/<service>/<method>, and on every route a k8s-named-route-rule tag for every
// named rule of the GRPCRoute (KIC tags them per object).
func (t *translation) grpcRoutePiece(r *gatewayv1.GRPCRoute, sc *gwScratch) *routePiece {
	ref := routeRef(store.KindGRPCRoute, r)
	b := t.bindParents(ref, r, r.Spec.ParentRefs, r.Spec.Hostnames, nil, sc)
	m := &sc.match
	p := &routePiece{parents: b.parents, served: b.served()}
	if !p.served {
		t.unservedGRPC(p, ref, r)
		return p
	}
	rs := t.routeSettingsFor(ref, r)
	var names []string
	for _, rule := range r.Spec.Rules {
		if rule.Name != nil && strings.TrimSpace(string(*rule.Name)) != "" {
			names = append(names, string(*rule.Name))
		}
	}
	tags := objectTagsWith(store.KindGRPCRoute, r, TagNamedRouteRule, names)
	hosts := t.grpcHosts(ref, r)
	protocol := "grpcs"
	if len(t.parentPorts(ref, r.Spec.ParentRefs, gatewayv1.HTTPProtocolType)) > 0 {
		protocol = "grpc"
	}
	base := "grpcroute." + ref.Namespace + "." + ref.Name + "."
	var ex *grpcExprCtx
	if t.expressions() {
		ex = t.newGRPCExprCtx(p, ref, r, rs, tags, protocol, m)
	}
	var resolved refsVerdict
	for i := range r.Spec.Rules {
		rule := &r.Spec.Rules[i]
		field := "spec.rules[" + strconv.Itoa(i) + "]"
		if len(rule.Filters) > 0 {
			t.problem(ref, field+".filters", "GRPCRoute filters are not applied (KIC ignores them too)")
		}
		bes, reason := t.resolveBackendRefs(ref, len(rule.BackendRefs), func(k int) *gatewayv1.BackendRef {
			return &rule.BackendRefs[k].BackendRef
		}, field, nil)
		if resolved.reason == "" {
			resolved = reason
		}
		if ex != nil {
			ex.rule(i, bes)
			continue
		}
		if t.badGRPCMatch(ref, i, rule) {
			continue
		}
		name := base + strconv.Itoa(i)
		routes := t.grpcRuleRoutes(name, rule, hosts, tags, rs, m)
		t.buildRouteService(p, store.KindGRPCRoute, r, &routeService{name: name, protocol: protocol, backends: bes,
			refs: len(rule.BackendRefs), routes: routes})
	}
	setResolvedRefs(p, resolved)
	t.annotationPlugins(p, ref, r)
	return p
}

// grpcRuleRoutes are the Kong routes of one GRPCRoute rule named `<service name>.<match>`, each
// matching its match (a rule without matches: everything) under the route's hosts.
func (t *translation) grpcRuleRoutes(svcName string, rule *gatewayv1.GRPCRouteRule, hosts, tags []*string, rs *routeSettings,
	m *routeMatch) []*document.Route {
	protocols := kong.StringSlice("grpc", "grpcs")
	mk := func(j int, mt *gatewayv1.GRPCRouteMatch) *document.Route {
		name := svcName + "." + strconv.Itoa(j)
		a := &routeAlloc{name: name, id: t.ids.routes.id(name)}
		a.r.Route = kong.Route{ID: &a.id, Name: &a.name, Protocols: protocols, Hosts: hosts, Tags: tags}
		describeGRPC(m, rs, hosts, mt)
		_ = t.render(a, m) // the traditional router refuses nothing here
		return &a.r
	}
	var out []*document.Route
	if len(rule.Matches) == 0 {
		out = append(out, mk(0, nil))
	}
	for j := range rule.Matches {
		out = append(out, mk(j, &rule.Matches[j]))
	}
	return out
}

// grpcHosts are a GRPCRoute's hostnames, else the hostnames of its parent Gateways' listeners
// (sectionName respected, listeners without one skipped); none when a parent Gateway is missing.
func (t *translation) grpcHosts(ref store.Ref, r *gatewayv1.GRPCRoute) []*string {
	if len(r.Spec.Hostnames) > 0 {
		return hostnamePtrs(r.Spec.Hostnames)
	}
	var gws []gatewayv1.ParentReference
	for _, pr := range r.Spec.ParentRefs {
		if pr.Kind == nil || *pr.Kind == "Gateway" {
			gws = append(gws, pr)
		}
	}
	var out []*string
	if !t.parentListeners(ref, gws, func(l *gatewayv1.Listener) {
		if l.Hostname != nil {
			out = append(out, kong.String(string(*l.Hostname)))
		}
	}) {
		return nil
	}
	return out
}

// badGRPCMatch reports, and returns true for, a GRPCRoute method match whose Kong path Kong
// refuses (a RegularExpression service or method that PCRE2 does not compile).
func (t *translation) badGRPCMatch(ref store.Ref, rule int, r *gatewayv1.GRPCRouteRule) bool {
	for m := range r.Matches {
		mm := r.Matches[m].Method
		if mm == nil {
			continue
		}
		kp := "~/" + grpcPathPart(mm.Type, mm.Service, ".+") + "/" + grpcPathPart(mm.Type, mm.Method, "")
		if why := kongPathProblem(kp); why != "" {
			t.problem(ref, "spec.rules["+strconv.Itoa(rule)+"].matches["+strconv.Itoa(m)+"].method",
				"Kong path %s %s; the rule is skipped", quoteShort(kp), why)
			return true
		}
	}
	return false
}

// unservedGRPC sets the ResolvedRefs condition of a GRPCRoute that is not translated.
func (t *translation) unservedGRPC(p *routePiece, ref store.Ref, r *gatewayv1.GRPCRoute) {
	if len(p.parents) == 0 {
		return
	}
	rules := make([][]gatewayv1.BackendRef, len(r.Spec.Rules))
	for i := range r.Spec.Rules {
		for _, br := range r.Spec.Rules[i].BackendRefs {
			rules[i] = append(rules[i], br.BackendRef)
		}
	}
	setResolvedRefs(p, t.unservedRefs(ref, rules))
}

package translator

import (
	networkingv1 "k8s.io/api/networking/v1"
)

// An Ingress's route annotations (host aliases, methods, SNIs, protocols, headers, tags) are
// repeated on each of its routes, and each route path matches under each of its hosts. Both
// multiply: 256 KiB of host aliases on an Ingress of 10,000 hosts would be 2.5 GB of hosts in
// Kong's config, and an alias list times a long path list makes as many host+path claims for
// the ambiguity check (ingressoverlap.go). The API server bounds each object, not these products; KIC
// builds them all. kongsync bounds both products by the Ingress's own size: at most
// routeBudgetFactor times its size, and never less than routeBudgetFloor, which no Ingress a
// person writes comes near. An Ingress beyond that makes no routes, with a problem: dropping
// only some annotations could widen what its routes match.
const (
	routeBudgetFactor = 64
	routeBudgetFloor  = 256 << 10
)

// overRouteBudget reports, with a problem, whether an Ingress's route groups would exceed the
// route budget: the annotation bytes repeated on every route (the default backend's included),
// or the host+path combinations of its routes.
func (t *ingressBuild) overRouteBudget(ing *networkingv1.Ingress, rs *routeSettings, groups []routeGroup) bool {
	if rs.opts == nil {
		return false // without route annotations, routes hold only the Ingress's own hosts and paths
	}
	routes := len(groups)
	if ing.Spec.DefaultBackend != nil {
		routes++
	}
	aliases := len(rs.opts.hostAliases)
	copies, claims := routes*rs.opts.copied, 0
	for _, g := range groups {
		hosts := aliases
		if g.host != "" || aliases == 0 {
			hosts++
		}
		paths := 0
		for i := range min(g.n, len(g.first)) {
			paths += t.ingressPathMatches(g.first[i])
		}
		for _, p := range g.more {
			paths += t.ingressPathMatches(p)
		}
		claims += hosts * paths
	}
	limit := max(routeBudgetFloor, routeBudgetFactor*ingressSize(ing))
	if copies <= limit && claims <= limit {
		return false
	}
	t.problem(ingressRef(ing), "metadata.annotations", "its route(s), %d, would each repeat %d bytes of route "+
		"annotation values (%d in all) and match %d host+path combinations; kongsync allows an Ingress %d of each "+
		"(%d times its size); the Ingress's routes are skipped",
		routes, rs.opts.copied, copies, claims, limit, routeBudgetFactor)
	return true
}

// ingressSize is about the size of an Ingress as written: its annotations, rule hosts and paths.
func ingressSize(ing *networkingv1.Ingress) int {
	n := 0
	for k, v := range ing.Annotations {
		n += len(k) + len(v) + 4
	}
	for i := range ing.Spec.Rules {
		r := &ing.Spec.Rules[i]
		n += len(r.Host) + 16
		if r.HTTP == nil {
			continue
		}
		for j := range r.HTTP.Paths {
			p := &r.HTTP.Paths[j]
			n += len(p.Path) + 32
			if b := p.Backend.Service; b != nil {
				n += len(b.Name) + len(b.Port.Name)
			}
		}
	}
	return n
}

package translator

import (
	"slices"
	"strconv"

	"github.com/kong/go-kong/kong"
	networkingv1 "k8s.io/api/networking/v1"
)

// ingressPiece is the piece of ing.
func (t *ingressBuild) ingressPiece(ing *networkingv1.Ingress) *ingressPiece {
	return piece(t.translation, t.memos.ingresses, ing, func() *ingressPiece {
		p := &ingressPiece{epoch: t.memos.idents.epoch}
		p.rs = t.parseRouteSettingsInto(ing, &p.rsBuf)
		p.uses = p.useBuf[:0]
		t.translateRules(ing, p)
		t.defaultBackendPiece(ing, p)
		return p
	})
}

// attachRules adds a piece's rule routes to this build's Kong services.
func (t *ingressBuild) attachRules(p *ingressPiece) {
	for i := range p.uses {
		u := &p.uses[i]
		ks := t.kongService(&u.be)
		ks.fromRules = true
		ks.routes = append(ks.routes, u.route)
	}
}

// translateRules turns an Ingress's rules into routes, one per host and backend. A path whose
// backend cannot be resolved is skipped with a problem; the rest of the Ingress still counts.
// An Ingress whose routes would exceed the route budget (ingressbudget.go) makes none.
func (t *ingressBuild) translateRules(ing *networkingv1.Ingress, p *ingressPiece) {
	if p.rs.skip {
		return
	}
	var buf [4]routeGroup
	groups := routeGroups{list: buf[:0]}
	for i := range ing.Spec.Rules {
		rule := &ing.Spec.Rules[i]
		if rule.HTTP == nil || t.badRuleHost(ing, i, rule.Host) {
			continue
		}
		if rule.Host != "" && t.expressions() && !kicHost(rule.Host) {
			t.problem(ingressRef(ing), "spec.rules["+strconv.Itoa(i)+"].host", "%s fails KIC's host check, so under Kong's expressions "+
				"router its routes match any host, as KIC's do", quoteShort(rule.Host))
		}
		for j := range rule.HTTP.Paths {
			groups = t.translatePath(ing, p, rule.Host, &rule.HTTP.Paths[j], pathPos{i, j}, groups)
		}
	}
	if t.overRouteBudget(ing, p.rs, groups.list) {
		p.rs.skip = true
		return
	}
	for i := range groups.list {
		g := &groups.list[i]
		g.describe(&t.match, p.rs)
		_ = t.render(g.route, &t.match) // what Kong refuses was checked path by path
		u := ruleUse{be: g.be, route: &g.route.r}
		if !t.expressions() { // the ambiguity check's keys: traditional paths only (ingressoverlap.go)
			var hb [4]uint64
			u.setKeys(keyHashes(t.seed, &g.route.r, hb[:0]))
		}
		p.uses = append(p.uses, u)
	}
}

// translatePath adds one Ingress path to the route of its (host, Service, port) group,
// creating the route when it does not exist yet. The groups go by value, not by pointer, so
// that their first few stay in translateRules's stack buffer.
func (t *ingressBuild) translatePath(ing *networkingv1.Ingress, ip *ingressPiece, host string,
	p *networkingv1.HTTPIngressPath, pos pathPos, groups routeGroups,
) routeGroups {
	rs := ip.rs
	pt := networkingv1.PathTypeImplementationSpecific
	if p.PathType != nil {
		pt = *p.PathType
	}
	switch pt {
	case networkingv1.PathTypePrefix, networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific:
	default:
		t.problem(ingressRef(ing), pos.field(".pathType"), "unknown path type %q; path skipped", pt)
		return groups
	}
	path := collapseSlashes(p.Path)
	if path == "" {
		path = "/"
	}
	if path[0] != '/' {
		t.problem(ingressRef(ing), pos.field(".path"), "%s is not an absolute path; path skipped", quoteShort(p.Path))
		return groups
	}
	if x := t.expressions(); x && t.badExprPath(ing, pos, path, pt, rs) || !x && t.badKongPath(ing, pos, path, pt, rs) {
		return groups
	}
	be, ok := t.resolvePathBackend(ing, &p.Backend, pos)
	if !ok {
		return groups
	}
	g := groups.find(be.ident, host)
	if g == nil {
		groups, g = groups.add(routeGroup{be: be, host: host, route: t.newRuleRoute(ing, rs, &be, host)})
	}
	g.addPath(ingressPathKind(pt), path)
	return groups
}

// newRuleRoute creates the route of one (Ingress, host, Service, port) group.
func (t *ingressBuild) newRuleRoute(ing *networkingv1.Ingress, rs *routeSettings, be *backend, host string) *routeAlloc {
	var buf [256]byte
	name := appendRouteName(buf[:0], ing.Namespace, ing.Name, be.svc.Name, host, be.port)
	if be.facade != nil {
		name = appendFacadeRouteName(buf[:0], ing.Namespace, ing.Name, host, be.facade.Name)
	}
	a := t.newRoute(name, rs)
	a.host = host
	a.hosts[0] = &a.host
	if rs.opts != nil && rs.opts.rewrite != nil {
		a.r.Plugins = []*kong.Plugin{rs.opts.rewrite}
	}
	return a
}

// newRoute returns a route with KIC's defaults, the Ingress's tags, the settings its
// annotations ask for, and its id.
func (t *ingressBuild) newRoute(name []byte, rs *routeSettings) *routeAlloc {
	d := t.defaults
	a := &routeAlloc{}
	a.name, a.id = withID(name, t.ids.routes)
	r := &a.r
	r.Route = kong.Route{
		ID:                      &a.id,
		Name:                    &a.name,
		StripPath:               d.no,
		PreserveHost:            d.yes,
		RegexPriority:           d.zero,
		RequestBuffering:        d.yes,
		ResponseBuffering:       d.yes,
		HTTPSRedirectStatusCode: d.code426,
		PathHandling:            d.v0,
		Tags:                    rs.tags,
	}
	return a
}

// defaultBackendPiece resolves the Ingress's default backend into its piece: the catch-all
// route `<namespace>.<ingress>` with path `/`, should this Ingress provide the cluster's one.
func (t *ingressBuild) defaultBackendPiece(ing *networkingv1.Ingress, p *ingressPiece) {
	db := ing.Spec.DefaultBackend
	if db == nil || p.rs.skip {
		return
	}
	d := &defaultPiece{}
	p.def = d
	before := len(t.problems)
	defer func() {
		d.problems = slices.Clone(t.problems[before:])
		t.problems = t.problems[:before]
	}()
	be, ok := t.resolveDefaultBackend(ing, db)
	if !ok {
		return
	}
	var buf [256]byte
	a := t.newRoute(append(append(append(buf[:0], ing.Namespace...), '.'), ing.Name...), p.rs)
	t.match.reset(dialectIngressDefault, p.rs)
	_ = t.render(a, &t.match) // the path "/" is always taken
	d.ok, d.be, d.route = true, be, &a.r
}

// translateDefaultBackend gives the cluster one catch-all route from the oldest Ingress that has
// a usable default backend. Younger default backends are reported as ignored.
// Only the Ingresses at positions defs can have one; the route is attached to its Kong service
// when the routes were grouped afresh (attach), else the kept grouping holds it.
func (t *ingressBuild) translateDefaultBackend(ings []*networkingv1.Ingress, ps []*ingressPiece, defs []int, attach bool) {
	var winner *networkingv1.Ingress
	for _, i := range defs {
		d := ps[i].def
		if d == nil {
			continue
		}
		ing := ings[i]
		if winner != nil {
			t.problem(ingressRef(ing), "spec.defaultBackend",
				"ignored: Ingress %s/%s provides the default backend (the oldest Ingress with a usable one wins)", winner.Namespace, winner.Name)
			continue
		}
		t.problems = append(t.problems, d.problems...)
		if !d.ok {
			continue
		}
		winner = ing
		if attach {
			ks := t.kongService(&d.be)
			ks.routes = append(ks.routes, d.route)
		}
		t.defaultRoute = d.route
	}
}

// badRuleHost reports, and returns true for, an Ingress rule whose host is not a valid host.
func (t *ingressBuild) badRuleHost(ing *networkingv1.Ingress, i int, host string) bool {
	if host == "" || validHost(host) {
		return false
	}
	t.problem(ingressRef(ing), "spec.rules["+strconv.Itoa(i)+"].host",
		"%s is not a valid host (a DNS name, optionally starting with *.); rule skipped", quoteShort(host))
	return true
}

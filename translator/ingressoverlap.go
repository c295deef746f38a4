package translator

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sort"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
)

// Two rule routes to different Kong services (Service and port) that match the same host and
// the same Kong path with the same methods, headers, SNIs and protocols are ambiguous: Kong
// accepts both and its router picks one by an order users cannot see. KIC leaves that to Kong.
// Routes to the same Kong service are kept as KIC keeps them (KIC's golden corpus has two
// Ingresses routing one host and path to one Service): either route reaches the same backend. kongsync keeps the path of the oldest Ingress (the order that also decides TLS
// hosts and the default backend; within one Ingress, the smaller route name) and drops it from
// the others, with a problem on each loser. A route left without paths is dropped, since a route
// without paths matches every path. Default-backend routes are not considered: they are the
// catch-all by design. Routes that differ in any criterion are left to Kong's priority rules.

// pathClaim is one (route, path) pair that takes part in the ambiguity check.
type pathClaim struct {
	order int // index of the route's Ingress in Ingress order
	svc   int // index in the services list
	route *document.Route
	path  int
	crit  string // the route's criteriaKey, made once per route
}

// dropAmbiguousPaths applies the rule above to the sorted services. Routes and services that
// change are copied, never modified: they may be shared with a cache.
func (t *ingressBuild) dropAmbiguousPaths(services []*document.Service, ings []*networkingv1.Ingress, ps []*ingressPiece) []*document.Service {
	if len(ings) < 1 || !t.mayShare(ps) {
		return services
	}
	claims := pathClaims(services, ings)
	if !anyShared(claims) {
		return services
	}
	slices.SortStableFunc(claims, func(a, b pathClaim) int {
		if a.order != b.order {
			return cmp.Compare(a.order, b.order)
		}
		return strings.Compare(*a.route.Name, *b.route.Name)
	})
	owner := make(map[matchKey]pathClaim, len(claims))
	drop := map[*document.Route]map[int]bool{}
	fields := ruleFields{}
	var kb [4]matchKey
	for _, c := range claims {
		keys := matchKeys(c.route, c.crit, *c.route.Paths[c.path], kb[:0])
		var winner *document.Route
		for _, k := range keys {
			if w, ok := owner[k]; ok && w.svc != c.svc {
				winner = w.route
				break
			}
		}
		if winner == nil {
			for _, k := range keys {
				if _, ok := owner[k]; !ok {
					owner[k] = c
				}
			}
			continue
		}
		if drop[c.route] == nil {
			drop[c.route] = map[int]bool{}
		}
		drop[c.route][c.path] = true
		t.ambiguousProblem(fields.of(ings[c.order], ps[c.order].rs), ings[c.order], services[c.svc], c.route,
			*c.route.Paths[c.path], winner)
	}
	if len(drop) == 0 {
		return services
	}
	t.dropped = true
	return applyDrops(services, drop)
}

// pathClaims are the (route, path) pairs of the Ingresses' rule routes, in services order.
func pathClaims(services []*document.Service, ings []*networkingv1.Ingress) []pathClaim {
	order := make(map[[2]string]int, len(ings))
	for i, ing := range ings {
		order[[2]string{ing.Namespace, ing.Name}] = i
	}
	claims := make([]pathClaim, 0, len(services))
	for si, s := range services {
		for _, r := range s.Routes {
			ns, name, ok := routeIngress(r)
			idx, known := order[[2]string{ns, name}]
			if !ok || !known || r.Name == nil || isDefaultRouteName(*r.Name, ns, name) {
				continue
			}
			crit := routeCriteria(r)
			for pi := range r.Paths {
				claims = append(claims, pathClaim{order: idx, svc: si, route: r, path: pi, crit: crit})
			}
		}
	}
	return claims
}

// keyHashes appends the hashes of a rule route's match keys, which mayShare compares, to out.
func keyHashes(seed maphash.Seed, r *document.Route, out []uint64) []uint64 {
	var kb [4]matchKey
	crit := routeCriteria(r)
	for _, p := range r.Paths {
		if p == nil {
			continue
		}
		for _, k := range matchKeys(r, crit, *p, kb[:0]) {
			out = append(out, maphash.Comparable(seed, k))
		}
	}
	return out
}

// anyShared reports whether two claims of different Kong services share a match key; without
// one nothing is dropped, and the claims need no sorting.
func anyShared(claims []pathClaim) bool {
	first := make(map[matchKey]int, len(claims))
	var kb [4]matchKey
	for _, c := range claims {
		for _, k := range matchKeys(c.route, c.crit, *c.route.Paths[c.path], kb[:0]) {
			if svc, ok := first[k]; !ok {
				first[k] = c.svc
			} else if svc != c.svc {
				return true
			}
		}
	}
	return false
}

// applyDrops returns services with the dropped paths (and emptied routes) removed, copying what
// changes.
func applyDrops(services []*document.Service, drop map[*document.Route]map[int]bool) []*document.Service {
	out := make([]*document.Service, len(services))
	for i, s := range services {
		out[i] = s
		changed := false
		for _, r := range s.Routes {
			changed = changed || drop[r] != nil
		}
		if !changed {
			continue
		}
		cp := *s
		cp.Routes = make([]*document.Route, 0, len(s.Routes))
		for _, r := range s.Routes {
			d := drop[r]
			if d == nil {
				cp.Routes = append(cp.Routes, r)
				continue
			}
			rc := *r
			rc.Paths = nil
			for pi, p := range r.Paths {
				if !d[pi] {
					rc.Paths = append(rc.Paths, p)
				}
			}
			if len(rc.Paths) > 0 {
				cp.Routes = append(cp.Routes, &rc)
			}
		}
		out[i] = &cp
	}
	return out
}

// isDefaultRouteName reports whether route name is `<ns>.<name>`, the default backend route of
// Ingress ns/name.
func isDefaultRouteName(route, ns, name string) bool {
	return len(route) == len(ns)+1+len(name) && strings.HasPrefix(route, ns) &&
		route[len(ns)] == '.' && strings.HasSuffix(route, name)
}

// matchKey is one (host, path, other criteria) combination under which a route path matches.
type matchKey struct{ host, path, criteria string }

// noCriteria is criteriaKey of a route without methods, SNIs, protocols or headers.
const noCriteria = "\x00\x00\x00\x00"

// routeCriteria is a route's criteriaKey, or noCriteria.
func routeCriteria(r *document.Route) string {
	if len(r.Methods) > 0 || len(r.SNIs) > 0 || len(r.Protocols) > 0 || len(r.Headers) > 0 {
		return criteriaKey(r)
	}
	return noCriteria
}

// matchKeys appends the keys under which a route path matches to dst: one per host, or one
// without a host. crit is the route's routeCriteria, which the caller makes once per route
// (it is as long as the route's methods, SNIs and headers: making it per path is quadratic).
func matchKeys(r *document.Route, crit, path string, dst []matchKey) []matchKey {
	if len(r.Hosts) == 0 {
		return append(dst, matchKey{path: path, criteria: crit})
	}
	for _, h := range r.Hosts {
		dst = append(dst, matchKey{host: *h, path: path, criteria: crit})
	}
	return dst
}

// criteriaKey joins a route's methods, SNIs, protocols and headers, each sorted.
func criteriaKey(r *document.Route) string {
	var c strings.Builder
	for _, l := range [][]*string{r.Methods, r.SNIs, r.Protocols} {
		c.WriteByte(0)
		c.WriteString(joinSorted(l))
	}
	hs := make([]string, 0, len(r.Headers))
	for name, vals := range r.Headers {
		v := append([]string(nil), vals...)
		sort.Strings(v)
		hs = append(hs, strings.ToLower(name)+"="+strings.Join(v, ","))
	}
	sort.Strings(hs)
	c.WriteByte(0)
	c.WriteString(strings.Join(hs, "\x01"))
	return c.String()
}

func joinSorted(l []*string) string {
	s := make([]string, 0, len(l))
	for _, p := range l {
		if p != nil {
			s = append(s, *p)
		}
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

// ambiguousProblem reports one dropped path on the Ingress path that produced it.
func (t *ingressBuild) ambiguousProblem(fields *ingressFields, ing *networkingv1.Ingress, s *document.Service, r *document.Route, kp string, winner *document.Route) {
	wns, wname, _ := routeIngress(winner)
	host := ""
	if len(r.Hosts) > 0 {
		host = *r.Hosts[0]
	}
	t.problem(ingressRef(ing), fields.field(*s.Name, host, kp),
		"Kong path %s on host %s is already routed to another Service by Ingress %s/%s (route %s) with the same methods, headers, SNIs and protocols; the oldest Ingress (then the smaller route name) wins, path dropped from route %s",
		quoteShort(kp), quoteShort(host), wns, wname, *winner.Name, *r.Name)
}

// ruleFields are the path indexes of the Ingresses with dropped paths, made on first use:
// one pass over an Ingress's paths, however many of them are dropped.
type ruleFields map[*networkingv1.Ingress]*ingressFields

func (f ruleFields) of(ing *networkingv1.Ingress, rs *routeSettings) *ingressFields {
	if x := f[ing]; x != nil {
		return x
	}
	x := newIngressFields(ing, rs)
	f[ing] = x
	return x
}

// ingressFields finds the first Ingress path that produced a Kong path on a rule host (or on
// a rule without host) for a Kong service.
type ingressFields map[ruleFieldKey]pathPos

type ruleFieldKey struct{ svc, host, kp string }

func newIngressFields(ing *networkingv1.Ingress, rs *routeSettings) *ingressFields {
	x := ingressFields{}
	for i := range ing.Spec.Rules {
		rule := &ing.Spec.Rules[i]
		if rule.HTTP == nil {
			continue
		}
		for j := range rule.HTTP.Paths {
			p := &rule.HTTP.Paths[j]
			b := p.Backend.Service
			if b == nil {
				continue
			}
			svc := kongServiceName(ing.Namespace, b.Name, portDefOf(b.Port))
			pt := networkingv1.PathTypeImplementationSpecific
			if p.PathType != nil {
				pt = *p.PathType
			}
			path := collapseSlashes(p.Path)
			if path == "" {
				path = "/"
			}
			var buf [2]string
			for _, kp := range ingressPaths(path, pt, rs.regexMarker, rs.legacyRegex, buf[:0]) {
				if k := (ruleFieldKey{svc, rule.Host, kp}); !hasKey(x, k) {
					x[k] = pathPos{i, j}
				}
			}
		}
	}
	return &x
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// field is the field of the first Ingress path that produced Kong path kp on host for Kong
// service svc, in rule order; "spec.rules" when none did.
func (x *ingressFields) field(svc, host, kp string) string {
	a, okA := (*x)[ruleFieldKey{svc, host, kp}]
	b, okB := (*x)[ruleFieldKey{svc, "", kp}]
	switch {
	case okA && (!okB || a.rule < b.rule || a.rule == b.rule && a.path < b.path):
		return a.field(".path")
	case okB:
		return b.field(".path")
	}
	return "spec.rules"
}

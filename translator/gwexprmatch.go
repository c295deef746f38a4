package translator

import (
	"slices"
	"strings"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator/atc"
)

// catchAllProtocols are the protocols of KIC's catch-all expression, for a split match of an
// HTTPRoute or GRPCRoute with nothing to match (Kong takes no empty expression):
// `(net.protocol == "http") || (net.protocol == "https")`.
var catchAllProtocols = [...]string{"http", "https"}

// exprRouteTail renders m (KIC's catch-all when it is empty) as r's expression with the
// priority of a lone split match of base, and applies the route annotations KIC applies under
// expressions.
func exprRouteTail(x *exprRoute, r *document.Route, m *matchExpr, base uint64, rs *routeSettings) {
	if m.empty() {
		m.reset()
		m.protocols(catchAllProtocols[:]...)
	}
	x.apply(&r.Route, m, tiePriority(base, 0))
	rs.applyExpr(&r.Route)
}

// gwIgnoredAnnotations are the route annotations KIC ignores on Gateway API routes under
// expressions beyond those it ignores on every kind (regex-priority and path-handling, which
// routesettings.go reports): methods, host aliases and headers.
var gwIgnoredAnnotations = [...]string{annMethods, annHostAliases}

// reportExprIgnored reports each of them on a Gateway API route object (the
// konghq.com/headers.* ones by name).
func (t *translation) reportExprIgnored(ref store.Ref, anns map[string]string) {
	if !hasRouteAnnotations(anns) {
		return
	}
	for _, k := range gwIgnoredAnnotations {
		if _, ok := anns[k]; ok {
			t.problem(ref, annotationField(k), "ignored under Kong's expressions router (router_flavor = expressions), as KIC ignores it on Gateway API routes")
		}
	}
	var names []string
	for k := range anns {
		if strings.HasPrefix(k, annHeadersPrefix) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		t.problem(ref, annotationField(k), "ignored under Kong's expressions router (router_flavor = expressions), as KIC ignores it on Gateway API routes")
	}
}

// checkExpr is what Kong's expressions router says of m, when it holds what a tenant writes
// beyond literals (field names, regexes): nil when Kong takes it.
func checkExpr(m *matchExpr) error { return atc.Check(m.matcher()) }

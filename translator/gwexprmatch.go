package translator

import (
	"slices"
	"strings"

	"github.com/kongsync/kongsync/store"
)

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

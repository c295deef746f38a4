package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/translator/atc"
)

// The Ingress family's checks of its paths under Kong's expressions router; the routes are
// rendered from their match descriptions (routerender.go, routerenderexpr.go).

// badExprPath reports, and returns true for, an Ingress path the expressions router would
// refuse, and with it the whole configuration: a regex (after the regex marker) that does not
// compile. Kong compiles it with Rust's regex crate, whose syntax is RE2's, which Go's
// regexp/syntax parses. It also reports, without skipping the path, that the class
// parameters' enableLegacyRegexDetection does not apply here (KIC ignores it under
// expressions).
func (t *ingressBuild) badExprPath(ing *networkingv1.Ingress, pos pathPos, path string, pt networkingv1.PathType, rs *routeSettings) bool {
	if pt != networkingv1.PathTypeImplementationSpecific {
		return false
	}
	re, ok := strings.CutPrefix(path, rs.regexMarker)
	if !ok {
		if rs.legacyRegex && legacyRegexPath(path) != path {
			t.problem(ingressRef(ing), pos.field(".path"), "%s: legacy regex detection (enableLegacyRegexDetection) does not apply "+
				"under Kong's expressions router, as in KIC; matched as a plain prefix", quoteShort(path))
		}
		return false
	}
	if err := atc.CheckRegex(anchoredRegex(re)); err != nil {
		t.problem(ingressRef(ing), pos.field(".path"), "%s is not a regular expression Kong's expressions router compiles (%s); path skipped",
			quoteShort(path), err.Error())
		return true
	}
	return false
}

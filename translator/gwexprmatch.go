package translator

import (
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator/atc"
)

// The matchers the Gateway API routes share with the Ingress family under expressions. They
// stand here until the shared ones (routeexpr.go) land; they follow KIC's atc_utils.go and
// ingress_atc.go.

// hostMatcher is KIC's matcher of one route hostname: a wildcard as a suffix match, else an
// exact one; nothing for none or a hostname KIC's host check refuses.
func hostMatcher(host string) atc.Matcher {
	if host == "" || !validHostAlias.MatchString(host) {
		return nil
	}
	if strings.HasPrefix(host, "*") {
		return atc.Predicate{Field: atc.FieldHTTPHost, Op: atc.OpSuffixMatch, Value: atc.StringValue(host[1:])}
	}
	return atc.Predicate{Field: atc.FieldHTTPHost, Op: atc.OpEqual, Value: atc.StringValue(host)}
}

// sniMatcher is KIC's matcher of a route object's konghq.com/snis: any of them.
func sniMatcher(rs *routeSettings) atc.Matcher {
	if rs == nil || rs.opts == nil {
		return nil
	}
	return snisMatcher(rs.opts.snis)
}

// snisMatcher matches any of snis that KIC's SNI check takes.
func snisMatcher(snis []*string) atc.Matcher {
	if len(snis) == 0 {
		return nil
	}
	ps := make([]atc.Matcher, 0, len(snis))
	for _, s := range snis {
		if validSNI.MatchString(*s) {
			ps = append(ps, atc.Predicate{Field: atc.FieldTLSSNI, Op: atc.OpEqual, Value: atc.StringValue(*s)})
		}
	}
	return atc.Or(ps...)
}

// methodMatcher is KIC's matcher of one method (nothing for one KIC's method check refuses).
func methodMatcher(method string) atc.Matcher {
	if !validMethod.MatchString(method) {
		return nil
	}
	return atc.Predicate{Field: atc.FieldHTTPMethod, Op: atc.OpEqual, Value: atc.StringValue(method)}
}

// exprRouteOptions applies the route annotations KIC applies under expressions (strip-path,
// force-ssl-redirect, https-redirect-status-code, preserve-host, request and response
// buffering, protocols), without its protocol normalisation; methods, snis (matched in the
// expression instead), headers, host aliases, regex-priority and path-handling are ignored.
func exprRouteOptions(rs *routeSettings, r *kong.Route) {
	if rs == nil || rs.opts == nil {
		return
	}
	o := rs.opts
	setBool(&r.StripPath, o.stripPath)
	if o.forceSSL {
		r.HTTPSRedirectStatusCode = kong.Int(302)
		r.Protocols = []*string{kong.String("https")}
	}
	setInt(&r.HTTPSRedirectStatusCode, o.redirectCode)
	setBool(&r.PreserveHost, o.preserveHost)
	setBool(&r.RequestBuffering, o.requestBuffering)
	setBool(&r.ResponseBuffering, o.responseBuffering)
	if len(o.protocols) > 0 {
		r.Protocols = o.protocols
	}
}

// exprIgnoredAnnotations are the route annotations KIC does not apply under expressions.
var exprIgnoredAnnotations = []string{annMethods, annHostAliases, annRegexPriority, annPathHandling}

// reportExprIgnored reports, on a route object translated under expressions, each route
// annotation KIC ignores there (the konghq.com/headers.* ones once, by the first name).
func (t *translation) reportExprIgnored(ref store.Ref, anns map[string]string) {
	if !hasRouteAnnotations(anns) {
		return
	}
	for _, k := range exprIgnoredAnnotations {
		if _, ok := anns[k]; ok {
			t.problem(ref, annotationField(k), "ignored under Kong's expressions router (as KIC ignores it)")
		}
	}
	first := ""
	for k := range anns {
		if strings.HasPrefix(k, annHeadersPrefix) && (first == "" || k < first) {
			first = k
		}
	}
	if first != "" {
		t.problem(ref, annotationField(first), "konghq.com/headers.* annotations are ignored under Kong's expressions router (as KIC ignores them)")
	}
}

package translator

import (
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

// routeSettings are an Ingress's route-level annotations, parsed and checked once per Ingress
// and applied to every route it produces. A nil field means "not set: keep the default".
type routeSettings struct {
	tags        []*string
	regexMarker string
	legacyRegex bool // enableLegacyRegexDetection of the class parameters, read for this Ingress
	skip        bool // the Ingress asks for something kongsync cannot do; its routes are skipped
	// opts are the parsed route annotations; nil when the Ingress has none (most Ingresses),
	// which saves their parsing and memory.
	opts    *routeOptions
	tagData tagBlock // tags' storage, when the Ingress has no konghq.com/tags
}

// routeOptions are the route fields an Ingress's annotations set.
type routeOptions struct {
	stripPath, preserveHost             *bool
	requestBuffering, responseBuffering *bool
	forceSSL                            bool
	redirectCode, regexPriority         *int
	protocols, methods                  []*string
	snis                                []*string
	// hostAliases are the aliases, each once, in first-seen order: every route shares them.
	hostAliases []*string
	// aliasesWritten are the aliases as written, repeats included, when there are repeats:
	// KIC's expressions match (and count) every one.
	aliasesWritten []string
	headers        map[string][]string
	hostHeaders    int // konghq.com/headers.host annotations, left out of headers
	pathHandling   *string
	// rewrite is the request-transformer of konghq.com/rewrite (RewriteURIs gate), nested in
	// every rule route of the Ingress.
	rewrite *kong.Plugin
	// copied is how many bytes of annotation values every route of the object repeats (aliases,
	// methods, SNIs, protocols, headers, extra tags): the route budget weighs it (ingressbudget.go).
	copied int
}

// parseRouteSettingsInto reads the route annotations of ing into rs. A value that does not parse is
// reported and ignored, leaving the default in place.
// rs is zero and held by the Ingress's piece.
func (t *translation) parseRouteSettingsInto(ing *networkingv1.Ingress, rs *routeSettings) *routeSettings {
	rs.tags = objectTagsIn(store.KindIngress, ing, &rs.tagData, &t.nsTag)
	rs.legacyRegex = legacySensitive(ing) && t.classParams().EnableLegacyRegexDetection
	return t.parseRouteSettingsFor(ingressRef(ing), ing, rs)
}

// parseRouteSettingsFor reads the route annotations of any object that makes routes into rs.
func (t *translation) parseRouteSettingsFor(ref store.Ref, obj metav1.Object, rs *routeSettings) *routeSettings {
	a := obj.GetAnnotations()
	rs.regexMarker = defaultRegexMarker
	if !hasRouteAnnotations(a) {
		return rs
	}
	o := &routeOptions{}
	rs.opts = o
	p := annotationParser{t: t, ref: ref, anns: a}
	if v, ok := a[annRegexPrefix]; ok {
		if v == "" {
			p.bad(annRegexPrefix, "empty prefix")
		} else {
			rs.regexMarker = v
		}
	}
	if v := a[annOverride]; v != "" && ref.Kind == store.KindIngress {
		t.deprecated(ref, annotationField(annOverride), "KongIngress %q: overrides on an Ingress are no longer supported (KIC 3.x ignores them too); "+
			"use the Ingress's konghq.com/ annotations; annotation ignored", v)
	}
	if v, ok := a[annRewrite]; ok && ref.Kind == store.KindIngress {
		var skip bool
		o.rewrite, skip = t.rewritePlugin(ref, v)
		rs.skip = rs.skip || skip
	}
	o.stripPath = p.boolean(annStripPath, parseStrictBool)
	o.preserveHost = p.boolean(annPreserveHost, parseStrictBool)
	o.requestBuffering = p.boolean(annRequestBuffering, parseLooseBool)
	o.responseBuffering = p.boolean(annResponseBuffering, parseLooseBool)
	o.forceSSL = a[annForceSSLRedirect] == "true"
	o.redirectCode = p.integer(annRedirectCode, parseRedirectCode)
	o.regexPriority = p.integer(annRegexPriority, func(v string) (int, error) {
		return parseIntRange(v, -1<<31, 1<<31-1)
	})
	o.protocols = p.list(annProtocols, protocolParser(ref.Kind))
	o.methods = p.list(annMethods, parseMethods)
	o.snis = p.list(annSNIs, parseSNIs)
	o.hostAliases, o.aliasesWritten = p.hostAliases()
	if v := a[annPathHandling]; v != "" {
		if ph, err := parsePathHandling(v); err != nil {
			p.bad(annPathHandling, err.Error())
		} else {
			o.pathHandling = kong.String(ph)
		}
	}
	o.headers, o.hostHeaders = p.headers()
	o.copied = o.copiedBytes() + len(a[annTags]) + len(a[annRewrite])
	t.checkRouteOptions(ref, a, rs)
	return rs
}

// checkRouteOptions skips the routes of an object with a header regex Kong refuses, and
// reports what the expressions router ignores.
func (t *translation) checkRouteOptions(ref store.Ref, a map[string]string, rs *routeSettings) {
	if t.badHeaderRegexes(ref, rs.opts.headers) {
		rs.skip = true
	}
	if t.expressions() {
		t.exprIgnored(ref, a, rs.opts)
		t.exprGRPCStripPath(ref, rs.opts)
	} else if ref.Kind == store.KindTCPIngress || ref.Kind == store.KindUDPIngress {
		t.streamHTTPMatches(ref, rs.opts)
	}
}

// streamHTTPMatches drops, with a problem, methods and headers asked of the traditional routes
// of a TCPIngress or UDPIngress: KIC sets them, and Kong refuses HTTP match fields on a stream
// route, and with it the whole configuration.
func (t *translation) streamHTTPMatches(ref store.Ref, o *routeOptions) {
	const why = "Kong refuses HTTP match criteria on a stream route (KIC would send them, and Kong refuse the whole configuration); annotation ignored"
	if len(o.methods) > 0 {
		t.problem(ref, annotationField(annMethods), why)
		o.methods = nil
	}
	for name := range o.headers {
		t.problem(ref, annotationField(annHeadersPrefix+name), why)
	}
	o.headers = nil
}

// exprGRPCStripPath drops strip-path "true" on a route with a gRPC protocol under the
// expressions router, with a problem. Kong refuses strip_path on gRPC routes; the traditional
// router's protocol normalisation removes it, but KIC skips that under expressions and sends
// it, and Kong then refuses the whole configuration.
func (t *translation) exprGRPCStripPath(ref store.Ref, o *routeOptions) {
	if o.stripPath == nil || !*o.stripPath {
		return
	}
	for _, p := range o.protocols {
		if strings.Contains(*p, "grpc") {
			t.problem(ref, annotationField(annStripPath), "Kong refuses strip_path on a route with protocol %s, and under its "+
				"expressions router KIC would send it (Kong would refuse the whole configuration); annotation ignored", *p)
			o.stripPath = nil
			return
		}
	}
}

// rewritePlugin is the request-transformer plugin konghq.com/rewrite asks for, or skip when the
// RewriteURIs gate is off or the value does not parse (KIC then drops the whole Kong service;
// kongsync only this Ingress's routes).
func (t *translation) rewritePlugin(ref store.Ref, v string) (p *kong.Plugin, skip bool) {
	if !t.opts.Features.RewriteURIs {
		t.problem(ref, annotationField(annRewrite),
			"URI rewriting (KIC's RewriteURIs feature gate) is not supported; the Ingress's routes are skipped")
		return nil, true
	}
	uri, err := rewriteURIConfig(v)
	if err != nil {
		t.problem(ref, annotationField(annRewrite), "%s: %v; the Ingress's routes are skipped", quoteShort(v), err)
		return nil, true
	}
	return &kong.Plugin{Name: kong.String("request-transformer"),
		Config: kong.Configuration{"replace": map[string]any{"uri": uri}}}, false
}

// copiedBytes counts the bytes of the values every route repeats.
func (o *routeOptions) copiedBytes() int {
	n := 0
	for _, l := range [][]*string{o.hostAliases, o.methods, o.snis, o.protocols} {
		for _, v := range l {
			n += len(*v) + 1
		}
	}
	for name, vs := range o.headers {
		n += len(name) + 1
		for _, v := range vs {
			n += len(v) + 1
		}
	}
	return n
}

// hasRouteAnnotations reports whether any annotation parseRouteSettings reads is present: all
// are konghq.com/ or ingress.kubernetes.io/ ones.
func hasRouteAnnotations(a map[string]string) bool {
	for k := range a {
		if strings.HasPrefix(k, annPrefix) || strings.HasPrefix(k, "ingress.kubernetes.io/") {
			return true
		}
	}
	return false
}

// apply sets the route fields the annotations ask for, in KIC's order, then KIC's protocol
// normalisation (gRPC and HTTP protocols cannot mix; gRPC routes take no strip_path).
func (rs *routeSettings) apply(r *kong.Route) {
	if rs.opts == nil {
		normalizeProtocols(r)
		return
	}
	rs.opts.apply(r)
}

func (rs *routeOptions) apply(r *kong.Route) {
	rs.applyFields(r)
	setInt(&r.RegexPriority, rs.regexPriority)
	if len(rs.methods) > 0 {
		r.Methods = rs.methods
	}
	if len(rs.snis) > 0 {
		r.SNIs = rs.snis
	}
	if len(rs.headers) > 0 {
		r.Headers = rs.headers
	}
	if rs.pathHandling != nil {
		r.PathHandling = rs.pathHandling
	}
	normalizeProtocols(r)
}

// applyFields sets the route fields that are not match criteria, which KIC applies under
// either router flavor.
func (rs *routeOptions) applyFields(r *kong.Route) {
	setBool(&r.StripPath, rs.stripPath)
	if rs.forceSSL {
		r.HTTPSRedirectStatusCode = kong.Int(302)
		r.Protocols = []*string{kong.String("https")}
	}
	setInt(&r.HTTPSRedirectStatusCode, rs.redirectCode)
	setBool(&r.PreserveHost, rs.preserveHost)
	setBool(&r.RequestBuffering, rs.requestBuffering)
	setBool(&r.ResponseBuffering, rs.responseBuffering)
	if len(rs.protocols) > 0 {
		r.Protocols = rs.protocols
	}
}

// applyExpr is apply for a route of Kong's expressions router, as KIC applies the annotations
// there: the fields only (the match criteria go into the expression, and regex-priority and
// path-handling are ignored: exprIgnored reports them), without the protocol normalisation.
func (rs *routeSettings) applyExpr(r *kong.Route) {
	if rs.opts != nil {
		rs.opts.applyFields(r)
	}
}

// exprIgnored reports the route annotations KIC ignores under Kong's expressions router:
// regex-priority and path-handling on every kind, and on TCPIngress and UDPIngress also the
// methods, SNIs and headers (their expressions match only the rule's port and host).
func (t *translation) exprIgnored(ref store.Ref, a map[string]string, o *routeOptions) {
	keys := [5]string{annRegexPriority, annPathHandling}
	n := 2
	stream := ref.Kind == store.KindTCPIngress || ref.Kind == store.KindUDPIngress
	if stream {
		keys[2], keys[3] = annMethods, annSNIs
		n = 4
	}
	for _, k := range keys[:n] {
		if a[k] != "" {
			t.problem(ref, annotationField(k), "ignored under Kong's expressions router (router_flavor = expressions), as KIC ignores it")
		}
	}
	if stream && len(o.headers) > 0 {
		names := make([]string, 0, len(o.headers))
		for name := range o.headers {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			t.problem(ref, annotationField(annHeadersPrefix+name), "ignored under Kong's expressions router (router_flavor = expressions), as KIC ignores it")
		}
	}
}

// applyHosts appends the host aliases to a route's hosts, skipping duplicates as KIC does. The
// aliases are unique already (parseHostAliases), so each is compared with the route's own few
// hosts only, through a set when they are many: linear in the aliases, not quadratic.
func (rs *routeSettings) applyHosts(r *kong.Route) {
	if rs.opts == nil || len(rs.opts.hostAliases) == 0 {
		return
	}
	own := r.Hosts
	var set map[string]bool
	if len(own) > 8 {
		set = make(map[string]bool, len(own))
		for _, h := range own {
			set[*h] = true
		}
	}
	hosts := make([]*string, len(own), len(own)+len(rs.opts.hostAliases))
	copy(hosts, own)
	for _, h := range rs.opts.hostAliases {
		if set != nil && !set[*h] || set == nil && !slices.ContainsFunc(own, func(o *string) bool { return *o == *h }) {
			hosts = append(hosts, h)
		}
	}
	r.Hosts = hosts
}

func normalizeProtocols(r *kong.Route) {
	var http, grpc bool
	for _, p := range r.Protocols {
		grpc = grpc || strings.Contains(*p, "grpc")
		http = http || strings.Contains(*p, "http")
	}
	if grpc && http {
		r.Protocols = []*string{kong.String("http"), kong.String("https")}
	}
	if grpc {
		r.StripPath = nil
	}
}

// options are the route annotations' options, empty when there are none.
func (rs *routeSettings) options() *routeOptions {
	if rs == nil || rs.opts == nil {
		return &noRouteOptions
	}
	return rs.opts
}

// noRouteOptions are the options of an object without route annotations (never modified).
var noRouteOptions routeOptions

// routeSettingsFor parses the route annotations KIC reads on Gateway API routes (the Ingress
// ones, applied to each Kong route the object makes).
func (t *translation) routeSettingsFor(ref store.Ref, obj store.Object) *routeSettings {
	return t.parseRouteSettingsFor(ref, obj, &routeSettings{})
}

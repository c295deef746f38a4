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
	hostAliases  []*string
	headers      map[string][]string
	pathHandling *string
	// copied is how many bytes of annotation values every route of the object repeats (aliases,
	// methods, SNIs, protocols, headers, extra tags): the route budget weighs it (budget.go).
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
	if _, ok := a[annRewrite]; ok && ref.Kind == store.KindIngress {
		t.problem(ref, annotationField(annRewrite),
			"URI rewriting (KIC's RewriteURIs feature gate) is not supported; the Ingress's routes are skipped")
		rs.skip = true
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
	if v, ok := a[annHostAliases]; ok && v != "" {
		if hs, err := parseHostAliases(v); err != nil {
			p.bad(annHostAliases, err.Error())
		} else {
			o.hostAliases = kong.StringSlice(hs...)
		}
	}
	if v := a[annPathHandling]; v != "" {
		if ph, err := parsePathHandling(v); err != nil {
			p.bad(annPathHandling, err.Error())
		} else {
			o.pathHandling = kong.String(ph)
		}
	}
	o.headers = p.headers()
	o.copied = o.copiedBytes() + len(a[annTags])
	if t.badHeaderRegexes(ref, o.headers) {
		rs.skip = true
	}
	return rs
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

func setBool(dst **bool, v *bool) {
	if v != nil {
		*dst = v
	}
}

func setInt(dst **int, v *int) {
	if v != nil {
		*dst = v
	}
}

// annotationParser reads typed annotation values of one object, reporting bad ones.
type annotationParser struct {
	t    *translation
	ref  store.Ref
	anns map[string]string
}

func (p annotationParser) bad(key, why string) {
	p.t.problem(p.ref, annotationField(key), "invalid value %s: %s; annotation ignored", quoteShort(p.anns[key]), why)
}

// boolean, integer and list return nil for an absent or empty annotation: an empty value means
// "not set", as it does for most of KIC's annotations.
func (p annotationParser) boolean(key string, parse func(string) (bool, error)) *bool {
	v := p.anns[key]
	if v == "" {
		return nil
	}
	b, err := parse(v)
	if err != nil {
		p.bad(key, err.Error())
		return nil
	}
	return kong.Bool(b)
}

func (p annotationParser) integer(key string, parse func(string) (int, error)) *int {
	v := p.anns[key]
	if v == "" {
		return nil
	}
	n, err := parse(v)
	if err != nil {
		p.bad(key, err.Error())
		return nil
	}
	return kong.Int(n)
}

func (p annotationParser) list(key string, parse func(string) ([]string, error)) []*string {
	v := p.anns[key]
	if v == "" {
		return nil
	}
	items, err := parse(v)
	if err != nil {
		p.bad(key, err.Error())
		return nil
	}
	if len(items) == 0 {
		return nil
	}
	return kong.StringSlice(items...)
}

// headers reads konghq.com/headers.<name> annotations into route header matches.
func (p annotationParser) headers() map[string][]string {
	sep := ","
	if v, ok := p.anns[annHeadersSeparator]; ok {
		if v == "" {
			p.bad(annHeadersSeparator, "empty separator")
		} else {
			sep = v
		}
	}
	var out map[string][]string
	for k, v := range p.anns {
		name, ok := strings.CutPrefix(k, annHeadersPrefix)
		if !ok || v == "" {
			continue
		}
		if name == "" {
			p.bad(k, "no header name after konghq.com/headers.")
			continue
		}
		if strings.EqualFold(name, "host") {
			p.bad(k, "Kong matches the Host header with the route's hosts (use the rule host or konghq.com/host-aliases), and rejects it as a header")
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[name] = splitHeaderValues(v, sep)
	}
	return out
}

package translator

import (
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// httpRouteCtx is what the Kong routes of one HTTPRoute are made with.
type httpRouteCtx struct {
	t         *translation
	p         *routePiece
	ref       store.Ref
	r         *gatewayv1.HTTPRoute
	rs        *routeSettings
	hosts     []*string
	protocols []*string
	m         *routeMatch // the build's scratch for the match of the route being made
	sc        *gwScratch
}

// catchAll is the Kong route of a rule without matches: its hosts (or everything), no filters
// applied (as in KIC), no path.
func (h *httpRouteCtx) catchAll(rule int) *document.Route {
	a := h.base(h.routeName(rule, 0), h.p.objTags(h.t, h.ref.Kind, h.r))
	a.r.StripPath = nil
	h.m.reset(dialectHTTPRoute, h.rs)
	h.m.hosts = h.hosts
	_ = h.t.render(a, h.m) // traditional: nothing refused
	return &a.r
}

// routeName is KIC's name of the Kong route of a rule's match under the traditional router.
func (h *httpRouteCtx) routeName(rule, match int) string {
	return packJoin(h.p.arena.strings(0), routePrefixHTTP, h.ref.Namespace, ".", h.ref.Name, ".", strconv.Itoa(rule), ".", strconv.Itoa(match))
}

// base is a Kong route of the HTTPRoute with KIC's fields before matches and filters, in the
// piece's arena when it has room.
func (h *httpRouteCtx) base(name string, tags []*string) *routeAlloc {
	d := h.t.defaults
	ar := h.p.arena
	a := ar.newRoute()
	a.name = name
	if pack := ar.strings(0); pack != nil {
		a.id = pack.addID(h.t.ids.routes, name)
	} else {
		a.id = h.t.ids.routes.id(name)
	}
	a.r.Route = kong.Route{
		ID:           &a.id,
		Name:         &a.name,
		Protocols:    h.protocols,
		PreserveHost: d.yes,
		StripPath:    d.no,
		Tags:         tags,
	}
	return a
}

// matchRoutes appends to out the Kong route of one group of matches (one per match when a
// filter redirects: the redirect needs each match's path). Filters come from the group's first
// rule (every rule of the group has the same).
func (h *httpRouteCtx) matchRoutes(firstRule int, mg []matchRef, out []*document.Route) ([]*document.Route, bool) {
	rules := h.r.Spec.Rules
	filters := rules[firstRule].Filters
	var names []string
	for _, m := range mg {
		if n := rules[m.rule].Name; n != nil && strings.TrimSpace(string(*n)) != "" && !slices.Contains(names, string(*n)) {
			names = append(names, string(*n))
		}
	}
	tags := h.p.objTags(h.t, h.ref.Kind, h.r)
	if len(names) > 0 {
		tags = objectTagsWith(h.ref.Kind, h.r, TagNamedRouteRule, names)
	}
	if !h.headersOK(mg[0]) {
		return nil, false
	}
	redirect := slices.ContainsFunc(filters, func(f gatewayv1.HTTPRouteFilter) bool { return f.Type == gatewayv1.HTTPRouteFilterRequestRedirect })
	if !redirect {
		r, ok := h.matchRoute(h.routeName(mg[0].rule, mg[0].match), mg, filters, tags)
		return append(out, r), ok
	}
	for i := range mg {
		one, ok := h.matchRoute(h.routeName(mg[i].rule, mg[i].match), mg[i:i+1], filters, tags)
		if !ok {
			return nil, false
		}
		out = append(out, one)
	}
	return out, true
}

// matchRoute is one Kong route with the paths and methods of matches mg, the headers of the
// first, and the plugins of filters.
func (h *httpRouteCtx) matchRoute(name string, mg []matchRef, filters []gatewayv1.HTTPRouteFilter, tags []*string) (*document.Route, bool) {
	a := h.base(name, tags)
	m := h.m
	m.reset(dialectHTTPRoute, h.rs)
	m.hosts = h.hosts
	m.rewrite = slices.ContainsFunc(filters, isPrefixRewrite)
	for _, mr := range mg {
		describeHTTPMatch(m, &h.r.Spec.Rules[mr.rule].Matches[mr.match])
	}
	first := &h.r.Spec.Rules[mg[0].rule].Matches[mg[0].match]
	describeHTTPValues(m, first)
	m.pack = h.p.arena.strings(0)
	if ar := h.p.arena; ar != nil && a == &ar.route {
		m.vals = ar.pathVals[:]
	}
	_ = h.t.render(a, m) // traditional: what Kong refuses was checked (badHTTPMatches, headersOK)
	path := ""
	if first.Path != nil && first.Path.Value != nil {
		path = *first.Path.Value
	}
	if !h.applyFilters(&a.r, mg[0].rule, filters, path, tags) {
		return nil, false
	}
	return &a.r, true
}

// headersOK reports, with a problem, header matches of a match group's first match that the
// traditional router cannot take: a name given twice, a type other than Exact and
// RegularExpression.
func (h *httpRouteCtx) headersOK(m matchRef) bool {
	match := &h.r.Spec.Rules[m.rule].Matches[m.match]
	for k, x := range match.Headers {
		field := "spec.rules[" + strconv.Itoa(m.rule) + "].matches[" + strconv.Itoa(m.match) + "].headers[" + strconv.Itoa(k) + "]"
		if slices.ContainsFunc(match.Headers[:k], func(y gatewayv1.HTTPHeaderMatch) bool { return y.Name == x.Name }) {
			h.t.problem(h.ref, field+".name", "header %s is matched twice; the rule's Kong service is skipped", quoteShort(string(x.Name)))
			return false
		}
		if x.Type != nil && *x.Type != gatewayv1.HeaderMatchRegularExpression && *x.Type != gatewayv1.HeaderMatchExact {
			h.t.problem(h.ref, field+".type", "header match type %s is not supported; the rule's Kong service is skipped", *x.Type)
			return false
		}
	}
	return true
}

// applyFilters adds the plugins of a rule's filters to r (nested, tagged as the route) and
// applies what they change of it; false, with a problem, for a filter KIC cannot translate.
func (h *httpRouteCtx) applyFilters(r *document.Route, rule int, filters []gatewayv1.HTTPRouteFilter, path string, tags []*string) bool {
	if len(filters) == 0 {
		return true
	}
	var tr transformers
	var plugins []*kong.Plugin
	for k := range filters {
		f := &filters[k]
		field := "spec.rules[" + strconv.Itoa(rule) + "].filters[" + strconv.Itoa(k) + "]"
		switch f.Type {
		case gatewayv1.HTTPRouteFilterRequestHeaderModifier:
			tr.request().headerModifier(f.RequestHeaderModifier)
		case gatewayv1.HTTPRouteFilterResponseHeaderModifier:
			tr.response().headerModifier(f.ResponseHeaderModifier)
		case gatewayv1.HTTPRouteFilterRequestRedirect:
			if h.t.has(GateRedirectPlugin) {
				plugins = append(plugins, redirectPlugin(f.RequestRedirect))
				break
			}
			plugins = append(plugins, &kong.Plugin{Name: kong.String("request-termination"),
				Config: kong.Configuration{"status_code": redirectCode(f.RequestRedirect)}})
			tr.response().add = append(tr.response().add, "Location:"+redirectLocation(f.RequestRedirect, path))
		case gatewayv1.HTTPRouteFilterURLRewrite:
			if !h.urlRewrite(r, &tr, f.URLRewrite, path, field) {
				return false
			}
		case gatewayv1.HTTPRouteFilterExtensionRef:
			er := f.ExtensionRef
			if er == nil || er.Group != "configuration.konghq.com" || er.Kind != "KongPlugin" {
				h.t.problem(h.ref, field+".extensionRef", "only KongPlugins (group configuration.konghq.com) can be referenced; the rule's Kong service is skipped")
				return false
			}
			h.p.plugins = append(h.p.plugins, routePluginRef{referrer: h.ref, route: *r.Name, field: field + ".extensionRef",
				plugin: pluginRef{namespace: h.ref.Namespace, name: string(er.Name)}})
		default:
			h.t.problem(h.ref, field+".type", "filter %s is not supported; the rule's Kong service is skipped", f.Type)
			return false
		}
	}
	plugins = append(plugins, tr.plugins()...)
	for _, p := range plugins {
		p.Tags = tags
	}
	r.Plugins = sortNestedPlugins(plugins)
	return true
}

// redirectCode is a RequestRedirect's status code (302, the API's default, when unset).
func redirectCode(f *gatewayv1.HTTPRequestRedirectFilter) int {
	if f == nil || f.StatusCode == nil {
		return 302
	}
	return *f.StatusCode
}

// redirectPlugin is KIC's redirect plugin for a RequestRedirect filter (Kong 3.9 and later,
// GateRedirectPlugin): the full path the filter replaces, else "/" with the request's path kept
// (keep_incoming_path), behind scheme://host[:port] when a hostname is given.
func redirectPlugin(f *gatewayv1.HTTPRequestRedirectFilter) *kong.Plugin {
	path, keep := "/", true
	if f.Path != nil && f.Path.Type == gatewayv1.FullPathHTTPPathModifier && f.Path.ReplaceFullPath != nil {
		path, keep = *f.Path.ReplaceFullPath, false
	}
	return &kong.Plugin{Name: kong.String("redirect"), Config: kong.Configuration{
		"status_code":        redirectCode(f),
		"location":           redirectLocation(f, path),
		"keep_incoming_path": keep,
	}}
}

// redirectLocation is KIC's Location for a redirect before Kong 3.9 (no redirect plugin): the
// full path the filter replaces or the match's path, behind scheme://host[:port] when a hostname
// is given.
func redirectLocation(f *gatewayv1.HTTPRequestRedirectFilter, path string) string {
	if f.Path != nil && f.Path.Type == gatewayv1.FullPathHTTPPathModifier && f.Path.ReplaceFullPath != nil {
		path = *f.Path.ReplaceFullPath
	}
	if f.Hostname == nil {
		return path
	}
	scheme := "http"
	if f.Scheme != nil {
		scheme = *f.Scheme
	}
	hostPort := string(*f.Hostname)
	if f.Port != nil {
		hostPort += ":" + strconv.Itoa(int(*f.Port))
	}
	return scheme + "://" + pathpkg.Join(hostPort, path)
}

// urlRewrite translates a URLRewrite filter: a new host header, the full path, or the matched
// prefix replaced (which needs the route's paths to capture the rest of the path).
func (h *httpRouteCtx) urlRewrite(r *document.Route, tr *transformers, f *gatewayv1.HTTPURLRewriteFilter, path, field string) bool {
	if f == nil || (f.Path == nil && f.Hostname == nil) {
		h.t.problem(h.ref, field+".urlRewrite", "needs a path or a hostname; the rule's Kong service is skipped")
		return false
	}
	if f.Path != nil {
		switch {
		case f.Path.Type == gatewayv1.FullPathHTTPPathModifier && f.Path.ReplaceFullPath != nil:
			tr.request().setURI(*f.Path.ReplaceFullPath)
		case f.Path.Type == gatewayv1.PrefixMatchHTTPPathModifier:
			p := path
			if p == "" || p == "/" {
				p = "/"
			} else {
				p = strings.TrimSuffix(p, "/")
			}
			tr.request().setURI(prefixRewriteURI(f.Path.ReplacePrefixMatch, p)) // the route's paths capture the rest (render)
		default:
			h.t.problem(h.ref, field+".urlRewrite.path", "path modifier %s without its value is not supported; the rule's Kong service is skipped", f.Path.Type)
			return false
		}
	}
	if f.Hostname != nil {
		hdr := "host:" + string(*f.Hostname)
		tr.request().replace = append(tr.request().replace, hdr)
		tr.request().add = append(tr.request().add, hdr)
	}
	return true
}

// prefixRewriteURI is request-transformer's replace.uri for a ReplacePrefixMatch of prefix p:
// the replacement followed by the rest of the path the route captured.
func prefixRewriteURI(repl *string, p string) string {
	if repl == nil {
		return "/"
	}
	r := strings.TrimSuffix(*repl, "/")
	root := p == "/"
	switch {
	case r == "" && root:
		return `$(uri_captures[1] == nil and "/" or "/" .. uri_captures[1])`
	case r == "":
		return `$(uri_captures[1] == nil and "/" or uri_captures[1])`
	case root:
		return r + `$(uri_captures[1] == nil and "" or "/" .. uri_captures[1])`
	}
	return r + `$(uri_captures[1])`
}

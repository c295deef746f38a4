package translator

import (
	"strings"

	"github.com/kong/go-kong/kong"
	networkingv1 "k8s.io/api/networking/v1"
)

// render writes what m describes into a's route for this build's router flavor (routematch.go):
// the traditional match fields, or the expression with its priority; then the route
// annotations as KIC applies them under that flavor, and the defaults KIC fills. A route of
// HTTPRoute or GRPCRoute split matches gets the priority of a lone match: exprOrder lowers it
// when others tie with it (gwexprorder.go). The error says why Kong's expressions router would
// refuse the expression; the route must then not be made.
func (t *translation) render(a *routeAlloc, m *routeMatch) error {
	r := &a.r.Route
	if t.expressions() {
		if err := t.renderExpr(a, m); err != nil {
			return err
		}
		r.RegexPriority, r.PathHandling = nil, nil // KIC ignores both under expressions
		m.rs.applyExpr(r)
	} else {
		t.renderTraditional(a, m)
		m.rs.apply(r)
		if m.dialect != dialectStream {
			m.rs.applyHosts(r)
		}
		if r.PathHandling == nil {
			r.PathHandling = t.defaults.v0
		}
	}
	if r.HTTPSRedirectStatusCode == nil {
		r.HTTPSRedirectStatusCode = t.defaults.code426
	}
	return nil
}

// renderTraditional sets the traditional router's match fields, KIC's way for each family.
func (t *translation) renderTraditional(a *routeAlloc, m *routeMatch) {
	r := &a.r.Route
	r.Hosts = m.hosts
	switch m.dialect {
	case dialectIngress:
		var buf [2]string
		for _, p := range m.paths {
			for _, kp := range ingressPaths(p.value, ingressPathType(p.kind), m.rs.regexMarker, m.rs.legacyRegex, buf[:0]) {
				a.addPath(kp, t.defaults.slash)
			}
		}
	case dialectIngressDefault:
		a.addPathPtr(t.defaults.slash)
	case dialectHTTPRoute:
		m.httpKongPaths(a)
		for _, v := range m.methods {
			if !containsPtr(r.Methods, v) {
				r.Methods = append(r.Methods, kong.String(v))
			}
		}
		r.Headers = m.headerMap()
	case dialectGRPCRoute:
		if m.whole && len(m.hosts) == 0 {
			a.addPathPtr(t.defaults.slash)
		}
		for _, p := range m.paths {
			a.addPath(grpcKongPath(p), t.defaults.slash)
		}
		r.Headers = m.headerMap()
	case dialectStream:
		for _, p := range m.ports {
			r.Destinations = append(r.Destinations, &kong.CIDRPort{Port: kong.Int(p)})
		}
		if len(m.snis) > 0 {
			r.SNIs = kong.StringSlice(m.snis...)
		}
	}
}

// ingressPaths turns one Ingress path into Kong route paths, KIC's way: Prefix `/foo` gives
// `/foo/` and `~/foo$` (Prefix `/` gives `/`), Exact gives `~/foo$` (not regex-escaped),
// ImplementationSpecific passes the path through. The path must already have its slashes
// collapsed and be non-empty. Each result then gets the regex marker rewritten and, with legacy
// (the class parameters' enableLegacyRegexDetection), KIC's legacy regex detection.
func ingressPaths(path string, pt networkingv1.PathType, marker string, legacy bool, dst []string) []string {
	n := len(dst)
	switch pt {
	case networkingv1.PathTypePrefix:
		base := strings.Trim(path, "/")
		if base == "" {
			dst = append(dst, "/")
		} else {
			dst = append(dst, "/"+base+"/", kongRegexPrefix+"/"+base+"$")
		}
	case networkingv1.PathTypeExact:
		dst = append(dst, kongRegexPrefix+"/"+strings.TrimLeft(path, "/")+"$")
	default: // ImplementationSpecific (the caller maps unknown types to a problem)
		dst = append(dst, path)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = applyRegexMarker(dst[i], marker)
		if legacy {
			dst[i] = legacyRegexPath(dst[i])
		}
	}
	return dst
}

// applyRegexMarker replaces a leading regex marker with Kong's regex prefix.
func applyRegexMarker(p, marker string) string {
	if strings.HasPrefix(p, marker) {
		return kongRegexPrefix + p[len(marker):]
	}
	return p
}

// ingressPathKind is the path kind of an Ingress path type (a known one).
func ingressPathKind(pt networkingv1.PathType) pathKind {
	switch pt {
	case networkingv1.PathTypePrefix:
		return pathPrefix
	case networkingv1.PathTypeExact:
		return pathExact
	}
	return pathAsWritten
}

// ingressPathMatches is how many path matches an Ingress path makes in its rendered route: its
// Kong paths under the traditional router (a Prefix path below / makes two), one in an
// expression. The route budget counts them (ingressbudget.go).
func (t *translation) ingressPathMatches(p matchPath) int {
	if !t.expressions() && p.kind == pathPrefix && strings.Trim(p.value, "/") != "" {
		return 2
	}
	return 1
}

// ingressPathType is the Ingress path type of a path kind.
func ingressPathType(k pathKind) networkingv1.PathType {
	switch k {
	case pathPrefix:
		return networkingv1.PathTypePrefix
	case pathExact:
		return networkingv1.PathTypeExact
	}
	return networkingv1.PathTypeImplementationSpecific
}

// httpKongPaths adds the Kong paths of an HTTPRoute route's path matches: PathPrefix /p → ~/p$
// and /p/; Exact → ~/p$; RegularExpression → ~ and the expression; matches without a path (or
// its value) none. A prefix rewrite makes the route capture the rest of the path below the
// first match's path instead: ~/p$ and ~/p(/.*) (~/(.*) below /).
func (m *routeMatch) httpKongPaths(a *routeAlloc) {
	if m.rewrite && len(m.paths) > 0 {
		p := m.paths[0].value
		if p == "" || p == "/" {
			p = "/"
		} else {
			p = strings.TrimSuffix(p, "/")
		}
		sub := "~" + p + "(/.*)"
		if p == "/" {
			sub = "~/(.*)"
		}
		a.r.Paths = []*string{kong.String("~" + p + "$"), kong.String(sub)}
		return
	}
	for i := range m.paths {
		p := &m.paths[i]
		if p.kind == pathNone || p.flags&pathNoValue != 0 {
			continue
		}
		switch p.kind {
		case pathExact:
			a.addPathPtr(m.packed("~", p.value, "$"))
		case pathRegex:
			a.addPathPtr(m.packed("~", p.value, ""))
		default:
			slash := "/"
			if strings.HasSuffix(p.value, "/") {
				slash = ""
			}
			a.addPathPtr(m.packed("~", p.value, "$"))
			a.addPathPtr(m.packed("", p.value, slash))
		}
	}
}

// packed is a+b+c in m's pack (its own allocation without one).
func (m *routeMatch) packed(a, b, c string) *string {
	if m.pack == nil {
		return kong.String(a + b + c)
	}
	p := m.pack
	p.reserve(len(a) + len(b) + len(c))
	p.b.WriteString(a)
	p.b.WriteString(b)
	s := p.add(c)
	if len(m.vals) == 0 {
		v := new(string)
		*v = s
		return v
	}
	m.vals[0] = s
	v := &m.vals[0]
	m.vals = m.vals[1:]
	return v
}

// headerMap is the traditional router's headers of a Gateway API route: each name's values,
// a regular expression with Kong's "~*" prefix (HTTPRoutes; a GRPCRoute's values go as written).
func (m *routeMatch) headerMap() map[string][]string {
	if len(m.headers) == 0 {
		return nil
	}
	out := make(map[string][]string, len(m.headers))
	for _, h := range m.headers {
		v := h.value
		if h.kind == valueRegex && m.dialect == dialectHTTPRoute {
			v = "~*" + v
		}
		out[h.name] = append(out[h.name], v)
	}
	return out
}

func containsPtr(l []*string, v string) bool {
	for _, p := range l {
		if *p == v {
			return true
		}
	}
	return false
}

package translator

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/translator/atc"
)

// TestRenderBothFlavors renders one match description of each family under the traditional
// router and under expressions, and checks the route's match fields, expression and priority
// against what KIC writes for them (hand-derived here; the golden cases check whole objects).
func TestRenderBothFlavors(t *testing.T) {
	rs := &routeSettings{regexMarker: defaultRegexMarker}
	cases := []struct {
		name     string
		describe func(m *routeMatch)
		trad     string // the route's match fields as JSON
		expr     string
		prio     uint64
	}{{
		name: "Ingress",
		describe: func(m *routeMatch) {
			m.reset(dialectIngress, rs)
			m.hosts = kong.StringSlice("a.example.com")
			m.paths = append(m.paths, matchPath{kind: pathPrefix, value: "/foo"}, matchPath{kind: pathExact, value: "/x"},
				matchPath{kind: pathAsWritten, value: "/~/re[0-9]"})
		},
		trad: `{"hosts":["a.example.com"],"paths":["/foo/","~/foo$","~/x$","~/re[0-9]"]}`,
		expr: `(http.host == "a.example.com") && (((http.path == "/foo") || (http.path ^= "/foo/")) || ` +
			`(http.path == "/x") || (http.path ~ "^/re[0-9]"))`, // a Prefix path is an Or of its own, as KIC nests it
		prio: 3<<44 + 2<<41 + 1<<32 + 1<<16 + 8,
	}, {
		name:     "Ingress default backend",
		describe: func(m *routeMatch) { m.reset(dialectIngressDefault, rs) },
		trad:     `{"paths":["/"]}`,
		expr:     `http.path ^= "/"`,
		prio:     0,
	}, {
		name: "HTTPRoute",
		describe: func(m *routeMatch) {
			m.reset(dialectHTTPRoute, rs)
			m.hosts = kong.StringSlice("h.example")
			m.paths = append(m.paths, matchPath{kind: pathPrefix, value: "/p"})
			m.header("X-A", "1", valueExact)
			m.query("q", "v", valueRegex)
			m.methods = append(m.methods, "GET")
		},
		trad: `{"hosts":["h.example"],"paths":["~/p$","/p/"],"headers":{"X-A":["1"]},"methods":["GET"]}`,
		expr: `(http.host == "h.example") && (((http.path == "/p") || (http.path ^= "/p/")) && (http.headers.x_a == "1") && ` +
			`(http.queries.q ~ "v") && (http.method == "GET"))`,
		prio: 2<<44 + 1<<43 + 9<<35 + 1<<23 + 1<<22 + 1<<17 + 1<<12 + 4095,
	}, {
		name: "HTTPRoute prefix rewrite",
		describe: func(m *routeMatch) {
			m.reset(dialectHTTPRoute, rs)
			m.rewrite = true
			m.paths = append(m.paths, matchPath{kind: pathPrefix, value: "/p/"})
		},
		trad: `{"paths":["~/p$","~/p(/.*)"]}`,
		expr: `(http.path == "/p") || (http.path ~ "^/p(/.*)")`,
		prio: 2<<44 + 2<<23 + 4095,
	}, {
		name: "GRPCRoute",
		describe: func(m *routeMatch) {
			m.reset(dialectGRPCRoute, rs)
			m.paths = append(m.paths, matchPath{kind: pathGRPC, value: "S", method: "M"})
			m.header("k", "v", valueExact)
		},
		trad: `{"paths":["~/S/M"],"headers":{"k":["v"]}}`,
		expr: `(http.path == "/S/M") && (http.headers.k == "v")`,
		prio: 1<<44 + 1<<24 + 1<<13 + 1<<8 + 255,
	}, {
		name: "stream",
		describe: func(m *routeMatch) {
			m.reset(dialectStream, rs)
			m.snis = append(m.snis, "s.example", "*.bad")
			m.ports = append(m.ports, 9000)
		},
		trad: `{"snis":["s.example","*.bad"],"destinations":[{"port":9000}]}`,
		expr: `(tls.sni == "s.example") && (net.dst.port == 9000)`,
		prio: 1,
	}}
	for _, c := range cases {
		for _, f := range []RouterFlavor{RouterTraditionalCompatible, RouterExpressions} {
			opts := DefaultOptions()
			opts.RouterFlavor = f
			tr := newEngine(opts).newTranslation(nil)
			var m routeMatch
			c.describe(&m)
			a := &routeAlloc{}
			if err := tr.render(a, &m); err != nil {
				t.Fatalf("%s, %s: %v", c.name, f, err)
			}
			r := &a.r.Route
			if *r.HTTPSRedirectStatusCode != 426 {
				t.Errorf("%s, %s: redirect code %d", c.name, f, *r.HTTPSRedirectStatusCode)
			}
			if !f.Expressions() {
				b, _ := json.Marshal(struct {
					Hosts        []*string           `json:"hosts,omitempty"`
					Paths        []*string           `json:"paths,omitempty"`
					Headers      map[string][]string `json:"headers,omitempty"`
					Methods      []*string           `json:"methods,omitempty"`
					SNIs         []*string           `json:"snis,omitempty"`
					Destinations []*kong.CIDRPort    `json:"destinations,omitempty"`
				}{r.Hosts, r.Paths, r.Headers, r.Methods, r.SNIs, r.Destinations})
				if string(b) != c.trad || r.Expression != nil || *r.PathHandling != "v0" {
					t.Errorf("%s, traditional: %s (expression %v), want %s", c.name, b, r.Expression, c.trad)
				}
				continue
			}
			if r.Paths != nil || r.Hosts != nil || r.Headers != nil || r.PathHandling != nil || *r.Expression != c.expr || *r.Priority != c.prio {
				t.Errorf("%s, expressions: %q priority %d, want %q priority %d (paths %v)", c.name, *r.Expression, *r.Priority, c.expr, c.prio, r.Paths)
			}
			if back, err := atc.Parse(*r.Expression); err != nil || back.Expression() != *r.Expression {
				t.Errorf("%s: the expression does not parse back: %v", c.name, err)
			}
		}
	}
}

// TestRenderRefusals: under expressions, a stream route with nothing KIC's SNI check keeps and
// no port is refused (Kong takes no empty expression), and a Gateway API header name outside
// Kong's grammar is refused with atc's reason; the traditional router refuses neither here.
func TestRenderRefusals(t *testing.T) {
	opts := DefaultOptions()
	opts.RouterFlavor = RouterExpressions
	tr := newEngine(opts).newTranslation(nil)
	var m routeMatch
	m.reset(dialectStream, &routeSettings{})
	m.snis = append(m.snis, "*.example.com")
	if err := tr.render(&routeAlloc{}, &m); !errors.Is(err, errNothingToMatch) {
		t.Errorf("stream route with a wildcard SNI only: %v, want errNothingToMatch", err)
	}
	m.reset(dialectHTTPRoute, &routeSettings{})
	m.header("bad header", "v", valueExact)
	if err := tr.render(&routeAlloc{}, &m); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("header name outside Kong's grammar: %v, want a refusal", err)
	}
}

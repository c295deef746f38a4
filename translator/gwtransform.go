package translator

import (
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// transformer is one request- or response-transformer plugin being assembled from a rule's
// filters; filters of one rule that need the same plugin share it (KIC merges them, lists
// appended in filter order, the first URI kept).
type transformer struct {
	used                         bool
	replace, add, append, remove []string
	uri                          string
}

// transformers are a rule's request-transformer and response-transformer.
type transformers struct{ req, resp transformer }

func (t *transformers) request() *transformer  { t.req.used = true; return &t.req }
func (t *transformers) response() *transformer { t.resp.used = true; return &t.resp }

// headerModifier adds a Request- or ResponseHeaderModifier: set replaces and adds, add appends,
// remove removes ("Name:value" without a space, as KIC writes them).
func (t *transformer) headerModifier(m *gatewayv1.HTTPHeaderFilter) {
	if m == nil {
		return
	}
	for _, h := range m.Set {
		v := headerValue(h)
		t.replace, t.add = append(t.replace, v), append(t.add, v)
	}
	for _, h := range m.Add {
		t.append = append(t.append, headerValue(h))
	}
	t.remove = append(t.remove, m.Remove...)
}

func headerValue(h gatewayv1.HTTPHeader) string {
	if h.Value == "" {
		return string(h.Name)
	}
	return string(h.Name) + ":" + h.Value
}

// setURI sets replace.uri unless a filter before set one.
func (t *transformer) setURI(uri string) {
	if t.uri == "" {
		t.uri = uri
	}
}

// plugin is the Kong plugin of t, named name.
func (t *transformer) plugin(name string) *kong.Plugin {
	cfg := kong.Configuration{}
	part := func(key string, headers []string, uri string) {
		m := map[string]any{}
		if len(headers) > 0 {
			m["headers"] = headers
		}
		if uri != "" {
			m["uri"] = uri
		}
		if len(m) > 0 {
			cfg[key] = m
		}
	}
	part("replace", t.replace, t.uri)
	part("add", t.add, "")
	part("append", t.append, "")
	part("remove", t.remove, "")
	return &kong.Plugin{Name: kong.String(name), Config: cfg}
}

// plugins are the transformer plugins used.
func (t *transformers) plugins() []*kong.Plugin {
	var out []*kong.Plugin
	if t.req.used {
		out = append(out, t.req.plugin("request-transformer"))
	}
	if t.resp.used {
		out = append(out, t.resp.plugin("response-transformer"))
	}
	return out
}

// sortNestedPlugins orders a route's or service's nested plugins by name, descending (KIC's
// deckgen order).
func sortNestedPlugins(ps []*kong.Plugin) []*kong.Plugin {
	slices.SortStableFunc(ps, func(a, b *kong.Plugin) int { return strings.Compare(*b.Name, *a.Name) })
	return ps
}

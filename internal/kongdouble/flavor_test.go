package kongdouble

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRouterFlavorInGetRoot(t *testing.T) {
	flavorOf := func(s *Server) any {
		_, body, _ := do(t, s, http.MethodGet, "/", "", "")
		return body["configuration"].(map[string]any)["router_flavor"]
	}
	s := New(Options{})
	defer s.Close()
	if got := flavorOf(s); got != FlavorTraditionalCompatible {
		t.Errorf("default router_flavor = %v", got)
	}
	s.SetRouterFlavor(FlavorExpressions)
	s.Restart()
	if got := flavorOf(s); got != FlavorExpressions || s.RouterFlavor() != FlavorExpressions {
		t.Errorf("after SetRouterFlavor: %v", got)
	}
	e := New(Options{RouterFlavor: FlavorTraditional})
	defer e.Close()
	if got := flavorOf(e); got != FlavorTraditional {
		t.Errorf("Options.RouterFlavor traditional: %v", got)
	}
	for _, f := range []func(){func() { New(Options{RouterFlavor: "atc"}) }, func() { s.SetRouterFlavor("") }} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "router_flavor has an invalid value") {
					t.Errorf("an unknown flavor: recovered %v", r)
				}
			}()
			f()
		}()
	}
}

// route is a route with a tag naming it, under a service.
func route(tag string, fields map[string]any) map[string]any {
	fields["tags"] = []any{tag}
	return fields
}

func serviceWith(routes ...any) map[string]any {
	return map[string]any{"services": []any{map[string]any{"name": "s", "host": "example.com", "routes": routes}}}
}

// TestExpressionsFlavorRoutes: under expressions, Kong 3.9's validate_route and routes
// schema, with its messages; the routes without errors load.
func TestExpressionsFlavorRoutes(t *testing.T) {
	s := New(Options{RouterFlavor: FlavorExpressions})
	defer s.Close()
	bad := map[string]struct {
		fields map[string]any
		want   string
	}{
		"syntax":       {map[string]any{"expression": `http.path == "/a`}, "@entity: " + errExprPrefix + "syntax error at offset "},
		"type":         {map[string]any{"expression": `net.dst.port == "80"`}, "@entity: " + errExprPrefix + "Type mismatch between the LHS and RHS values of predicate"},
		"field":        {map[string]any{"expression": `http.paths == "/"`}, "@entity: " + errExprPrefix + "Unknown LHS field"},
		"regex":        {map[string]any{"expression": `http.path ~ "(a"`}, "@entity: " + errExprPrefix + "error parsing regexp"},
		"stream field": {map[string]any{"expression": `http.path == "/"`, "protocols": []any{"tcp"}}, "@entity: " + errExprPrefix + "Unknown LHS field"},
		"mixed":        {map[string]any{"expression": `http.path == "/"`, "paths": []any{"/"}}, "@entity: " + errExprMixed},
		"mixed header": {map[string]any{"expression": `http.path == "/"`, "headers": map[string]any{"x": []any{"y"}}}, "@entity: " + errExprMixed},
		"regex prio":   {map[string]any{"expression": `http.path == "/"`, "regex_priority": 3}, "@entity: " + errRegexPrioMix},
		"prio+paths":   {map[string]any{"paths": []any{"/"}, "priority": 3}, "@entity: " + errPriorityMix},
		"prio range":   {map[string]any{"expression": `http.path == "/"`, "priority": float64(1 << 46)}, "priority: value should be between 0 and 70368744177663"},
		"not string":   {map[string]any{"expression": 12}, "expression: expected a string"},
		"empty":        {map[string]any{"expression": ""}, "expression: length must be at least 1"},
		"nothing": {map[string]any{"protocols": []any{"https"}},
			"@entity: must set one of 'methods', 'hosts', 'headers', 'paths', 'snis', 'expression' when 'protocols' is 'https'"},
		"nothing http": {map[string]any{"protocols": []any{"http"}},
			"@entity: must set one of 'methods', 'hosts', 'headers', 'paths', 'expression' when 'protocols' is 'http'"},
		"nothing tcp": {map[string]any{"protocols": []any{"tcp"}},
			"@entity: must set one of 'sources', 'destinations', 'snis', 'expression' when 'protocols' is 'tcp', 'tls' or 'udp'"},
	}
	var routes []any
	for tag, c := range bad {
		routes = append(routes, route(tag, c.fields))
	}
	flat, _ := postFlat(t, s, serviceWith(routes...))
	for tag, c := range bad {
		if !hasPrefixError(flat[tag], c.want) {
			t.Errorf("%s: errors %v, want %q", tag, errorsOf(flat[tag]), c.want)
		}
	}
	good := []any{
		route("kic", map[string]any{"expression": `(http.host == "example.com") && (http.path ~ "^/foo/\\d{3}")`, "priority": 26766487871743}),
		route("stream", map[string]any{"expression": `net.dst.port == 1025`, "protocols": []any{"tcp"}}),
		route("net.port", map[string]any{"expression": `net.port == 80`}),
		route("traditional", map[string]any{"paths": []any{"/t"}, "regex_priority": 2}),
		route("empty fields", map[string]any{"expression": `tls.sni == "a"`, "paths": []any{}, "headers": map[string]any{}, "regex_priority": 0}),
	}
	if code, body := postConfig(t, s, "?flatten_errors=1", mustJSON(t, withFormat(serviceWith(good...)))); code != http.StatusCreated {
		t.Errorf("valid routes refused: %d %v", code, body)
	}
}

// TestTraditionalFlavorsRefuseExpressions: Kong's routes have no expression or priority field
// outside the expressions flavor.
func TestTraditionalFlavorsRefuseExpressions(t *testing.T) {
	for _, f := range []string{FlavorTraditional, FlavorTraditionalCompatible} {
		s := New(Options{RouterFlavor: f})
		flat, _ := postFlat(t, s, serviceWith(
			route("expr", map[string]any{"expression": `http.path == "/"`}),
			route("prio", map[string]any{"paths": []any{"/"}, "priority": 1}),
		))
		if !hasError(flat["expr"], "expression: unknown field") ||
			!hasError(flat["expr"], "@entity: must set one of 'methods', 'hosts', 'headers', 'paths', 'snis' when 'protocols' is 'https'") {
			t.Errorf("%s: expr: %v", f, errorsOf(flat["expr"]))
		}
		if got := errorsOf(flat["prio"]); len(got) != 1 || got[0] != "priority: unknown field" {
			t.Errorf("%s: prio: %v", f, got)
		}
		http, _ := postFlat(t, s, serviceWith(route("http", map[string]any{"protocols": []any{"http"}, "snis": []any{"a.example"}})))
		if !hasError(http["http"], "@entity: must set one of 'methods', 'hosts', 'headers', 'paths' when 'protocols' is 'http'") {
			t.Errorf("%s: http: %v", f, errorsOf(http["http"]))
		}
		s.Close()
	}
}

// TestAcceptsKICExpressionConfigs posts every config KIC v3.5.13 wrote with expression routes
// to an expressions double (accepted) and, those with routes, to a traditional_compatible one
// (refused), when the KIC corpus is on this machine.
func TestAcceptsKICExpressionConfigs(t *testing.T) {
	files := kicExpressionGoldens()
	if len(files) == 0 {
		t.Skip("KIC golden corpus not found (set KIC_GOLDEN_DIR)")
	}
	exprs := New(Options{RouterFlavor: FlavorExpressions})
	defer exprs.Close()
	compat := New(Options{})
	defer compat.Close()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if code, body := postConfig(t, exprs, "?flatten_errors=1", string(b)); code != http.StatusCreated {
			t.Errorf("%s: %d %v", f, code, body)
		}
		if !strings.Contains(string(b), "expression:") {
			continue // no routes
		}
		if code, _ := postConfig(t, compat, "?flatten_errors=1", string(b)); code != http.StatusBadRequest {
			t.Errorf("%s: traditional_compatible answered %d", f, code)
		}
	}
	t.Logf("%d KIC expression configs", len(files))
}

func kicExpressionGoldens() []string {
	dir := os.Getenv("KIC_GOLDEN_DIR")
	for d, _ := os.Getwd(); dir == "" && d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "shared", "kic-golden")); err == nil && fi.IsDir() {
			dir = filepath.Join(d, "shared", "kic-golden")
		}
	}
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "expression-routes-on_golden.yaml"))
	return files
}

func withFormat(doc map[string]any) map[string]any {
	doc["_format_version"] = "3.0"
	return doc
}

func hasPrefixError(fe map[string]any, prefix string) bool {
	for _, e := range errorsOf(fe) {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}

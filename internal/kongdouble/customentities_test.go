package kongdouble

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// GET /schemas/<type>: a custom entity type's schema while its plugin is enabled (an Enterprise
// version, or Options.Plugins naming it), Kong's 404 otherwise and for anything else.
func TestCustomEntitySchemas(t *testing.T) {
	oss := New(Options{})
	defer oss.Close()
	code, body, _ := do(t, oss, http.MethodGet, "/schemas/degraphql_routes", "", "")
	if code != http.StatusNotFound || body["message"] != "No entity named 'degraphql_routes'" {
		t.Errorf("OSS Kong: %d %v", code, body)
	}
	ee := New(Options{Version: "3.9.1.0-enterprise-edition"})
	defer ee.Close()
	code, body, _ = do(t, ee, http.MethodGet, "/schemas/degraphql_routes", "", "")
	fields, _ := body["fields"].([]any)
	if code != http.StatusOK || len(fields) != 7 {
		t.Fatalf("Enterprise Kong: %d %v", code, body)
	}
	svc := fields[1].(map[string]any)["service"].(map[string]any)
	if svc["type"] != "foreign" || svc["reference"] != "services" {
		t.Errorf("service field %v", svc)
	}
	for _, p := range []string{"/schemas/nothing", "/schemas/degraphql_routes/x"} {
		if code, _, _ := do(t, ee, http.MethodGet, p, "", ""); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
	oss.SetPlugins([]string{"degraphql"})
	if code, _, _ := do(t, oss, http.MethodGet, "/schemas/degraphql_routes", "", ""); code != http.StatusOK {
		t.Errorf("OSS Kong with the degraphql plugin: %d", code)
	}
	oss.SetPlugins(nil)
	if code, _, _ := do(t, oss, http.MethodGet, "/schemas/degraphql_routes", "", ""); code != http.StatusNotFound {
		t.Errorf("plugins back to the bundled ones: %d", code)
	}
}

// Custom entities in POST /config as Kong takes them: the top-level key is refused while the
// plugin is not enabled; with it, each entity is checked against its schema and, once the
// document is otherwise valid, its foreign keys against the document's entities.
func TestCustomEntitiesPosted(t *testing.T) {
	const svcID = "9e262d22-26f2-5bcb-8d57-c5229fb8c5a2"
	doc := func(routes ...any) string {
		return mustJSON(t, map[string]any{"_format_version": "3.0",
			"services":         []any{map[string]any{"id": svcID, "name": "s", "host": "h", "port": 80, "protocol": "http"}},
			"degraphql_routes": routes})
	}
	route := map[string]any{"uri": "/a", "query": "query{ a }", "service": map[string]any{"id": svcID}}
	oss := New(Options{})
	defer oss.Close()
	code, body := postConfig(t, oss, "?flatten_errors=1", doc(route))
	if fe, _ := body["fields"].(map[string]any); code != http.StatusBadRequest || fe["degraphql_routes"] != "unknown field" {
		t.Errorf("OSS Kong: %d %v", code, body)
	}
	s := New(Options{Version: "3.9.1.0-enterprise-edition"})
	defer s.Close()
	if code, body := postConfig(t, s, "?flatten_errors=1", doc(route, map[string]any{"uri": "/b", "query": "q", "methods": []any{"POST"}})); code != http.StatusCreated {
		t.Fatalf("valid: %d %v", code, body)
	} else if ents, _ := body["degraphql_routes"].(map[string]any); len(ents) != 2 {
		t.Errorf("201 lists %d degraphql_routes", len(ents))
	}
	bad := []struct {
		entity map[string]any
		want   string
	}{
		{map[string]any{"query": "q"}, "uri: required field missing"},
		{map[string]any{"uri": "/a", "query": "q", "methods": []any{"GOT"}}, "methods.1: expected one of:"},
		{map[string]any{"uri": "/a", "query": "q", "tags": []any{"x"}}, "tags: unknown field"},
		{map[string]any{"uri": "/a", "query": "q", "service": "s"}, "service: expected a record"},
		{map[string]any{"uri": "/a", "query": "q", "service": map[string]any{"id": "a0000000-0000-0000-0000-000000000000"}},
			`service: invalid reference 'service: {"id":"a0000000-0000-0000-0000-000000000000"}' (no such entry in 'services')`},
	}
	for _, c := range bad {
		code, body := postConfig(t, s, "?flatten_errors=1", doc(c.entity))
		flat, _ := body["flattened_errors"].([]any)
		if code != http.StatusBadRequest || len(flat) != 1 {
			t.Errorf("%v: %d %v", c.entity, code, body)
			continue
		}
		fe := flat[0].(map[string]any)
		if errs := errorsOf(fe); fe["entity_type"] != "degraphql_route" ||
			!slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, c.want) }) {
			b, _ := json.Marshal(fe)
			t.Errorf("%v: %s, want %q", c.entity, b, c.want)
		}
	}
}

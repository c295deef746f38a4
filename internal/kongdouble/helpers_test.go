package kongdouble

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// do sends one request to the double and decodes a JSON answer (nil when empty).
func do(t *testing.T, s *Server, method, path, contentType, body string) (int, map[string]any, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s %s: HTTP %d, non-JSON body %q", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, m, resp.Header
}

// postConfig posts {"config": cfg} as JSON.
func postConfig(t *testing.T, s *Server, query, cfg string) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"config": cfg})
	code, m, _ := do(t, s, http.MethodPost, "/config"+query, "application/json", string(b))
	return code, m
}

// postFlat posts a document (as a JSON object) with flatten_errors=1, expects 400 and returns
// the flattened errors keyed by each entity's first tag.
func postFlat(t *testing.T, s *Server, doc map[string]any) (map[string]map[string]any, map[string]any) {
	t.Helper()
	if doc["_format_version"] == nil {
		doc["_format_version"] = "3.0"
	}
	b, _ := json.Marshal(doc)
	code, body, _ := do(t, s, http.MethodPost, "/config?flatten_errors=1", "application/json", string(b))
	if code != http.StatusBadRequest {
		t.Fatalf("status %d, want 400; body %v", code, body)
	}
	if body["code"] != float64(14) || body["name"] != "invalid declarative configuration" {
		t.Fatalf("not a code 14 error: %v", body)
	}
	list, ok := body["flattened_errors"].([]any)
	if !ok {
		t.Fatalf("flattened_errors missing or not an array: %v", body)
	}
	out := map[string]map[string]any{}
	for _, it := range list {
		fe := it.(map[string]any)
		ent := fe["entity"].(map[string]any)
		tags, _ := ent["tags"].([]any)
		if len(tags) == 0 {
			t.Fatalf("flattened error for an entity without tags: %v", fe)
		}
		out[tags[0].(string)] = fe
	}
	return out, body
}

// errorsOf renders a flattened entry's errors as "field: message" (or "@entity: message").
func errorsOf(fe map[string]any) []string {
	var out []string
	for _, e := range fe["errors"].([]any) {
		m := e.(map[string]any)
		f, _ := m["field"].(string)
		if m["type"] == "entity" {
			f = "@entity"
		}
		out = append(out, f+": "+m["message"].(string))
	}
	return out
}

func hasError(fe map[string]any, want string) bool {
	for _, e := range errorsOf(fe) {
		if e == want {
			return true
		}
	}
	return false
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

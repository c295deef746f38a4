package kongdouble

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// The cases below mirror Kong's spec/02-integration/04-admin_api/15-off_spec.lua,
// describe("/config") → describe("POST"); each names the `it(...)` it follows.

// it("accepts configuration as JSON body")
func TestAcceptsJSONBody(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	code, body, _ := do(t, s, http.MethodPost, "/config", "application/json",
		`{"_format_version":"1.1","consumers":[{"username":"bobby_in_json_body"}]}`)
	if code != http.StatusCreated {
		t.Fatalf("status %d, body %v", code, body)
	}
	if len(body["consumers"].(map[string]any)) != 1 {
		t.Errorf("201 body should list the consumer by id: %v", body)
	}
	if s.Hash() == EmptyHash {
		t.Error("hash still empty after loading a consumer")
	}
}

// it("accepts configuration as YAML body")
func TestAcceptsYAMLBody(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	cfg := "_format_version: \"1.1\"\nconsumers:\n  - username: \"bobby_in_yaml_body\"\n"
	code, body, _ := do(t, s, http.MethodPost, "/config", "application/yaml", cfg)
	if code != http.StatusCreated {
		t.Fatalf("status %d, body %v", code, body)
	}
	if s.Hash() != md5hex([]byte(cfg)) {
		t.Errorf("hash %s, want md5 of the raw YAML body", s.Hash())
	}
}

// it("accepts configuration as a JSON string under `config` JSON key") and
// it("accepts configuration as a YAML string under `config` JSON key")
func TestAcceptsStringUnderConfigKey(t *testing.T) {
	for name, cfg := range map[string]string{
		"json": `{ "_format_version" : "1.1", "consumers" : [ { "username" : "bobby_in_json_under_config" } ] }`,
		"yaml": "_format_version: \"1.1\"\nconsumers:\n  - username: \"bobby_in_yaml_under_config\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			s := New(Options{})
			defer s.Close()
			if code, body := postConfig(t, s, "", cfg); code != http.StatusCreated {
				t.Fatalf("status %d, body %v", code, body)
			}
			if s.Hash() != md5hex([]byte(cfg)) || s.Config() != cfg {
				t.Errorf("hash %s / config %q: want md5 of the string and the string itself", s.Hash(), s.Config())
			}
		})
	}
}

// it("fails with 413 and preserves previous cache if config does not fit in cache"); the double
// models lmdb_map_size with Options.MaxConfigBytes.
func TestTooLargePreservesPrevious(t *testing.T) {
	s := New(Options{MaxConfigBytes: 200})
	defer s.Close()
	prev := `{"_format_version":"1.1","consumers":[{"username":"previous"}]}`
	if code, body := postConfig(t, s, "", prev); code != http.StatusCreated {
		t.Fatalf("status %d, body %v", code, body)
	}
	var users []string
	for i := 0; i < 50; i++ {
		users = append(users, `{"username":"bobby-`+strings.Repeat("x", i)+`"}`)
	}
	big := `{"_format_version":"1.1","consumers":[` + strings.Join(users, ",") + `]}`
	code, body := postConfig(t, s, "", big)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body["message"].(string), "lmdb_map_size") {
		t.Fatalf("status %d, body %v; want 413 naming lmdb_map_size", code, body)
	}
	if s.Config() != prev || s.Hash() != md5hex([]byte(prev)) {
		t.Error("previous config not preserved after 413")
	}
}

// it("returns 304 if checking hash and configuration is identical"); also: a top-level object
// body is hashed by re-encoding, so check_hash never matches it.
func TestCheckHash(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	cfg := "_format_version: \"1.1\"\nconsumers:\n- username: bobby_tables\n"
	if code, _ := postConfig(t, s, "?check_hash=1", cfg); code != http.StatusCreated {
		t.Fatalf("first post: %d", code)
	}
	if code, _ := postConfig(t, s, "?check_hash=1", cfg); code != http.StatusNotModified {
		t.Fatalf("second post: %d, want 304", code)
	}
	if code, _ := postConfig(t, s, "?check_hash=true", cfg); code != http.StatusCreated {
		t.Fatalf("check_hash=true is not \"1\": got %d, want 201", code)
	}
	obj := `{"_format_version":"1.1","consumers":[{"username":"x"}]}`
	for i := 0; i < 2; i++ {
		if code, _, _ := do(t, s, http.MethodPost, "/config?check_hash=1", "application/json", obj); code != http.StatusCreated {
			t.Fatalf("object body post %d: %d, want 201 (never 304)", i, code)
		}
	}
}

// it("returns 400 on an invalid config string")
func TestInvalidConfigString(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	code, body := postConfig(t, s, "", "bobby tables")
	want := map[string]any{
		"code":    float64(14),
		"fields":  map[string]any{"error": "failed parsing declarative configuration: expected an object"},
		"message": `declarative config is invalid: {error="failed parsing declarative configuration: expected an object"}`,
		"name":    "invalid declarative configuration",
	}
	if code != http.StatusBadRequest || !reflect.DeepEqual(body, want) {
		t.Fatalf("got %d %v\nwant 400 %v", code, body, want)
	}
}

// it("returns 400 on a validation error")
func TestValidationError(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	code, body := postConfig(t, s, "", "_format_version: \"1.1\"\nservices:\n- port: -12\n")
	want := map[string]any{
		"code": float64(14),
		"fields": map[string]any{"services": []any{map[string]any{
			"host": "required field missing",
			"port": "value should be between 0 and 65535",
		}}},
		"message": `declarative config is invalid: {services={{host="required field missing",port="value should be between 0 and 65535"}}}`,
		"name":    "invalid declarative configuration",
	}
	if code != http.StatusBadRequest || !reflect.DeepEqual(body, want) {
		t.Fatalf("got %d %v\nwant 400 %v", code, body, want)
	}
}

// it("returns 400 on an primary key uniqueness error") and
// it("returns 400 on an endpoint key uniqueness error")
func TestServiceUniqueness(t *testing.T) {
	const tmpl = `_format_version: "1.1"
services:
- ID1
  name: foo
  host: example.com
  protocol: https
  routes:
  - name: foo
    methods: ["GET"]
- ID2
  name: NAME2
  host: example.test
  port: 3000
  routes:
  - name: bar
    paths:
    - /
`
	id := "id: 0855b320-0dd2-547d-891d-601e9b38647f"
	cases := map[string]struct{ cfg, msg string }{
		"primary key": {strings.NewReplacer("ID1", id, "ID2", id, "NAME2", "bar").Replace(tmpl),
			"uniqueness violation: 'services' entity with primary key set to '0855b320-0dd2-547d-891d-601e9b38647f' already declared"},
		"endpoint key": {strings.NewReplacer("ID1", "retries: 5", "ID2", "retries: 5", "NAME2", "foo").Replace(tmpl),
			"uniqueness violation: 'services' entity with name set to 'foo' already declared"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := New(Options{})
			defer s.Close()
			code, body := postConfig(t, s, "", c.cfg)
			wantFields := map[string]any{"services": []any{nil, c.msg}}
			if code != http.StatusBadRequest || !reflect.DeepEqual(body["fields"], wantFields) {
				t.Fatalf("got %d fields %v, want %v", code, body["fields"], wantFields)
			}
			if want := `declarative config is invalid: {services={[2]="` + c.msg + `"}}`; body["message"] != want {
				t.Errorf("message %q\nwant    %q", body["message"], want)
			}
		})
	}
}

// it("returns 400 on a regular key uniqueness error"). Kong's unflattened table keys this one by
// username; the double reports it at the entity's index, and the flattened form is identical.
func TestConsumerCustomIDUniqueness(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	flat, _ := postFlat(t, s, map[string]any{"consumers": []any{
		map[string]any{"username": "foo", "custom_id": "conflict", "tags": []any{"c1"}},
		map[string]any{"username": "bar", "custom_id": "conflict", "tags": []any{"c2"}},
	}})
	if len(flat) != 1 || !hasError(flat["c2"], "@entity: uniqueness violation: 'consumers' entity with custom_id set to 'conflict' already declared") {
		t.Fatalf("got %v", flat)
	}
}

// it("returns 400 when given no input")
func TestNoInput(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	code, body, _ := do(t, s, http.MethodPost, "/config", "", "")
	if code != http.StatusBadRequest || body["message"] != "expected a declarative configuration" {
		t.Fatalf("got %d %v", code, body)
	}
}

// Content negotiation (kong/api/api_helpers.lua before_filter): other media types get 415,
// unparsable JSON 400.
func TestContentTypes(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	if code, _, _ := do(t, s, http.MethodPost, "/config", "text/plain", "_format_version: '3.0'"); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d, want 415", code)
	}
	if code, body, _ := do(t, s, http.MethodPost, "/config", "application/json", "{nope"); code != http.StatusBadRequest || body["message"] != "Cannot parse JSON body" {
		t.Errorf("bad JSON: %d %v", code, body)
	}
	form := "config=" + strings.ReplaceAll("_format_version: '3.0'\n", " ", "+")
	if code, body, _ := do(t, s, http.MethodPost, "/config", "application/x-www-form-urlencoded", form); code != http.StatusCreated {
		t.Errorf("form: %d %v", code, body)
	}
}

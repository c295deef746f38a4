package kongdouble

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Every config in the project's golden corpus is what kongsync would post; Kong accepts them,
// so the double must too. A failure here means the double is stricter than Kong (fix the
// double) or a golden config is invalid for Kong (fix the translator). A case translated for
// another Kong version (its options.yaml's kongVersion) is posted to a double of that version,
// one translated for another router flavor (routerFlavor) to a double of that flavor.
func TestAcceptsGoldenConfigs(t *testing.T) {
	files, err := filepath.Glob("../../testdata/golden/*/kong.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no golden configs")
	}
	s := New(Options{})
	defer s.Close()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s.SetVersion(caseVersion(t, filepath.Dir(f)))
		s.SetRouterFlavor(caseFlavor(t, filepath.Dir(f)))
		if code, body := postConfig(t, s, "?flatten_errors=1", string(b)); code != http.StatusCreated {
			t.Errorf("%s: %d %v", f, code, body)
		}
	}
}

// caseFlavor is a golden case's routerFlavor (options.yaml), else Kong's default.
func caseFlavor(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "options.yaml"))
	if os.IsNotExist(err) {
		return FlavorTraditionalCompatible
	}
	var o struct {
		RouterFlavor string `json:"routerFlavor"`
	}
	if err == nil {
		err = yaml.Unmarshal(b, &o)
	}
	if err != nil {
		t.Fatalf("%s/options.yaml: %v", dir, err)
	}
	if o.RouterFlavor == "" {
		return FlavorTraditionalCompatible
	}
	return o.RouterFlavor
}

// caseVersion is a golden case's kongVersion (options.yaml), else the double's default.
func caseVersion(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "options.yaml"))
	if os.IsNotExist(err) {
		return "3.9.1"
	}
	var o struct {
		KongVersion string `json:"kongVersion"`
	}
	if err == nil {
		err = yaml.Unmarshal(b, &o)
	}
	if err != nil {
		t.Fatalf("%s/options.yaml: %v", dir, err)
	}
	if o.KongVersion == "" { // options of another kind only (hardening)
		return "3.9.1"
	}
	return o.KongVersion
}

// TestVersionGatedSchema: what Kong's schema gained in a version is refused before it, and GET
// / reports the version set at run time.
func TestVersionGatedSchema(t *testing.T) {
	tags := []any{"k8s-kind:Service", "k8s-namespace:ns", "k8s-name:svc"}
	sticky := map[string]any{"upstreams": []any{map[string]any{"name": "u", "algorithm": "sticky-sessions",
		"hash_on": "none", "sticky_sessions_cookie": "c", "sticky_sessions_cookie_path": "/", "tags": tags}}}
	redirect := map[string]any{"plugins": []any{map[string]any{"name": "redirect", "tags": tags,
		"config": map[string]any{"location": "/"}}}}
	cases := []struct {
		version string
		doc     map[string]any
		errs    []string // the fields refused; none: accepted
	}{
		{"3.10.0", sticky, []string{"algorithm", "sticky_sessions_cookie", "sticky_sessions_cookie_path"}},
		{"3.11.0", sticky, nil},
		{"3.12.1.0-enterprise-edition", sticky, nil},
		{"3.8.1", redirect, []string{"name"}},
		{"3.9.0", redirect, nil},
	}
	for _, c := range cases {
		s := New(Options{Version: c.version})
		_, m, _ := do(t, s, http.MethodGet, "/", "", "")
		if m["version"] != c.version {
			t.Errorf("%s: GET / version %v", c.version, m["version"])
		}
		doc := map[string]any{"_format_version": "3.0"}
		for k, v := range c.doc {
			doc[k] = v
		}
		code, body := postConfig(t, s, "?flatten_errors=1", mustJSON(t, doc))
		s.Close()
		if len(c.errs) == 0 {
			if code != http.StatusCreated {
				t.Errorf("%s: %d %v, want accepted", c.version, code, body)
			}
			continue
		}
		got := fieldsOf(body)
		if code != http.StatusBadRequest || strings.Join(got, ",") != strings.Join(c.errs, ",") {
			t.Errorf("%s: %d, refused fields %v, want %v (%v)", c.version, code, got, c.errs, body)
		}
	}
	s := New(Options{})
	defer s.Close()
	s.SetVersion("3.11.2")
	if _, m, _ := do(t, s, http.MethodGet, "/", "", ""); m["version"] != "3.11.2" {
		t.Errorf("after SetVersion: GET / version %v", m["version"])
	}
}

// fieldsOf lists, sorted, the fields a 400's flattened errors name.
func fieldsOf(body map[string]any) []string {
	var out []string
	list, _ := body["flattened_errors"].([]any)
	for _, it := range list {
		fe, _ := it.(map[string]any)
		errs, _ := fe["errors"].([]any)
		for _, e := range errs {
			m, _ := e.(map[string]any)
			if f, ok := m["field"].(string); ok {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

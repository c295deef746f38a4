package kongdouble

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Vaults as Kong's schema takes them: a valid one loads; prefixes that break the pattern, name
// a vault or repeat one, unknown backends and configs that are not records are flattened
// errors of type vault.
func TestVaults(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	ok := `{"_format_version":"3.0","vaults":[{"id":"9d5e44aa-7c78-5c22-be6e-4a481ce4aa1c","name":"env",` +
		`"prefix":"my-env","config":{"prefix":"kong_"},"description":"d","tags":["k8s-name:v"]}]}`
	if code, body := postConfig(t, s, "?flatten_errors=1", ok); code != http.StatusCreated {
		t.Fatalf("valid vault: %d %v", code, body)
	}
	vault := func(tag, name, prefix string, config any) map[string]any {
		v := map[string]any{"name": name, "prefix": prefix, "tags": []any{tag}}
		if config != nil {
			v["config"] = config
		}
		return v
	}
	flat, _ := postFlat(t, s, map[string]any{"vaults": []any{
		vault("first", "env", "shared", map[string]any{}),
		vault("repeat", "env", "shared", nil),
		vault("pattern", "env", "Bad_Prefix", nil),
		vault("named", "aws", "env", nil),
		vault("backend", "nope", "nope-vault", nil),
		vault("config", "env", "listed", []any{"a"}),
	}})
	want := map[string]string{
		"repeat":  "uniqueness violation: 'vaults' entity with prefix set to 'shared' already declared",
		"pattern": "prefix: invalid value: Bad_Prefix",
		"named":   "prefix: must not be one of: aws, azure, env, gcp, hcv, konnect",
		"backend": "name: vault 'nope' is not installed",
		"config":  "config: expected a record",
	}
	if _, bad := flat["first"]; bad {
		t.Errorf("the first holder of a prefix is refused: %v", flat["first"])
	}
	for tag, msg := range want {
		fe, ok := flat[tag]
		if !ok {
			t.Errorf("%s: no flattened error", tag)
			continue
		}
		if fe["entity_type"] != "vault" {
			t.Errorf("%s: entity_type %v", tag, fe["entity_type"])
		}
		if errs := errorsOf(fe); !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, msg) }) {
			t.Errorf("%s: errors %v, want %q", tag, errs, msg)
		}
	}
}

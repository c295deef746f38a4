package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// load posts config to the double as kongsync does ({"config": string}).
func load(t *testing.T, d *kongdouble.Server, config string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"config": config})
	resp, err := http.Post(d.URL()+"/config", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the double refused the config: %d", resp.StatusCode)
	}
}

func runDiffCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), append([]string{"diff"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// kongsync diff against the Kong double: the same config (same bytes, or the same entities in
// another encoding) exits 0; another config exits 1 naming each difference; no Kong exits 2.
func TestDiffAgainstKongDouble(t *testing.T) {
	kong := kongdouble.New(kongdouble.Options{})
	t.Cleanup(kong.Close)
	_, yamlCfg, _ := runDump(t, "-f", goodFile)
	_, jsonCfg, _ := runDump(t, "-f", goodFile, "--format", "json")

	load(t, kong, strings.TrimSuffix(jsonCfg, "\n"))
	if code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", goodFile); code != diffSame || out != "" ||
		!strings.Contains(errs, "Kong holds exactly this configuration") {
		t.Errorf("the posted bytes: exit %d\n%s%s", code, out, errs)
	}
	kong.ResetRequests()
	load(t, kong, yamlCfg) // another hash, the same entities: compared one by one
	code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", goodFile)
	if code != diffSame || out != "" || !strings.Contains(errs, "no difference") {
		t.Errorf("the same config as YAML: exit %d\n%s%s", code, out, errs)
	}
	if !hasGet(kong, "/config") {
		t.Error("the YAML config was not fetched with GET /config")
	}

	changed := strings.Replace(yamlCfg, "          - /\n", "          - /other\n", 1)
	changed = strings.Replace(changed, "  - algorithm: round-robin\n", "  - algorithm: least-connections\n", 1)
	changed += "consumers:\n  - username: stray\n"
	load(t, kong, changed)
	code, out, errs = runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", goodFile)
	want := []string{
		"+ consumer stray: only in the actual configuration",
		`~ upstream good.default.80.svc: algorithm: expected "round-robin", actual "least-connections"`,
		`~ route default.good.good.good.example.com.80: paths[0]: expected "/", actual "/other"`,
	}
	if code != diffDifferent || strings.TrimSpace(out) != strings.Join(want, "\n") || !strings.Contains(errs, "3 difference(s)") {
		t.Errorf("a changed config: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, out, strings.Join(want, "\n"), errs)
	}

	kong.Restart() // empty: everything is missing
	if code, out, _ := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", goodFile); code != diffDifferent ||
		!strings.Contains(out, "- service default.good.80: only in the expected configuration") {
		t.Errorf("an empty Kong: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"--kong-admin-url", "http://127.0.0.1:1", "-f", goodFile},
		{"--kong-admin-url", kong.URL(), "-f", "/nonexistent.yaml"},
		{"--nope"},
	} {
		if code, _, errs := runDiffCmd(t, args...); code != diffError {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, diffError, errs)
		}
	}
}

func hasGet(d *kongdouble.Server, path string) bool {
	for _, r := range d.Requests() {
		if r.Method == http.MethodGet && r.Path == path {
			return true
		}
	}
	return false
}

// kongsync diff --format json: the same entity-level report as one JSON document, with text's
// exit statuses.
func TestDiffFormatJSON(t *testing.T) {
	kong := kongdouble.New(kongdouble.Options{})
	t.Cleanup(kong.Close)
	_, yamlCfg, _ := runDump(t, "-f", goodFile)
	_, jsonCfg, _ := runDump(t, "-f", goodFile, "--format", "json")
	changed := strings.Replace(yamlCfg, "          - /\n", "          - /other\n", 1)
	changed += "consumers:\n  - username: stray\n"
	tests := []struct {
		name   string
		loaded string // "" leaves Kong empty
		code   int
		check  func(t *testing.T, got diffJSON)
	}{
		{"the posted bytes", strings.TrimSuffix(jsonCfg, "\n"), diffSame, func(t *testing.T, got diffJSON) {
			if !got.Equal || got.Hash == "" || !got.Empty() {
				t.Errorf("want equal with a hash and no difference: %+v", got)
			}
		}},
		{"the same entities as YAML", yamlCfg, diffSame, func(t *testing.T, got diffJSON) {
			if !got.Equal || got.Hash != "" || !got.Empty() {
				t.Errorf("want equal without a hash: %+v", got)
			}
		}},
		{"changed", changed, diffDifferent, func(t *testing.T, got diffJSON) {
			wantAdded := []document.EntityRef{{Kind: "consumer", Name: "stray"}}
			wantChanged := []document.EntityChange{{EntityRef: document.EntityRef{Kind: "route", Name: "default.good.good.good.example.com.80"},
				Fields: []document.FieldChange{{Field: "paths[0]", Expected: `"/"`, Actual: `"/other"`}}}}
			if got.Equal || !reflect.DeepEqual(got.Added, wantAdded) || len(got.Removed) != 0 || !reflect.DeepEqual(got.Changed, wantChanged) {
				t.Errorf("got %+v\nwant added %+v changed %+v", got, wantAdded, wantChanged)
			}
		}},
		{"an empty Kong", "", diffDifferent, func(t *testing.T, got diffJSON) {
			if got.Equal || len(got.Removed) == 0 || !slices.Contains(got.Removed, document.EntityRef{Kind: "service", Name: "default.good.80"}) {
				t.Errorf("want the service removed: %+v", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kong.Restart()
			if tt.loaded != "" {
				load(t, kong, tt.loaded)
			}
			code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", goodFile, "--format", "json")
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errs)
			}
			var got diffJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
			}
			tt.check(t, got)
		})
	}
	for _, args := range [][]string{
		{"--kong-admin-url", "http://127.0.0.1:1", "-f", goodFile, "--format", "json"},
		{"--kong-admin-url", kong.URL(), "-f", goodFile, "--format", "yaml"},
	} {
		if code, out, errs := runDiffCmd(t, args...); code != diffError || out != "" {
			t.Errorf("%v: exit %d, want %d; stdout %q (%s)", args, code, diffError, out, errs)
		}
	}
}

// kongsync diff reads Kong's schemas of the custom entity types it translates from the Kong it
// compares with, as the controller does: an Enterprise Kong holding what dump made (with the
// bundled schemas, the same) shows no difference.
func TestDiffReadsCustomEntitySchemas(t *testing.T) {
	const in = "../../testdata/golden/custom-entity-basic/in.yaml"
	kong := kongdouble.New(kongdouble.Options{Version: "3.9.1.0-enterprise-edition"})
	t.Cleanup(kong.Close)
	_, jsonCfg, errs := runDump(t, "-f", in, "--format", "json", "--kong-version", "3.9.1.0-enterprise-edition")
	if !strings.Contains(jsonCfg, `"degraphql_routes":[`) {
		t.Fatalf("dump: %s\n%s", jsonCfg, errs)
	}
	load(t, kong, strings.TrimSuffix(jsonCfg, "\n"))
	if code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", in); code != diffSame {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	if !hasGet(kong, "/schemas/degraphql_routes") {
		t.Error("the schema of degraphql_routes was not read from Kong")
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

const stickyCase = goldenRoot + "/kong-version-3.10-sticky-sessions/in.yaml"

// dump --kong-version: the sticky-sessions policy is left out with a problem before Kong 3.11
// (and by default, 3.9.1), applied from 3.11; an invalid or unsupported version exits 2 with
// the reason; --help states the default.
func TestDumpKongVersion(t *testing.T) {
	problem := `problem: Service shop/cart: metadata.annotations[konghq.com/upstream-policy]: KongUpstreamPolicy shop/sticky: spec.algorithm "sticky-sessions" needs Kong 3.11.0 or later (translating for Kong `
	cases := []struct {
		args    []string
		exit    int
		sticky  bool   // the config has the sticky-sessions upstream
		stderr  string // a line stderr must hold
		noStdin bool
	}{
		{nil, exitProblems, false, problem + "3.9.1)", false},
		{[]string{"--kong-version", "3.10.0"}, exitProblems, false, problem + "3.10.0)", false},
		{[]string{"--kong-version=3.10.2.1-enterprise-edition"}, exitProblems, false, problem + "3.10.2)", false},
		{[]string{"--kong-version", "3.11"}, exitOK, true, "", false},
		{[]string{"-kong-version", "3.12.0"}, exitOK, true, "", false},
		{[]string{"--kong-version", "3.4.0"}, exitError, false,
			`invalid value "3.4.0" for flag -kong-version: Kong 3.4.0 is not supported: KIC v3 (and kongsync) need Kong 3.4.1 or later`, true},
		{[]string{"--kong-version", "next"}, exitError, false,
			`invalid value "next" for flag -kong-version: invalid Kong version "next": want MAJOR.MINOR[.PATCH], e.g. 3.9.1`, true},
	}
	for _, c := range cases {
		code, out, stderr := runDump(t, append([]string{"-f", stickyCase}, c.args...)...)
		if code != c.exit {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.exit, stderr)
		}
		if got := strings.Contains(out, "algorithm: sticky-sessions"); got != c.sticky {
			t.Errorf("%v: sticky-sessions in the config: %v, want %v", c.args, got, c.sticky)
		}
		if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.args, c.stderr, stderr)
		}
		if c.stderr == "" && stderr != "" {
			t.Errorf("%v: stderr should be empty:\n%s", c.args, stderr)
		}
		if c.noStdin && out != "" {
			t.Errorf("%v: a config was written despite the error", c.args)
		}
	}
	_, _, help := runDump(t, "-h")
	if !strings.Contains(help, "-kong-version version") || !strings.Contains(help, "the version the integration tests' Kong double reports (default 3.9.1)") {
		t.Errorf("dump -h does not state --kong-version's default:\n%s", help)
	}
	// The default is what the double reports.
	d := kongdouble.New(kongdouble.Options{})
	defer d.Close()
	if v := versionOf(t, d); v != "3.9.1" {
		t.Errorf("the Kong double reports %s; dump's default must follow", v)
	}
}

// diff translates for the Kong it compares with (GET /), unless --kong-version says otherwise:
// a Kong 3.11 holding the sticky-sessions config is in step, one of 3.10 is not (the policy
// is left out for it).
func TestDiffKongVersion(t *testing.T) {
	kong := kongdouble.New(kongdouble.Options{Version: "3.11.0"})
	t.Cleanup(kong.Close)
	_, cfg, _ := runDump(t, "-f", stickyCase, "--kong-version", "3.11.0", "--format", "json")
	load(t, kong, strings.TrimSuffix(cfg, "\n"))
	if code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", stickyCase); code != diffSame {
		t.Errorf("Kong 3.11 holding the 3.11 translation: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", stickyCase, "--kong-version", "3.10.0")
	if code != diffDifferent || !strings.Contains(out, `algorithm: expected "round-robin", actual "sticky-sessions"`) ||
		!strings.Contains(errs, "needs Kong 3.11.0 or later (translating for Kong 3.10.0)") {
		t.Errorf("--kong-version 3.10.0: exit %d\n%s%s", code, out, errs)
	}
	kong.SetVersion("3.10.0")
	if code, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", stickyCase); code != diffDifferent ||
		!strings.Contains(errs, "(translating for Kong 3.10.0)") {
		t.Errorf("Kong now reporting 3.10.0: exit %d\n%s%s", code, out, errs)
	}
	kong.SetVersion("2.8.0")
	if code, _, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", stickyCase); code != diffError ||
		!strings.Contains(errs, "Kong 2.8.0 is not supported") {
		t.Errorf("Kong 2.8.0: exit %d\n%s", code, errs)
	}
}

// versionOf is the version d reports in GET /.
func versionOf(t *testing.T, d *kongdouble.Server) string {
	t.Helper()
	resp, err := http.Get(d.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var root struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&root); err != nil {
		t.Fatal(err)
	}
	return root.Version
}

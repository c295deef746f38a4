package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/translator"
)

// dump --router-flavor: the three flavors Kong knows are taken, the default being Kong's
// (traditional_compatible: the same output as without the flag); anything else exits 2 with the
// flavors named and writes no config; --help states the default.
func TestDumpRouterFlavor(t *testing.T) {
	code, plain, errs := runDump(t, "-f", goodFile)
	if code != exitOK {
		t.Fatalf("dump: exit %d\n%s", code, errs)
	}
	for _, f := range []string{"traditional", "traditional_compatible", "expressions"} {
		code, out, errs := runDump(t, "-f", goodFile, "--router-flavor", f)
		if code != exitOK || out == "" {
			t.Errorf("--router-flavor %s: exit %d, %d bytes\n%s", f, code, len(out), errs)
		}
		if f == "traditional_compatible" && out != plain {
			t.Errorf("--router-flavor traditional_compatible differs from the default")
		}
	}
	for _, bad := range []string{"atc", "", "Expressions"} {
		code, out, errs := runDump(t, "-f", goodFile, "--router-flavor="+bad)
		want := `invalid value "` + bad + `" for flag -router-flavor: unknown router flavor "` + bad +
			`" (Kong's: traditional, traditional_compatible, expressions)`
		if code != exitError || out != "" || !strings.Contains(errs, want) {
			t.Errorf("--router-flavor=%q: exit %d, stdout %d bytes, stderr:\n%s", bad, code, len(out), errs)
		}
	}
	if _, _, help := runDump(t, "-h"); !strings.Contains(help, "(default traditional_compatible)") {
		t.Errorf("dump -h does not state --router-flavor's default:\n%s", help)
	}
}

// diff translates for the router flavor the Kong reports, unless --router-flavor is given; with
// both --router-flavor and --kong-version, GET / is not read at all; a Kong reporting a flavor
// kongsync does not know fails the diff with the reason.
func TestDiffRouterFlavor(t *testing.T) {
	kong := kongdouble.New(kongdouble.Options{RouterFlavor: "expressions"})
	t.Cleanup(kong.Close)
	for _, tc := range []struct {
		args []string
		want translator.RouterFlavor
		root bool // GET / read
	}{
		{nil, translator.RouterExpressions, true},
		{[]string{"--router-flavor", "traditional"}, translator.RouterTraditional, true},
		{[]string{"--router-flavor", "traditional", "--kong-version", "3.9.1"}, translator.RouterTraditional, false},
		{[]string{"--kong-version", "3.11.0"}, translator.RouterExpressions, true},
	} {
		kong.ResetRequests()
		f := &diffFlags{}
		if err := newDiffFlagSet(f, &strings.Builder{}).Parse(append([]string{"--kong-admin-url", kong.URL()}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		rep, err := diffReplica(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := translateForKong(context.Background(), f, rep); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		root := slices.ContainsFunc(kong.Requests(), func(r kongdouble.Request) bool { return r.Path == "/" })
		if f.opts.RouterFlavor != tc.want || root != tc.root {
			t.Errorf("%v: translating for %q (GET / read: %v), want %q (%v)", tc.args, f.opts.RouterFlavor, root, tc.want, tc.root)
		}
	}
	// The double refuses to run with a flavor Kong would not start with; a Kong that reports
	// one anyway (a newer Kong, a proxy) is a bare GET / answer.
	odd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version":"3.9.1","configuration":{"database":"off","router_flavor":"atc"}}`)
	}))
	t.Cleanup(odd.Close)
	code, _, errs := runDiffCmd(t, "--kong-admin-url", odd.URL, "-f", goodFile)
	if code != diffError || !strings.Contains(errs, `configuration.router_flavor: unknown router flavor "atc"`) {
		t.Errorf("a Kong reporting router_flavor atc: exit %d\n%s", code, errs)
	}
	if code, _, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", goodFile, "--router-flavor", "x"); code != diffError ||
		!strings.Contains(errs, `invalid value "x" for flag -router-flavor`) {
		t.Errorf("--router-flavor x: exit %d\n%s", code, errs)
	}
}

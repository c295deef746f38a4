package translator

import (
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/store"
)

func TestParseKongVersion(t *testing.T) {
	cases := []struct {
		in   string
		want string // "" for an error
		err  string
	}{
		{"3.9.1", "3.9.1", ""},
		{"3.11", "3.11.0", ""},
		{"3.10.0.1-enterprise-edition", "3.10.0", ""},
		{"3.4.1.2", "3.4.1", ""},
		{"3.12.0-rc.1", "3.12.0", ""},
		{"3.4.1", "3.4.1", ""},
		{"3.4.0", "", "is not supported"},
		{"2.8.4", "", "is not supported"},
		{"", "", "invalid Kong version"},
		{"latest", "", "invalid Kong version"},
		{"3", "", "invalid Kong version"},
	}
	for _, c := range cases {
		got, err := ParseKongVersion(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one containing %q", c.in, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.in, err)
		case got.String() != c.want:
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
	}
}

func TestGates(t *testing.T) {
	cases := []struct {
		gate    Gate
		version string
		want    bool
	}{
		{GateRedirectPlugin, "3.4.1", false},
		{GateRedirectPlugin, "3.8.9", false},
		{GateRedirectPlugin, "3.9.0", true},
		{GateRedirectPlugin, "3.9.1", true},
		{GateRedirectPlugin, "4.0.0", true},
		{GateStickySessions, "3.9.1", false},
		{GateStickySessions, "3.10.99", false},
		{GateStickySessions, "3.11.0", true},
		{GateStickySessions, "3.12.1", true},
	}
	for _, c := range cases {
		if got := c.gate.Has(semver.MustParse(c.version)); got != c.want {
			t.Errorf("%s at Kong %s: %v, want %v", c.gate.Feature, c.version, got, c.want)
		}
	}
	for i, g := range Gates() {
		if i > 0 && g.Since.LT(Gates()[i-1].Since) {
			t.Errorf("Gates() not oldest first at %s", g.Feature)
		}
		if g.Since.LTE(MinKongVersion) {
			t.Errorf("%s: gated at %s, which every supported Kong has", g.Feature, g.Since)
		}
	}
}

// TestEngineSetOptions: a new Kong version makes a warm Engine translate as a cold build with
// the new options does; the same options keep what it built.
func TestEngineSetOptions(t *testing.T) {
	snap, err := store.NewSnapshot(loadObjects(t, goldenDir+"/kong-version-3.10-sticky-sessions")...)
	if err != nil {
		t.Fatal(err)
	}
	at := func(v string) Options {
		o := DefaultOptions()
		o.KongVersion = semver.MustParse(v)
		return o
	}
	eng := NewEngine(at("3.10.0"))
	for _, v := range []string{"3.10.0", "3.11.0", "3.11.0", "3.9.1", "3.12.0"} {
		eng.SetOptions(at(v))
		got, err := eng.Build(snap)
		if err != nil {
			t.Fatal(err)
		}
		if msg := builtMismatch(got, coldBuildWith(t, snap, at(v))); msg != "" {
			t.Fatalf("Kong %s: warm build after SetOptions differs from a cold build:\n%s", v, msg)
		}
		sticky := GateStickySessions.Has(semver.MustParse(v))
		if (len(got.Problems) == 0) != sticky {
			t.Errorf("Kong %s: problems %v", v, got.Problems)
		}
		if eng.Options().KongVersion.String() != v {
			t.Errorf("Options().KongVersion = %s, want %s", eng.Options().KongVersion, v)
		}
	}
	if v := NewEngine(Options{}).Options().KongVersion; !v.EQ(DefaultKongVersion) {
		t.Errorf("unset KongVersion: %s, want %s", v, DefaultKongVersion)
	}
}

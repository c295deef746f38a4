package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261202000000-abcdef123456"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef1234567890"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		name, ldflags string
		info          *debug.BuildInfo
		ok            bool
		want          string
	}{
		{"ldflags win", "v1.2.3", stamped, true, "kongsync v1.2.3 commit abcdef1234567890-dirty go1.26.8"},
		{"module version when not set", "dev", stamped, true, "kongsync v0.0.0-20261202000000-abcdef123456 commit abcdef1234567890-dirty go1.26.8"},
		{"no vcs (go test, go run)", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true, "kongsync dev go1.26.8"},
		{"no build info", "dev", nil, false, "kongsync dev unknown"},
	} {
		if got := versionLine(c.ldflags, c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

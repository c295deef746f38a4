package main

import (
	"runtime/debug"
	"strings"
)

// versionLine is what `kongsync version` prints: the version (set with -ldflags
// "-X main.version=...", as `make build` does from git describe, else the module version Go
// stamped, else "dev"), the commit and whether the tree had changes, and the Go version, the
// last two from the build information Go records in every binary.
func versionLine(ldflagsVersion string, info *debug.BuildInfo, ok bool) string {
	v := ldflagsVersion
	goVersion, commit := "unknown", ""
	if ok {
		goVersion = info.GoVersion
		if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit != "" {
			commit += "-dirty"
		}
	}
	var b strings.Builder
	b.WriteString("kongsync " + v)
	if commit != "" {
		b.WriteString(" commit " + commit)
	}
	b.WriteString(" " + goVersion)
	return b.String()
}

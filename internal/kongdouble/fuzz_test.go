package kongdouble

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseAndValidate: any config string is answered (parsed or refused), never a panic.
func FuzzParseAndValidate(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/golden/*/kong.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`{"_format_version":"3.0","services":[{"name":"a","host":"h","routes":[{"paths":["~/(x"]}]}]}`)
	f.Add("_format_version: '3.0'\nupstreams: [{name: u, targets: [{target: 'a:1'}, {target: 'a:1'}]}]")
	f.Fuzz(func(t *testing.T, cfg string) {
		doc, perr := parseConfigString(cfg)
		if perr != "" {
			return
		}
		res := validate(doc, BundledPlugins, "3.11.0", FlavorTraditionalCompatible)
		_ = invalidBody(res.nested(), res.flat, true)
		_ = luaPretty(res.nested())
	})
}

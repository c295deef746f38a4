package kongdouble

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseAndValidate: any config string is answered (parsed or refused), never a panic, under
// the default flavor and under expressions.
func FuzzParseAndValidate(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/golden/*/kong.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`{"_format_version":"3.0","services":[{"name":"a","host":"h","routes":[{"paths":["~/(x"]}]}]}`)
	f.Add(`{"_format_version":"3.0","services":[{"name":"a","host":"h","routes":[{"expression":"(http.path == \"/\") && (net.dst.port == 80)","priority":3}]}]}`)
	f.Add("_format_version: '3.0'\nupstreams: [{name: u, targets: [{target: 'a:1'}, {target: 'a:1'}]}]")
	f.Fuzz(func(t *testing.T, cfg string) {
		doc, perr := parseConfigString(cfg)
		if perr != "" {
			return
		}
		for _, flavor := range []string{FlavorTraditionalCompatible, FlavorExpressions} {
			res := validate(doc, BundledPlugins, "3.11.0", flavor)
			_ = invalidBody(res.nested(), res.flat, true)
			_ = luaPretty(res.nested())
		}
	})
}

package kongdouble

import "testing"

// licenses load only on a double reporting an Enterprise version, and need a payload.
func TestLicensesEnterpriseOnly(t *testing.T) {
	doc := func(l map[string]any) map[string]any {
		return map[string]any{"_format_version": "3.0", "licenses": []any{l}}
	}
	ok := map[string]any{"id": "ec568598-7287-5f03-a97a-49a30e7946bc", "payload": "p"}
	if res := validate(doc(ok), BundledPlugins, "3.9.1", "traditional_compatible"); res.top["licenses"] != "unknown field" {
		t.Errorf("OSS accepted licenses: %+v", res.top)
	}
	if res := validate(doc(ok), BundledPlugins, "3.9.1.0-enterprise-edition", "traditional_compatible"); !res.ok() {
		t.Errorf("Enterprise refused a license: %+v %+v", res.top, res.flat)
	}
	if res := validate(doc(map[string]any{"id": "x"}), BundledPlugins, "3.9.1.0", "traditional_compatible"); res.ok() {
		t.Errorf("a license without payload was accepted")
	}
}

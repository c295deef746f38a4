package translator

import "testing"

func TestIsKongEnterprise(t *testing.T) {
	for v, want := range map[string]bool{
		"3.9.1": false, "3.9.1.0": true, "3.10.0.1-enterprise-edition": true, "3.9.1-enterprise-edition": true,
		"3.4": false, "nonsense": false, "": false,
	} {
		if got := IsKongEnterprise(v); got != want {
			t.Errorf("IsKongEnterprise(%q) = %v, want %v", v, got, want)
		}
	}
}

// KIC's id of a KongLicense's license: uuid.NewSHA1(uuid.Nil, "KongLicense:<name>").
func TestLicenseID(t *testing.T) {
	if got := licenseID("kong-license"); len(got) != 36 || got[14] != '5' {
		t.Errorf("licenseID = %q, want a version 5 UUID", got)
	}
}

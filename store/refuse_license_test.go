package store

import (
	"fmt"
	"strings"
	"testing"

	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
)

// KongLicense's CRD schema: rawLicenseString required (an empty one passes), enabled defaulted
// to true; nothing the reader says quotes the payload.
func TestCheckLicenseRules(t *testing.T) {
	const head = "apiVersion: configuration.konghq.com/v1alpha1\nkind: KongLicense\nmetadata: {name: l}\n"
	cases := []struct {
		name, doc string
		fields    []string
		enabled   bool
	}{
		{"valid", head + "rawLicenseString: '{\"license\":\"s3cr3t\"}'\nenabled: false", nil, false},
		{"enabled defaults to true", head + "rawLicenseString: 's3cr3t'", nil, true},
		{"empty payload passes the schema", head + "rawLicenseString: ''", nil, true},
		{"no payload", head + "enabled: true", []string{"rawLicenseString"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, refused, notes, err := decodeManifests("x.yaml", strings.NewReader(c.doc), true)
			if err != nil || len(objs) != 1 {
				t.Fatalf("objects %d, err %v", len(objs), err)
			}
			var fields []string
			for _, r := range refused {
				fields = append(fields, r.Field)
			}
			if strings.Join(fields, " ") != strings.Join(c.fields, " ") {
				t.Errorf("refused fields %q, want %q (%v)", fields, c.fields, refused)
			}
			if strings.Contains(fmt.Sprint(refused, notes), "s3cr3t") {
				t.Errorf("the payload is printed: %v %v", refused, notes)
			}
			if l := objs[0].(*configurationv1alpha1.KongLicense); l.IsEnabled() != c.enabled {
				t.Errorf("enabled %v, want %v", l.IsEnabled(), c.enabled)
			}
		})
	}
}

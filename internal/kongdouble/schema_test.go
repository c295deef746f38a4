package kongdouble

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// The translator builds entities from go-kong's types; every JSON field of those types must be
// known to the double, except the few go-kong carries for Kong Enterprise or removed versions
// (open-source Kong 3.x rejects them as unknown fields, and so does the double).
func TestSchemaCoversGoKongFields(t *testing.T) {
	notInOSS := map[string]bool{
		"services.tls_sans": true, "plugins.run_on": true, "plugins.condition": true,
		"plugins.partials": true, "plugins.model": true, "targets.failover": true,
	}
	for typ, v := range map[string]any{
		"services": kong.Service{}, "routes": kong.Route{}, "plugins": kong.Plugin{}, "upstreams": kong.Upstream{},
		"targets": kong.Target{}, "ca_certificates": kong.CACertificate{}, "consumers": kong.Consumer{},
		"certificates": document.Certificate{}, "snis": document.SNI{}, "vaults": kong.Vault{},
	} {
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			name := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
			if name == "" || name == "-" || notInOSS[typ+"."+name] {
				continue
			}
			if !schemas[typ].fields[name] && schemas[typ].children[name] == "" {
				t.Errorf("%s.%s (from %s) is unknown to the double", typ, name, rt.Name())
			}
		}
	}
}

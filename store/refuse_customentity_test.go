package store

import (
	"strings"
	"testing"
)

// KongCustomEntity's CRD schema: spec with type, fields (null dropped, so refused as absent) and
// controllerName required, parentRef.name required, parentRef.kind an enum, the known Kong
// entity types refused; any JSON value is valid fields.
func TestCheckCustomEntityRules(t *testing.T) {
	const head = "apiVersion: configuration.konghq.com/v1alpha1\nkind: KongCustomEntity\nmetadata: {name: ce, namespace: ns}\n"
	cases := []struct {
		name, doc string
		fields    []string
		reason    string
	}{
		{"valid", head + "spec: {type: degraphql_routes, controllerName: kong, fields: {uri: /a, query: q}, " +
			"parentRef: {group: configuration.konghq.com, kind: KongPlugin, name: p}}", nil, ""},
		{"fields any value, empty controllerName", head + "spec: {type: x, controllerName: '', fields: [1, 2]}", nil, ""},
		{"no spec", head, []string{"spec"}, "required"},
		{"required fields", head + "spec: {fields: null}", []string{"spec.controllerName", "spec.fields", "spec.type"}, "required"},
		{"parentRef name and kind", head + "spec: {type: x, controllerName: kong, fields: {}, parentRef: {kind: Service}}",
			[]string{"spec.parentRef.kind", "spec.parentRef.name"}, `unsupported value "Service"`},
		{"known type", head + "spec: {type: services, controllerName: kong, fields: {}}",
			[]string{"spec"}, "The type field cannot be one of the known Kong entity types"},
		{"name", strings.Replace(head, "name: ce", "name: CE_1", 1) + "spec: {type: x, controllerName: kong, fields: {}}",
			[]string{"metadata.name"}, "RFC 1123"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, refused, _, err := decodeManifests("x.yaml", strings.NewReader(c.doc), true)
			if err != nil || len(objs) != 1 {
				t.Fatalf("objects %d, err %v", len(objs), err)
			}
			var fields []string
			for _, r := range refused {
				if len(fields) == 0 || fields[len(fields)-1] != r.Field {
					fields = append(fields, r.Field)
				}
			}
			if strings.Join(fields, " ") != strings.Join(c.fields, " ") {
				t.Errorf("refused fields %q, want %q (%v)", fields, c.fields, refused)
			}
			if len(refused) > 0 && !strings.Contains(refused[0].Reason, c.reason) {
				t.Errorf("first reason %q (want %q in it)", refused[0].Reason, c.reason)
			}
		})
	}
}

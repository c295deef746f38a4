package store

import (
	"strings"
	"testing"
)

// KongVault's CRD schema: backend and prefix required, tags bounded, controlPlaneRef.type an
// enum; a valid vault (and a cluster-scoped one given a namespace) is refused for nothing.
func TestCheckVaultRules(t *testing.T) {
	const head = "apiVersion: configuration.konghq.com/v1alpha1\nkind: KongVault\nmetadata: {name: v}\n"
	cases := []struct {
		name, doc string
		fields    []string
		reason    string
	}{
		{"valid", head + "spec: {backend: env, prefix: my-env, config: {prefix: x_}}", nil, ""},
		{"namespace dropped", strings.Replace(head, "{name: v}", "{name: v, namespace: ns}", 1) + "spec: {backend: env, prefix: ab}", nil, ""},
		{"backend and prefix empty", head + "spec: {backend: '', prefix: ''}", []string{"spec.backend", "spec.prefix"}, "required"},
		{"no spec", head, []string{"spec.backend", "spec.prefix"}, "required"},
		{"tags", head + "spec: {backend: env, prefix: ab, tags: ['', " + strings.Repeat("t,", 20) + "]}",
			[]string{"spec.tags", "spec.tags[0]"}, "too many"},
		{"controlPlaneRef type", head + "spec: {backend: env, prefix: ab, controlPlaneRef: {type: other}}",
			[]string{"spec.controlPlaneRef.type"}, `unsupported value "other"`},
		{"name", strings.Replace(head, "{name: v}", "{name: V_1}", 1) + "spec: {backend: env, prefix: ab}", []string{"metadata.name"}, "RFC 1123"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, refused, _, err := decodeManifests("x.yaml", strings.NewReader(c.doc), true)
			if err != nil || len(objs) != 1 {
				t.Fatalf("objects %d, err %v", len(objs), err)
			}
			if objs[0].GetNamespace() != "" {
				t.Errorf("namespace %q kept on a cluster-scoped kind", objs[0].GetNamespace())
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

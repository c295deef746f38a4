package store

import (
	"strings"
	"testing"
)

// TestFacadeRefusals: a KongServiceFacade lacking backendRef's name or port is refused, as the
// API server refuses it; one with both is not, whatever their values.
func TestFacadeRefusals(t *testing.T) {
	for in, want := range map[string]string{
		`{backendRef: {name: svc, port: 80}}`: "",
		`{backendRef: {name: "", port: 0}}`:   "",
		`{backendRef: {port: 80}}`:            "spec.backendRef.name",
		`{backendRef: {name: svc}}`:           "spec.backendRef.port",
		`{}`:                                  "spec.backendRef",
		`{backendRef: {}}`:                    "spec.backendRef.name spec.backendRef.port",
	} {
		objs, _, err := DecodeManifests("t", strings.NewReader("apiVersion: incubator.ingress-controller.konghq.com/v1alpha1\n"+
			"kind: KongServiceFacade\nmetadata: {name: f, namespace: default}\nspec: "+in+"\n"))
		if err != nil || len(objs) != 1 {
			t.Fatalf("%s: decode: %v", in, err)
		}
		var got []string
		refs, _ := check(objs[0], &metaCache{})
		for _, r := range refs {
			got = append(got, r.Field)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: refused %v, want %q", in, got, want)
		}
	}
}

package admission

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

const customEntities = "configuration.konghq.com/v1alpha1/kongcustomentities"

// customEntity is a KongCustomEntity's JSON as the API server hands it to the webhook.
func customEntity(name, class, typ, fields, parent string) string {
	p := ""
	if parent != "" {
		p = `,"parentRef":{"group":"configuration.konghq.com","kind":"KongPlugin","name":"` + parent + `"}`
	}
	return `{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"KongCustomEntity","metadata":{"name":"` + name +
		`","namespace":"default"},"spec":{"type":"` + typ + `","controllerName":"` + class + `","fields":` + fields + p + `}}`
}

// A KongCustomEntity is judged against Kong's schema of its type, as KIC's webhook judges it:
// refused when the schema cannot be read (a type Kong does not know), when its fields break
// the schema, for a known type; let through with a warning when its plugin does not exist yet;
// let through when of another class, or when the gate is off. The schemas come from the sync
// loop (Validator.EntitySchemas), which is asked for the type under review too.
func TestReviewCustomEntities(t *testing.T) {
	objs, notes, err := store.DecodeManifests("cluster", strings.NewReader(cluster+`---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: degraphql, namespace: default}
plugin: degraphql
`))
	if err != nil || len(notes) > 0 {
		t.Fatalf("cluster: %v %v", err, notes)
	}
	st, _ := store.Load(objs)
	var asked [][]string
	v := New(st, translator.DefaultOptions(), func() bool { return true }, nil)
	v.EntitySchemas = func(_ context.Context, types []string) translator.EntitySchemas {
		asked = append(asked, types)
		out := translator.EntitySchemas{}
		for _, typ := range types {
			if s, ok := translator.BundledEntitySchemas()[typ]; ok {
				out[typ] = s
			} else {
				out[typ] = translator.EntitySchema{Err: "Kong has no entity type " + typ}
			}
		}
		return out
	}
	h := Handler(v, logr.Discard(), nil)
	ok := `{"uri":"/a","query":"q"}`
	for _, tc := range []struct {
		name, object string
		allowed      bool
		message      string
		warning      string
	}{
		{"valid, attached", customEntity("ce", "kong", "degraphql_routes", ok, "degraphql"), true, "", ""},
		{"a type Kong does not know", customEntity("ce", "kong", "nothing_known", ok, ""), false,
			"KongCustomEntity default/ce: spec.type: failed to fetch entity schema for entity type nothing_known: Kong has no entity type nothing_known", ""},
		{"fields breaking the schema", customEntity("ce", "kong", "degraphql_routes", `{"uri":1,"query":"q"}`, ""), false,
			"spec.fields.uri: expected a string", ""},
		{"a known type", customEntity("ce", "kong", "services", `{}`, ""), false, "cannot use known entity type services", ""},
		{"the plugin not there yet", customEntity("ce", "kong", "degraphql_routes", ok, "later"), true, "",
			`KongPlugin "later" does not exist`},
		{"another class", customEntity("ce", "other", "nothing_known", `[1]`, ""), true, "", ""},
	} {
		code, resp, body := review(t, h, admissionv1.Create, customEntities, tc.object, "")
		if code != http.StatusOK {
			t.Errorf("%s: HTTP %d %s", tc.name, code, body)
			continue
		}
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		if resp.Allowed != tc.allowed || !strings.Contains(msg, tc.message) ||
			!strings.Contains(strings.Join(resp.Warnings, "\n"), tc.warning) {
			t.Errorf("%s: allowed %v (want %v), message %q (want %q in it), warnings %v", tc.name, resp.Allowed,
				tc.allowed, msg, tc.message, resp.Warnings)
		}
	}
	if len(asked) == 0 || !strings.Contains(strings.Join(asked[1], ","), "nothing_known") {
		t.Errorf("the schemas asked for: %v", asked)
	}
	v.NotRead = map[store.Kind]string{store.KindKongCustomEntity: "the KongCustomEntity feature gate is off"}
	_, resp, _ := review(t, h, admissionv1.Create, customEntities, customEntity("ce", "kong", "nothing_known", ok, ""), "")
	if !resp.Allowed || !strings.Contains(strings.Join(resp.Warnings, ""), "the KongCustomEntity feature gate is off") {
		t.Errorf("gate off: allowed %v, warnings %v", resp.Allowed, resp.Warnings)
	}
}

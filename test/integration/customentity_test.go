//go:build integration

package integration

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// With Kong's published CRDs installed, a KongCustomEntity following the degraphql KongPlugin
// of an Ingress reaches a Kong Enterprise (the double, whose degraphql plugin brings
// degraphql_routes) as a degraphql route with the id of the Ingress's Kong service; kongsync
// read Kong's schema of the type once, from Kong; the entity is Programmed. One whose fields
// break the schema is Invalid and reaches nothing; the API server itself refuses a known type.
// An edit reaches Kong. With the KongCustomEntity gate off, another kongsync reads none.
func TestKongCustomEntityFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	a := app{ns: ns, name: "graph", host: "graph.example.com"}
	ing := a.ingress()
	ing.Annotations = map[string]string{"konghq.com/plugins": "degraphql"}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	plugins := kongResource("v1", "kongplugins", ns)
	if _, err := plugins.Create(ctx, kongObject("v1", "KongPlugin", ns, "degraphql", "",
		map[string]any{"plugin": "degraphql", "config": map[string]any{"graphql_server_path": "/v1/graphql"}}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Kong objects outlive the test (no namespace controller runs here), and later tests'
	// kongsyncs read every namespace: custom entities and the plugin of another Kong's edition
	// would be theirs too.
	t.Cleanup(func() { _ = plugins.Delete(ctxT(t), "degraphql", metav1.DeleteOptions{}) })
	entities := kongResource("v1alpha1", "kongcustomentities", ns)
	entity := func(name, typ string, fields map[string]any) error {
		spec := map[string]any{"controllerName": "kong", "type": typ, "fields": fields,
			"parentRef": map[string]any{"group": "configuration.konghq.com", "kind": "KongPlugin", "name": "degraphql"}}
		_, err := entities.Create(ctx, kongObject("v1alpha1", "KongCustomEntity", ns, name, "", map[string]any{"spec": spec}),
			metav1.CreateOptions{})
		if err == nil {
			t.Cleanup(func() { _ = entities.Delete(ctxT(t), name, metav1.DeleteOptions{}) })
		}
		return err
	}
	if err := entity("contacts", "degraphql_routes", map[string]any{"uri": "/contacts", "query": "query{ contacts { name } }"}); err != nil {
		t.Fatal(err)
	}
	if err := entity("broken", "degraphql_routes", map[string]any{"uri": "/broken"}); err != nil {
		t.Fatal(err)
	}
	if err := entity("known", "services", map[string]any{}); err == nil || !strings.Contains(err.Error(),
		"The type field cannot be one of the known Kong entity types") {
		t.Errorf("a known type: %v, want the CRD's refusal", err)
	}
	kong := kongdouble.New(kongdouble.Options{Version: "3.9.1.0-enterprise-edition"})
	t.Cleanup(kong.Close)
	startKongsync(t, "custom", ns, []*kongdouble.Server{kong}, statusConfig)
	waitDouble(t, kong, "the degraphql route in Kong", func() bool {
		return strings.Contains(kong.Config(), `"degraphql_routes":[{"query":"query{ contacts { name } }","service":{"id":"`)
	})
	if strings.Contains(kong.Config(), "/broken") {
		t.Errorf("the entity breaking the schema reached Kong: %s", kong.Config())
	}
	waitProgrammed(t, entities, "contacts", "True/Programmed")
	waitProgrammed(t, entities, "broken", "False/Invalid")
	reads := 0
	for _, r := range kong.Requests() {
		if r.Method == http.MethodGet && r.Path == "/schemas/degraphql_routes" {
			reads++
		}
	}
	if reads != 1 {
		t.Errorf("Kong's schema of degraphql_routes read %d times, want once", reads)
	}
	patch := []byte(`{"spec":{"fields":{"uri":"/people","query":"query{ people { name } }"}}}`)
	if _, err := entities.Patch(ctx, "contacts", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the edited route in Kong", func() bool {
		c := kong.Config()
		return strings.Contains(c, `"uri":"/people"`) && !strings.Contains(c, `"uri":"/contacts"`)
	})

	off := kongdouble.New(kongdouble.Options{Version: "3.9.1.0-enterprise-edition"})
	t.Cleanup(off.Close)
	startKongsync(t, "custom-off", ns, []*kongdouble.Server{off}, func(c *runner.Config) { c.DisableKongCustomEntity = true })
	waitDouble(t, off, "the Ingress's route with the gate off", func() bool { return hasHost(off, "graph.example.com") })
	if strings.Contains(off.Config(), "degraphql_routes") {
		t.Errorf("custom entities read with the gate off: %s", off.Config())
	}
}

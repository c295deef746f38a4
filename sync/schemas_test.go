package sync

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blang/semver/v4"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// engineConfig points a loop at a real translator Engine, as the controller does: the Kong
// version, edition and custom entity schemas the loop applies become its options.
func engineConfig(cfg *Config) {
	opts := translator.DefaultOptions()
	eng := translator.NewEngine(opts)
	cfg.Build = eng.Build
	cfg.SetKongVersion = func(v semver.Version) { opts.KongVersion = v; eng.SetOptions(opts) }
	cfg.SetKongEnterprise = func(e bool) { opts.KongEnterprise = e; eng.SetOptions(opts) }
	cfg.SetEntitySchemas = func(s translator.EntitySchemas) { opts.EntitySchemas = s; eng.SetOptions(opts) }
}

// degraphqlObjects are a Service routed by an Ingress and, when attached, the degraphql
// KongPlugin on it and a KongCustomEntity following that plugin (else one naming no plugin).
func degraphqlObjects(attached bool) []store.Object {
	class, pt := "kong", networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "i1", Namespace: "default", ResourceVersion: "1"},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: "s1", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s1", Namespace: "default", ResourceVersion: "1"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	ce := &kva.KongCustomEntity{ObjectMeta: metav1.ObjectMeta{Name: "ce1", Namespace: "default", ResourceVersion: "1"},
		Spec: kva.KongCustomEntitySpec{EntityType: "degraphql_routes", ControllerName: "kong",
			Fields: []byte(`{"uri":"/contacts","query":"query{ contacts { name } }"}`)}}
	if !attached {
		return []store.Object{ing, svc, ce}
	}
	ing.Annotations = map[string]string{"konghq.com/plugins": "degraphql"}
	group, kind := kva.SchemeGroupVersion.Group, "KongPlugin"
	ce.Spec.ParentRef = &kva.ObjectReference{Group: &group, Kind: &kind, Name: "degraphql"}
	plugin := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Name: "degraphql", Namespace: "default", ResourceVersion: "1"},
		PluginFields: configurationv1.PluginFields{PluginName: "degraphql"}}
	return []store.Object{ing, svc, ce, plugin}
}

func (e *env) put(objs ...store.Object) {
	for _, o := range objs {
		if _, err := e.store.Upsert(o); err != nil {
			e.t.Fatal(err)
		}
	}
	e.loop.Notify()
}

// schemaReads counts the GET /schemas/<typ> the doubles answered.
func (e *env) schemaReads(typ string) int {
	n := 0
	for _, k := range e.kongs {
		for _, r := range k.Requests() {
			if r.Method == http.MethodGet && r.Path == "/schemas/"+typ {
				n++
			}
		}
	}
	return n
}

// The loop reads the schema of a custom entity type its store holds once, from one replica,
// posts nothing translated before it has it (the read is slow here: a config without the
// entity would otherwise go first), and then every replica gets the entity with its foreign
// key filled; later builds read it again neither.
func TestCustomEntitySchemaRead(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, kong: kongdouble.Options{Version: "3.9.1.0-enterprise-edition"}, cfg: engineConfig,
		setup: func(ks []*kongdouble.Server) {
			for _, k := range ks {
				k.AddFault(kongdouble.Fault{Method: http.MethodGet, Path: "/schemas/degraphql_routes", Delay: 300 * time.Millisecond})
			}
		}})
	e.put(degraphqlObjects(true)...)
	e.converged(10 * time.Second)
	if n := e.schemaReads("degraphql_routes"); n != 1 {
		t.Errorf("schema read %d times, want once", n)
	}
	for _, k := range e.kongs {
		if !strings.Contains(k.Config(), `"degraphql_routes":[{"query":"query{ contacts { name } }","service":{"id":"`) {
			t.Errorf("%s holds %s", k.URL(), k.Config())
		}
		for _, p := range k.Posts() {
			if !bytes.Contains(p.Body, []byte("degraphql_routes")) {
				t.Errorf("a configuration without the custom entity was posted: %s", p.Body)
			}
		}
	}
	for i := range 3 {
		e.upsert("other", map[string]string{"n": string(rune('a' + i))})
		e.converged(10 * time.Second)
	}
	if n := e.schemaReads("degraphql_routes"); n != 1 {
		t.Errorf("schema read %d times after more builds, want once", n)
	}
}

// A type Kong does not know (its plugin is not enabled: Kong answers 404) skips its
// KongCustomEntities with a problem saying so; the rest is synced. When the replica restarts
// with the plugin enabled, the schema is read again and the entity synced.
func TestCustomEntitySchemaUnknownThenRestart(t *testing.T) {
	e := newEnv(t, envOpts{cfg: engineConfig})
	e.put(degraphqlObjects(false)...)
	e.converged(10 * time.Second)
	k := e.kongs[0]
	if strings.Contains(k.Config(), "degraphql_routes") || !strings.Contains(k.Config(), `"services":[`) {
		t.Fatalf("Kong holds %s", k.Config())
	}
	e.wait("the problem on the KongCustomEntity", 5*time.Second, func() bool {
		probs, _, _ := e.rep.snapshot()
		for _, p := range lastOf(probs) {
			if p.Object.Name == "ce1" && strings.Contains(p.String(), "Kong has no entity type degraphql_routes "+
				"(GET /schemas/degraphql_routes: HTTP 404: No entity named 'degraphql_routes')") {
				return true
			}
		}
		return false
	})
	k.SetPlugins(append(append([]string(nil), kongdouble.BundledPlugins...), "degraphql"))
	k.Restart()
	e.wait("the custom entity synced after the restart", 10*time.Second, func() bool {
		return strings.Contains(k.Config(), `"degraphql_routes":[{"query":"query{ contacts { name } }","uri":"/contacts"}]`)
	})
	if n := e.schemaReads("degraphql_routes"); n != 2 {
		t.Errorf("schema read %d times, want twice (at start, after the restart)", n)
	}
}

func lastOf[T any](l [][]T) []T {
	if len(l) == 0 {
		return nil
	}
	return l[len(l)-1]
}

// The schemas applied: a type never read is pending and read; one read stands (until a
// replica restarts); a failed read keeps the schema read before and is read again once due;
// types past MaxSchemaTypes are not read; types no longer held are forgotten.
func TestSchemaBookPlan(t *testing.T) {
	var b schemaBook
	now := time.Now()
	cur, want, pending := b.plan([]string{"a", "b"}, now)
	if !pending || strings.Join(want, ",") != "a,b" || !cur["a"].Pending {
		t.Fatalf("first plan: %v %v %v", cur, want, pending)
	}
	good := translator.EntitySchema{Fields: []translator.SchemaField{{Name: "x", Type: "string"}}}
	b.record(map[string]schemaEntry{"a": {schema: good}, "b": {schema: translator.EntitySchema{Err: "no"}, retryAt: now.Add(time.Minute)}})
	if cur, want, pending = b.plan([]string{"a", "b"}, now); pending || len(want) != 0 || cur["b"].Err != "no" {
		t.Errorf("after the read: %v %v %v", cur, want, pending)
	}
	if _, want, _ = b.plan([]string{"a", "b"}, now.Add(2*time.Minute)); strings.Join(want, ",") != "b" {
		t.Errorf("failed read due: want %v", want)
	}
	b.record(map[string]schemaEntry{"a": {schema: translator.EntitySchema{Err: "down"}, retryAt: now.Add(time.Minute)}})
	if cur, _, _ = b.plan([]string{"a"}, now); len(cur["a"].Fields) != 1 || cur["a"].Err != "" {
		t.Errorf("a failed read replaced a schema: %+v", cur["a"])
	}
	if len(b.entries) != 1 {
		t.Errorf("entries of types no longer held kept: %v", b.entries)
	}
	b.stale = true
	if _, want, _ = b.plan([]string{"a"}, now); strings.Join(want, ",") != "a" {
		t.Errorf("stale: want %v", want)
	}
	many := make([]string, MaxSchemaTypes+2)
	for i := range many {
		many[i] = "t" + strings.Repeat("x", i)
	}
	cur, want, _ = b.plan(many, now)
	if len(want) != MaxSchemaTypes || !strings.Contains(cur[many[MaxSchemaTypes]].Err, "more than 64") {
		t.Errorf("past the bound: %d read, %+v", len(want), cur[many[MaxSchemaTypes]])
	}
	if cur, want, _ = b.plan(nil, now); cur != nil || want != nil || len(b.entries) != 0 {
		t.Errorf("no types: %v %v %v", cur, want, b.entries)
	}
}

// A custom entity Kong rejects (a method its schema refuses, which translation does not check)
// is left out with its KongCustomEntity, found by the entity's content: not the Service whose
// Kong service it is attached to, which stays with its route and plugin.
func TestCustomEntityRejectedByKong(t *testing.T) {
	e := newEnv(t, envOpts{kong: kongdouble.Options{Version: "3.9.1.0-enterprise-edition"}, cfg: engineConfig})
	objs := degraphqlObjects(true)
	ce := objs[2].(*kva.KongCustomEntity)
	ce.Spec.Fields = []byte(`{"uri":"/contacts","query":"q","methods":["GOT"]}`)
	e.put(objs...)
	e.wait("the KongCustomEntity left out", 10*time.Second, func() bool {
		ex := e.loop.Excluded()
		return len(ex) == 1 && ex[0] == store.Ref{Kind: store.KindKongCustomEntity, Namespace: "default", Name: "ce1"}
	})
	e.converged(10 * time.Second)
	cfg := e.kongs[0].Config()
	if strings.Contains(cfg, "degraphql_routes") || !strings.Contains(cfg, `"name":"default.s1.80"`) ||
		!strings.Contains(cfg, `"name":"degraphql"`) {
		t.Errorf("Kong holds %s", cfg)
	}
}

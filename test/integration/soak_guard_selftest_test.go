//go:build integration

package integration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
)

// The isolation check (isolationDiffs) on small hand-built worlds: quiet when the hostile
// namespace only harms itself, loud when it takes something of another namespace's.

// selfIsolationWorld is a victim (namespace a: an app, a consumer with a username and a key) and
// a hostile namespace (evil: its own app, a consumer reusing the victim's username created at
// evilCreated, and a credential reusing its key).
func selfIsolationWorld(evilCreated string) string {
	app := func(ns, host string) string {
		return strings.NewReplacer("NS", ns, "HOST", host).Replace(`
apiVersion: v1
kind: Service
metadata: {name: app, namespace: NS}
spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: app-1, namespace: NS, labels: {kubernetes.io/service-name: app}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.1], conditions: {ready: true}}]
ports: [{name: http, port: 8080, protocol: TCP}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: NS}
spec:
  ingressClassName: kong
  rules: [{host: HOST, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: app, port: {number: 80}}}}]}}]
---
`)
	}
	return `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
spec: {controller: ingress-controllers.konghq.com/kong}
---
` + app("a", "victim.example.com") + app("evil", "evil.example.com") + `
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: victim, namespace: a, creationTimestamp: "2024-01-01T00:00:00Z", annotations: {kubernetes.io/ingress.class: kong}}
username: victim-user
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: cons, namespace: evil, creationTimestamp: "` + evilCreated + `", annotations: {kubernetes.io/ingress.class: kong}}
username: victim-user
`
}

func selfIsolationDiffs(t *testing.T, manifests string) (diffs []string, evilEntities int) {
	t.Helper()
	objs, _, err := store.DecodeManifests("self", strings.NewReader(manifests))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := store.NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.TranslatorOptions(runner.Defaults())
	with, _, err := coldBuild(snap, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	without, _, err := coldBuild(snap, namespaceRefs(snap, "evil"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(namespaceRefs(snap, "evil")) != 5 { // the Namespace, Service, EndpointSlice, Ingress, KongConsumer
		t.Fatalf("namespaceRefs: %v", namespaceRefs(snap, "evil"))
	}
	restricted := withoutNamespace(with.doc, "evil")
	return isolationDiffs(with, without, "evil"), len(flatEntities(with.doc)) - len(flatEntities(restricted))
}

func TestSoakSelfIsolationHolds(t *testing.T) {
	diffs, evil := selfIsolationDiffs(t, selfIsolationWorld("2024-02-01T00:00:00Z"))
	t.Logf("%d entities of the hostile namespace left out", evil)
	if len(diffs) > 0 {
		t.Errorf("a younger hostile consumer changed the victim's translation: %v", diffs)
	}
	if evil < 3 { // its service, upstream and route at least: the restriction did remove them
		t.Errorf("the build with the hostile namespace has %d entities of it", evil)
	}
}

// An older hostile consumer keeps the username (Kong's global names: the oldest holder wins),
// so the victim's consumer is skipped: the check must say so.
func TestSoakSelfIsolationCatchesTakeover(t *testing.T) {
	diffs, _ := selfIsolationDiffs(t, selfIsolationWorld("2023-12-01T00:00:00Z"))
	t.Logf("%d differences: %v", len(diffs), diffs)
	var config, problem bool
	for _, d := range diffs {
		config = config || (strings.HasPrefix(d, "config: ") && strings.Contains(d, "victim-user") && strings.HasSuffix(d, "only without the hostile tenant"))
		problem = problem || strings.HasPrefix(d, "problem only with the hostile tenant: KongConsumer a/victim")
	}
	if !config || !problem {
		t.Errorf("the victim's consumer lost its username and the check said: %v", diffs)
	}
}

func TestSoakSelfWithoutNamespace(t *testing.T) {
	tags := func(ns string) []any { return []any{"k8s-name:x", "k8s-namespace:" + ns} }
	doc := map[string]any{"_format_version": "3.0",
		"services": []any{
			map[string]any{"name": "a.app.80", "tags": tags("a"), "routes": []any{
				map[string]any{"name": "a.web", "tags": tags("a")},
				map[string]any{"name": "evil.web", "tags": tags("evil")}}},
			map[string]any{"name": "evil.app.80", "tags": tags("evil"), "routes": []any{map[string]any{"name": "untagged"}}},
		},
		"plugins": []any{
			map[string]any{"name": "p", "tags": tags("a"), "config": map[string]any{"l": []any{map[string]any{"tags": tags("evil")}}}},
			map[string]any{"name": "global"},
		},
	}
	want := map[string]any{"_format_version": "3.0",
		"services": []any{map[string]any{"name": "a.app.80", "tags": tags("a"), "routes": []any{
			map[string]any{"name": "a.web", "tags": tags("a")}}}},
		"plugins": []any{
			map[string]any{"name": "p", "tags": tags("a"), "config": map[string]any{"l": []any{map[string]any{"tags": tags("evil")}}}},
			map[string]any{"name": "global"},
		},
	}
	if got := withoutNamespace(doc, "evil"); !reflect.DeepEqual(got, want) {
		t.Errorf("withoutNamespace:\n got %v\nwant %v", got, want)
	}
	if len(doc["services"].([]any)) != 2 || len(doc["services"].([]any)[0].(map[string]any)["routes"].([]any)) != 2 {
		t.Errorf("withoutNamespace changed its input: %v", doc)
	}
}

// flatEntities lists every map with tags in doc's entity lists (not in plugin configs).
func flatEntities(doc map[string]any) []map[string]any {
	var out []map[string]any
	for k, v := range doc {
		l, ok := v.([]any)
		if !ok || k == "config" || k == "tags" {
			continue
		}
		for _, x := range l {
			if e, ok := x.(map[string]any); ok {
				out = append(append(out, e), flatEntities(e)...)
			}
		}
	}
	return out
}

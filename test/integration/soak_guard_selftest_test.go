//go:build integration

package integration

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
)

// The isolation check (isolationDiffs) on small hand-built worlds: quiet when the hostile
// namespace only harms itself, loud when it takes something of another namespace's.

// selfIsolationWorld is a victim (namespace a: an app whose Service trusts a CA certificate, a
// consumer with a username and a key-auth key) and a hostile namespace (evil: its own app, a
// consumer reusing the victim's username, another one whose credential reuses its key, and a
// CA certificate Secret reusing its CA's id), everything hostile created at evilCreated.
func selfIsolationWorld(t *testing.T, evilCreated string) string {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	id := b64("0b7e6b1e-5c1d-4a57-9d43-3f0c2a9e8b11")
	return strings.NewReplacer("EVIL_CREATED", evilCreated, "VICTIM_CA", b64(string(soakCA(t, "victim CA"))),
		"EVIL_CA", b64(string(soakCA(t, "hostile CA"))), "CA_ID", id, "VICTIM_KEY", b64("victim-key")).Replace(`
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
spec: {controller: ingress-controllers.konghq.com/kong}
---
apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: a
  annotations: {konghq.com/protocol: https, konghq.com/tls-verify: "true", konghq.com/ca-certificates-secrets: victim-ca}
spec: {ports: [{name: https, port: 443, targetPort: 8443}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: app-1, namespace: a, labels: {kubernetes.io/service-name: app}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.1], conditions: {ready: true}}]
ports: [{name: https, port: 8443, protocol: TCP}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: a}
spec:
  ingressClassName: kong
  rules: [{host: victim.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: app, port: {number: 443}}}}]}}]
---
apiVersion: v1
kind: Secret
metadata: {name: victim-ca, namespace: a, creationTimestamp: "2024-01-01T00:00:00Z", labels: {konghq.com/ca-cert: "true"}}
data: {id: CA_ID, cert: VICTIM_CA}
---
apiVersion: v1
kind: Secret
metadata: {name: victim-key, namespace: a, labels: {konghq.com/credential: key-auth}}
data: {key: VICTIM_KEY}
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: victim, namespace: a, creationTimestamp: "2024-01-01T00:00:00Z", annotations: {kubernetes.io/ingress.class: kong}}
username: victim-user
credentials: [victim-key]
---
apiVersion: v1
kind: Service
metadata: {name: app, namespace: evil}
spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: evil}
spec:
  ingressClassName: kong
  rules: [{host: evil.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: app, port: {number: 80}}}}]}}]
---
apiVersion: v1
kind: Secret
metadata: {name: ca, namespace: evil, creationTimestamp: "EVIL_CREATED", labels: {konghq.com/ca-cert: "true"}}
data: {id: CA_ID, cert: EVIL_CA}
---
apiVersion: v1
kind: Secret
metadata: {name: cred, namespace: evil, labels: {konghq.com/credential: key-auth}}
data: {key: VICTIM_KEY}
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: cons, namespace: evil, creationTimestamp: "EVIL_CREATED", annotations: {kubernetes.io/ingress.class: kong}}
username: victim-user
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: cons2, namespace: evil, creationTimestamp: "EVIL_CREATED", annotations: {kubernetes.io/ingress.class: kong}}
username: evil-user
credentials: [cred]
`)
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
	if len(namespaceRefs(snap, "evil")) != 7 { // the Namespace, Service, Ingress, two Secrets, two KongConsumers
		t.Fatalf("namespaceRefs: %v", namespaceRefs(snap, "evil"))
	}
	restricted := withoutNamespace(with.doc, "evil")
	return isolationDiffs(with, without, "evil"), len(flatEntities(with.doc)) - len(flatEntities(restricted))
}

func TestSoakSelfIsolationHolds(t *testing.T) {
	diffs, evil := selfIsolationDiffs(t, selfIsolationWorld(t, "2024-02-01T00:00:00Z"))
	t.Logf("%d entities of the hostile namespace left out", evil)
	if len(diffs) > 0 {
		t.Errorf("a younger hostile consumer changed the victim's translation: %v", diffs)
	}
	if evil < 3 { // its service, upstream and route at least: the restriction did remove them
		t.Errorf("the build with the hostile namespace has %d entities of it", evil)
	}
}

// Older hostile objects keep the username, the key and the CA id (Kong's global names: the
// oldest holder wins), so the victim's consumer is skipped and its Service trusts no CA: the
// check must say so.
func TestSoakSelfIsolationCatchesTakeover(t *testing.T) {
	diffs, _ := selfIsolationDiffs(t, selfIsolationWorld(t, "2023-12-01T00:00:00Z"))
	t.Logf("%d differences: %v", len(diffs), diffs)
	var config, problem, ca bool
	for _, d := range diffs {
		config = config || (strings.HasPrefix(d, "config: ") && strings.Contains(d, "victim-user") && strings.HasSuffix(d, "only without the hostile tenant"))
		problem = problem || strings.HasPrefix(d, "problem only with the hostile tenant: KongConsumer a/victim")
		ca = ca || strings.HasPrefix(d, "config: service a.app.443: ca_certificates")
	}
	if !config || !problem || !ca {
		t.Errorf("the victim's consumer lost its username, its Service its CA, and the check said: %v", diffs)
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

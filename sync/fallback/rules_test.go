package fallback

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// snapOf decodes YAML manifests into a snapshot.
func snapOf(t testing.TB, manifests string) *store.Snapshot {
	t.Helper()
	objs, notes, err := store.DecodeManifests("test.yaml", strings.NewReader(manifests))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		t.Logf("note: %v", n)
	}
	snap, err := store.NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func refStrings(refs []store.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}

// The objects every rule case can name.
const targets = `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: a}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: b}
---
apiVersion: v1
kind: Secret
metadata: {name: sec, namespace: a}
---
apiVersion: v1
kind: Secret
metadata: {name: sec, namespace: b}
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: p, namespace: a}
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1
kind: KongClusterPlugin
metadata: {name: p}
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1
kind: KongClusterPlugin
metadata: {name: cp}
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongUpstreamPolicy
metadata: {name: pol, namespace: a}
---
apiVersion: incubator.ingress-controller.konghq.com/v1alpha1
kind: KongServiceFacade
metadata: {name: fac, namespace: a}
spec: {backendRef: {name: svc, port: 80}}
`

// TestRules checks each kind's rule against KIC v3.5.13's
// (internal/dataplane/fallback/graph_dependencies*.go): what it depends on, and what it does not.
func TestRules(t *testing.T) {
	cases := []struct {
		name, obj string
		subject   store.Ref
		want      []string
	}{{
		name: "Ingress: class, path Services and facades, policy, plugins (namespaced first)",
		obj: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: i
  namespace: a
  annotations: {konghq.com/plugins: " p , cp,missing,,b:p", konghq.com/upstream-policy: pol}
spec:
  ingressClassName: kong
  defaultBackend: {service: {name: other, port: {number: 80}}}
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}
      - {path: /f, pathType: Prefix, backend: {resource: {apiGroup: incubator.ingress-controller.konghq.com, kind: KongServiceFacade, name: fac}}}
      - {path: /g, pathType: Prefix, backend: {resource: {apiGroup: example.com, kind: KongServiceFacade, name: fac}}}
`,
		subject: store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "i"},
		want:    []string{"IngressClass kong", "Service a/svc", "KongServiceFacade a/fac", "KongUpstreamPolicy a/pol", "KongPlugin a/p", "KongClusterPlugin cp"},
	}, {
		name: "Ingress: the class annotation when spec has none; no default backend",
		obj: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i, namespace: b, annotations: {kubernetes.io/ingress.class: kong}}
spec: {defaultBackend: {service: {name: svc, port: {number: 80}}}}
`,
		subject: store.Ref{Kind: store.KindIngress, Namespace: "b", Name: "i"},
		want:    []string{"IngressClass kong"},
	}, {
		name: "Service: plugins (the cluster plugin when no KongPlugin of the name) and policy",
		obj: `
apiVersion: v1
kind: Service
metadata: {name: s2, namespace: b, annotations: {konghq.com/plugins: p, konghq.com/upstream-policy: pol}}
`,
		subject: store.Ref{Kind: store.KindService, Namespace: "b", Name: "s2"},
		want:    []string{"KongClusterPlugin p"},
	}, {
		name: "KongServiceFacade: plugins and policy, not its backend Service",
		obj: `
apiVersion: incubator.ingress-controller.konghq.com/v1alpha1
kind: KongServiceFacade
metadata: {name: f2, namespace: a, annotations: {konghq.com/plugins: p, konghq.com/upstream-policy: pol}}
spec: {backendRef: {name: svc, port: 80}}
`,
		subject: store.Ref{Kind: store.KindKongServiceFacade, Namespace: "a", Name: "f2"},
		want:    []string{"KongPlugin a/p", "KongUpstreamPolicy a/pol"},
	}, {
		name: "HTTPRoute: core Service backends, in the namespace they name; not parents; plugins",
		obj: `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: a, annotations: {konghq.com/plugins: p}}
spec:
  parentRefs: [{name: kong}]
  rules:
  - backendRefs:
    - {name: svc, kind: Service, port: 80}
    - {name: svc, kind: Service, namespace: b, port: 80}
    - {name: svc, group: core, kind: Service, port: 80}
    - {name: svc, port: 80}
    - {name: svc, group: example.com, kind: Service, port: 80}
`,
		subject: store.Ref{Kind: store.KindHTTPRoute, Namespace: "a", Name: "r"},
		want:    []string{"Service a/svc", "Service b/svc", "Service a/svc", "KongPlugin a/p"},
	}, {
		name: "GRPCRoute",
		obj: `
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: r, namespace: b}
spec: {rules: [{backendRefs: [{name: svc, kind: Service, port: 80}]}]}
`,
		subject: store.Ref{Kind: store.KindGRPCRoute, Namespace: "b", Name: "r"},
		want:    []string{"Service b/svc"},
	}, {
		name: "TCPRoute, UDPRoute and TLSRoute read their backendRefs alike",
		obj: `
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: r, namespace: a, annotations: {konghq.com/plugins: cp}}
spec: {rules: [{backendRefs: [{name: svc, kind: Service, port: 80}]}]}
`,
		subject: store.Ref{Kind: store.KindTCPRoute, Namespace: "a", Name: "r"},
		want:    []string{"Service a/svc", "KongClusterPlugin cp"},
	}, {
		name: "UDPRoute",
		obj: `
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: UDPRoute
metadata: {name: r, namespace: a}
spec: {rules: [{backendRefs: [{name: svc, kind: Service, port: 80}]}]}
`,
		subject: store.Ref{Kind: store.KindUDPRoute, Namespace: "a", Name: "r"},
		want:    []string{"Service a/svc"},
	}, {
		name: "TLSRoute",
		obj: `
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: r, namespace: a}
spec: {rules: [{backendRefs: [{name: svc, kind: Service, port: 80}]}]}
`,
		subject: store.Ref{Kind: store.KindTLSRoute, Namespace: "a", Name: "r"},
		want:    []string{"Service a/svc"},
	}, {
		name: "KongPlugin: configFrom and configPatches Secrets, in its own namespace",
		obj: `
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: p2, namespace: a}
plugin: key-auth
configFrom: {secretKeyRef: {name: sec, key: k}}
configPatches: [{path: /x, valueFrom: {secretKeyRef: {name: sec, key: k}}}, {path: /y, valueFrom: {secretKeyRef: {name: gone, key: k}}}]
`,
		subject: store.Ref{Kind: store.KindKongPlugin, Namespace: "a", Name: "p2"},
		want:    []string{"Secret a/sec", "Secret a/sec"},
	}, {
		name: "KongClusterPlugin: Secrets in the namespaces they name",
		obj: `
apiVersion: configuration.konghq.com/v1
kind: KongClusterPlugin
metadata: {name: cp2}
plugin: key-auth
configFrom: {secretKeyRef: {name: sec, namespace: b, key: k}}
configPatches: [{path: /x, valueFrom: {secretKeyRef: {name: sec, namespace: a, key: k}}}]
`,
		subject: store.Ref{Kind: store.KindKongClusterPlugin, Name: "cp2"},
		want:    []string{"Secret b/sec", "Secret a/sec"},
	}, {
		name: "KongConsumer: plugins and credentials; not its consumer groups",
		obj: `
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: c, namespace: a, annotations: {konghq.com/plugins: p}}
username: c
credentials: [sec, nope]
consumerGroups: [g]
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongConsumerGroup
metadata: {name: g, namespace: a}
`,
		subject: store.Ref{Kind: store.KindKongConsumer, Namespace: "a", Name: "c"},
		want:    []string{"KongPlugin a/p", "Secret a/sec"},
	}, {
		name: "KongConsumerGroup: plugins",
		obj: `
apiVersion: configuration.konghq.com/v1beta1
kind: KongConsumerGroup
metadata: {name: g, namespace: a, annotations: {konghq.com/plugins: p}}
`,
		subject: store.Ref{Kind: store.KindKongConsumerGroup, Namespace: "a", Name: "g"},
		want:    []string{"KongPlugin a/p"},
	}, {
		name: "TCPIngress: plugins and rules' Services",
		obj: `
apiVersion: configuration.konghq.com/v1beta1
kind: TCPIngress
metadata: {name: t, namespace: a, annotations: {konghq.com/plugins: p}}
spec: {rules: [{port: 9000, backend: {serviceName: svc, servicePort: 80}}]}
`,
		subject: store.Ref{Kind: store.KindTCPIngress, Namespace: "a", Name: "t"},
		want:    []string{"KongPlugin a/p", "Service a/svc"},
	}, {
		name: "UDPIngress",
		obj: `
apiVersion: configuration.konghq.com/v1beta1
kind: UDPIngress
metadata: {name: u, namespace: b}
spec: {rules: [{port: 9000, backend: {serviceName: svc, servicePort: 80}}]}
`,
		subject: store.Ref{Kind: store.KindUDPIngress, Namespace: "b", Name: "u"},
		want:    []string{"Service b/svc"},
	}, {
		name: "kinds without dependencies: KongUpstreamPolicy, Secret, IngressClass, Gateway",
		obj: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: a, annotations: {konghq.com/plugins: p}}
spec: {gatewayClassName: kong, listeners: [{name: http, port: 80, protocol: HTTP}]}
`,
		subject: store.Ref{Kind: store.KindGateway, Namespace: "a", Name: "gw"},
		want:    nil,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snap := snapOf(t, targets+"---"+c.obj)
			obj, ok := snap.Get(c.subject)
			if !ok {
				t.Fatalf("%s not decoded", c.subject)
			}
			if got := refStrings(Dependencies(snap, obj)); !slices.Equal(got, c.want) {
				t.Errorf("dependencies\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// KongCustomEntity's rule reads spec.parentRef through the object's JSON, so it holds for
// whatever Go type the store gives the kind.
func TestRuleKongCustomEntity(t *testing.T) {
	snap := snapOf(t, targets)
	ce := func(ns string, parent map[string]any) store.Object {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "configuration.konghq.com/v1alpha1", "kind": "KongCustomEntity",
			"metadata": map[string]any{"name": "ce", "namespace": ns},
			"spec":     map[string]any{"type": "degraphql_routes", "controllerName": "kong"},
		}}
		if parent != nil {
			u.Object["spec"].(map[string]any)["parentRef"] = parent
		}
		return u
	}
	grp := "configuration.konghq.com"
	cases := []struct {
		name string
		obj  store.Object
		want []string
	}{
		{"KongPlugin in its namespace", ce("a", map[string]any{"group": grp, "kind": "KongPlugin", "name": "p"}), []string{"KongPlugin a/p"}},
		{"KongPlugin, its own namespace named", ce("a", map[string]any{"group": grp, "kind": "KongPlugin", "name": "p", "namespace": "a"}), []string{"KongPlugin a/p"}},
		{"KongPlugin in another namespace: none (KIC)", ce("b", map[string]any{"group": grp, "kind": "KongPlugin", "name": "p", "namespace": "a"}), nil},
		{"KongClusterPlugin", ce("b", map[string]any{"group": grp, "kind": "KongClusterPlugin", "name": "cp"}), []string{"KongClusterPlugin cp"}},
		{"no group: none", ce("a", map[string]any{"kind": "KongPlugin", "name": "p"}), nil},
		{"another kind: none", ce("a", map[string]any{"group": grp, "kind": "KongConsumer", "name": "p"}), nil},
		{"no parentRef", ce("a", nil), nil},
	}
	kind, group := "KongPlugin", grp
	typed := &configurationv1alpha1.KongCustomEntity{ObjectMeta: metav1.ObjectMeta{Name: "ce", Namespace: "a"},
		Spec: configurationv1alpha1.KongCustomEntitySpec{EntityType: "degraphql_routes", ControllerName: "kong",
			ParentRef: &configurationv1alpha1.ObjectReference{Group: &group, Kind: &kind, Name: "p"}}}
	cases = append(cases, struct {
		name string
		obj  store.Object
		want []string
	}{"the store's typed object", typed, []string{"KongPlugin a/p"}})
	for _, c := range cases {
		if got := refStrings(Dependencies(snap, c.obj)); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// Every kind the store holds has a rule (nil for none): a new kind must say what it depends on,
// as KIC's ResolveDependencies refuses an unknown type.
func TestEveryKindHasARule(t *testing.T) {
	for _, k := range store.Kinds {
		if _, ok := rules[k]; !ok {
			t.Errorf("kind %s has no entry in rules", k)
		}
	}
}

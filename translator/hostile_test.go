package translator

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kongsync/kongsync/store"
)

// Worlds a hostile tenant can make within the API server's own limits (256 KiB of annotations
// per object, 1.5 MiB per object, any number of objects in its namespace), each beside a good
// Ingress default/good. TestHostileScale translates each at full size and checks the outcome
// and that it takes well under the bound; the benchmarks in bench_hostile_test.go time them.
// Each world is made as manifests and read as `kongsync dump` reads them.

// Limits the API server applies to one object.
const (
	annotationLimit = 256 << 10 // apimachinery's TotalAnnotationSizeLimitB
	objectLimit     = 3 << 19   // etcd's default request limit, 1.5 MiB
)

// hostileWorld is one world and what its translation must show.
type hostileWorld struct {
	name  string
	build func(tb testing.TB) []store.Object
	check func(tb testing.TB, res Result)
	opts  func(*Options) // changes DefaultOptions for the world, if set
}

func hostileWorlds() []hostileWorld {
	return []hostileWorld{
		{"host-aliases-256KiB", func(tb testing.TB) []store.Object { return hostAliasWorld(tb, 1) }, checkAliases, nil},
		{"ingress-1.5MiB-hosts", func(tb testing.TB) []store.Object { return bigIngressWorld(tb, false) }, checkGoodOnly(1), nil},
		{"ingress-1.5MiB-paths-and-aliases", func(tb testing.TB) []store.Object { return bigIngressWorld(tb, true) }, checkBudget, nil},
		{"httproute-crd-maxima", func(tb testing.TB) []store.Object { return httpRouteMaxWorld(tb, false) }, checkGoodOnly(1), nil},
		{"httproute-crd-maxima-host-aliases-256KiB", func(tb testing.TB) []store.Object { return httpRouteMaxWorld(tb, true) }, checkGoodOnly(1), nil},
		{"consumers-10k-one-key", func(tb testing.TB) []store.Object { return consumerKeyWorld(tb, 10000, false) }, checkVictimConsumer, nil},
		{"consumers-10k-one-shared-secret", func(tb testing.TB) []store.Object { return consumerKeyWorld(tb, 10000, true) }, checkVictimConsumer, nil},
		{"ingresses-10k-one-host-path", func(tb testing.TB) []store.Object { return samePathWorld(tb, 10000) }, checkVictimRoute, nil},
		{"secrets-10k-one-ca-id", func(tb testing.TB) []store.Object { return caIDWorld(tb, 10000) }, checkVictimCA, nil},
		{"custom-entities-5k-attachments", func(tb testing.TB) []store.Object { return customEntityWorld(tb, 5000) }, checkCustomEntities,
			func(o *Options) { o.EntitySchemas = BundledEntitySchemas() }},
	}
}

// hostileBound is how long any world may take to translate cold; they take well under a
// second on an idle machine (docs/benchmarks.md), so this holds on a loaded one too.
const hostileBound = 10 * time.Second

func TestHostileScale(t *testing.T) {
	for _, w := range hostileWorlds() {
		t.Run(w.name, func(t *testing.T) {
			objs := w.build(t)
			snap, err := store.NewSnapshot(objs...)
			if err != nil {
				t.Fatal(err)
			}
			opts := DefaultOptions()
			if w.opts != nil {
				w.opts(&opts)
			}
			start := time.Now()
			res := coldResult(snap, opts)
			took := time.Since(start)
			t.Logf("%d objects, %s, %d problems", len(objs), took, len(res.Problems))
			if took > hostileBound {
				t.Errorf("translation took %s, more than %s", took, hostileBound)
			}
			if !hasRoute(res, "default.good.good.good.example.com.80") {
				t.Errorf("the good Ingress's route is missing")
			}
			for _, p := range res.Problems {
				if len(p.Reason) > maxReason+64 {
					t.Errorf("a problem of %d bytes: %.200s", len(p.Reason), p)
				}
			}
			w.check(t, res)
		})
	}
}

// manifests decodes YAML documents as `kongsync dump` does, with the good Ingress added.
func manifests(tb testing.TB, docs *bytes.Buffer) []store.Object {
	tb.Helper()
	docs.WriteString(goodIngressYAML)
	objs, notes, err := store.DecodeManifests("hostile.yaml", docs)
	if err != nil {
		tb.Fatal(err)
	}
	for _, n := range notes {
		if n.Err {
			tb.Fatalf("decoding the world: %s", n)
		}
	}
	return objs
}

const goodIngressYAML = `
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
spec: {controller: ingress-controllers.konghq.com/kong}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: good, namespace: default}
spec:
  ingressClassName: kong
  rules:
  - host: good.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: good, port: {number: 80}}}}]}
---
apiVersion: v1
kind: Service
metadata: {name: good, namespace: default}
spec: {ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: good-1, namespace: default, labels: {kubernetes.io/service-name: good}}
addressType: IPv4
ports: [{port: 8080}]
endpoints: [{addresses: [10.0.0.1]}]
`

// serviceYAML is a Service with one endpoint.
func serviceYAML(b *bytes.Buffer, ns, name string) {
	fmt.Fprintf(b, `---
apiVersion: v1
kind: Service
metadata: {name: %[2]s, namespace: %[1]s}
spec: {ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: %[2]s-1, namespace: %[1]s, labels: {kubernetes.io/service-name: %[2]s}}
addressType: IPv4
ports: [{port: 8080}]
endpoints: [{addresses: [10.1.0.1]}]
`, ns, name)
}

// aliasList is a konghq.com/host-aliases value of distinct short aliases, as long as fits in
// size bytes.
func aliasList(size int) (string, int) {
	var b strings.Builder
	n := 0
	for {
		a := "a" + strconv.FormatInt(int64(n), 36) + ".x"
		if b.Len()+len(a)+1 > size {
			return b.String(), n
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a)
		n++
	}
}

// hostAliasWorld is an Ingress of rules rules whose host-aliases fill the annotation limit.
func hostAliasWorld(tb testing.TB, rules int) []store.Object {
	aliases, _ := aliasList(annotationLimit - 1024)
	var b bytes.Buffer
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: aliases\n  namespace: team-b\n"+
		"  annotations:\n    konghq.com/host-aliases: %q\nspec:\n  ingressClassName: kong\n  rules:\n", aliases)
	for i := range rules {
		fmt.Fprintf(&b, "  - host: h%d.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}\n", i)
	}
	serviceYAML(&b, "team-b", "web")
	return manifests(tb, &b)
}

func checkAliases(tb testing.TB, res Result) {
	_, n := aliasList(annotationLimit - 1024)
	for _, s := range res.Document.Services {
		for _, r := range s.Routes {
			if *r.Name == "team-b.aliases.web.h0.example.com.80" {
				if len(r.Hosts) != n+1 {
					tb.Errorf("route has %d hosts, want the host and %d aliases", len(r.Hosts), n)
				}
				return
			}
		}
	}
	tb.Errorf("the route with the aliases is missing")
}

// bigIngressWorld is an Ingress of about 1.5 MiB: one rule per host (as many routes as fit),
// or, with aliases, one host with as many paths as fit and 256 KiB of host aliases.
func bigIngressWorld(tb testing.TB, pathsAndAliases bool) []store.Object {
	var b bytes.Buffer
	b.WriteString("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: big\n  namespace: team-b\n")
	if pathsAndAliases {
		aliases, _ := aliasList(annotationLimit - 1024)
		fmt.Fprintf(&b, "  annotations:\n    konghq.com/host-aliases: %q\n", aliases)
	}
	b.WriteString("spec:\n  ingressClassName: kong\n  rules:\n")
	if pathsAndAliases {
		b.WriteString("  - host: big.example.com\n    http:\n      paths:\n")
	}
	// Each rule or path is sized as the API server stores it (JSON); the YAML here is close.
	for i := 0; b.Len() < objectLimit-1024; i++ {
		if pathsAndAliases {
			fmt.Fprintf(&b, "      - {path: /p%d, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}\n", i)
			continue
		}
		fmt.Fprintf(&b, "  - host: h%d.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}\n", i)
	}
	serviceYAML(&b, "team-b", "web")
	return manifests(tb, &b)
}

// checkGoodOnly checks that the world's routes beside the good Ingress's are there (at least
// minOther Kong services besides the good one's).
func checkGoodOnly(minOther int) func(tb testing.TB, res Result) {
	return func(tb testing.TB, res Result) {
		if len(res.Document.Services) < 1+minOther {
			tb.Errorf("%d Kong services, want at least %d", len(res.Document.Services), 1+minOther)
		}
	}
}

func checkBudget(tb testing.TB, res Result) {
	if !hasProblem(res, "Ingress team-b/big", "kongsync allows an Ingress") {
		tb.Errorf("no route budget problem on the Ingress; problems: %v", res.Problems)
	}
}

// httpRouteMaxWorld is an HTTPRoute at its CRD's maxima: 16 hostnames, 16 rules of 8 matches
// (128 in all), each match with a method and 16 headers, 16 backends per rule (query parameter
// matches would leave the route untranslated: they need the expressions router); with aliases,
// 256 KiB of konghq.com/host-aliases, which every one of its 128 Kong routes repeats.
func httpRouteMaxWorld(tb testing.TB, aliases bool) []store.Object {
	var b bytes.Buffer
	b.WriteString(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kong}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kong, namespace: default}
spec:
  gatewayClassName: kong
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: max
  namespace: team-b
`)
	if aliases {
		list, _ := aliasList(annotationLimit - 1024)
		fmt.Fprintf(&b, "  annotations: {konghq.com/host-aliases: %q}\n", list)
	}
	b.WriteString(`spec:
  parentRefs: [{name: kong, namespace: default}]
  hostnames: [`)
	for i := range 16 {
		fmt.Fprintf(&b, "h%d.example.com, ", i)
	}
	b.WriteString("]\n  rules:\n")
	for r := range 16 {
		b.WriteString("  - matches:\n")
		for m := range 8 {
			fmt.Fprintf(&b, "    - path: {type: PathPrefix, value: /r%d/m%d}\n      headers: [", r, m)
			for h := range 16 { // values differ per match, so that no two matches share a Kong route
				fmt.Fprintf(&b, "{name: X-H%d, value: v%d-%d-%d}, ", h, h, r, m)
			}
			b.WriteString("]\n      method: GET\n")
		}
		b.WriteString("    backendRefs: [")
		for s := range 16 {
			fmt.Fprintf(&b, "{kind: Service, group: \"\", name: s%d, port: 80, weight: 1}, ", s)
		}
		b.WriteString("]\n")
	}
	for s := range 16 {
		serviceYAML(&b, "team-b", "s"+strconv.Itoa(s))
	}
	return manifests(tb, &b)
}

// consumerKeyWorld is a victim KongConsumer in team-a with key-auth key "stolen" and, younger,
// n KongConsumers in team-b holding the same key: each through a Secret of its own, or all
// through one shared Secret.
func consumerKeyWorld(tb testing.TB, n int, shared bool) []store.Object {
	var b bytes.Buffer
	key := base64.StdEncoding.EncodeToString([]byte("stolen"))
	fmt.Fprintf(&b, `apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: victim, namespace: team-a, creationTimestamp: "2026-01-01T00:00:00Z", annotations: {kubernetes.io/ingress.class: kong}}
username: victim
credentials: [key]
---
apiVersion: v1
kind: Secret
metadata: {name: key, namespace: team-a, labels: {konghq.com/credential: key-auth}}
data: {key: %s}
`, key)
	for i := range n {
		secret := "key-" + strconv.Itoa(i)
		if shared {
			secret = "key"
		}
		fmt.Fprintf(&b, `---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: c%d, namespace: team-b, creationTimestamp: "2026-02-01T00:00:00Z", annotations: {kubernetes.io/ingress.class: kong}}
username: thief-%d
credentials: [%s]
`, i, i, secret)
		if !shared || i == 0 {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: team-b, labels: {konghq.com/credential: key-auth}}\ndata: {key: %s}\n", secret, key)
		}
	}
	return manifests(tb, &b)
}

func checkVictimConsumer(tb testing.TB, res Result) {
	if len(res.Document.Consumers) != 1 || *res.Document.Consumers[0].Username != "victim" {
		tb.Errorf("%d consumers, want only the victim", len(res.Document.Consumers))
	}
	if !hasProblem(res, "KongConsumer team-b/c9999", "already used by the older KongConsumer team-a/victim") {
		tb.Errorf("no problem on the youngest thief")
	}
}

// samePathWorld is a victim Ingress in team-a routing shared.example.com/ and, younger, n
// Ingresses in team-b routing the same host and path, each to a Service of its own.
func samePathWorld(tb testing.TB, n int) []store.Object {
	var b bytes.Buffer
	ing := func(ns, name, created string) {
		fmt.Fprintf(&b, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %[2]s, namespace: %[1]s, creationTimestamp: %[3]q}
spec:
  ingressClassName: kong
  rules: [{host: shared.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: %[2]s, port: {number: 80}}}}]}}]
`, ns, name, created)
		serviceYAML(&b, ns, name)
	}
	ing("team-a", "victim", "2026-01-01T00:00:00Z")
	for i := range n {
		ing("team-b", "i"+strconv.Itoa(i), "2026-02-01T00:00:00Z")
	}
	return manifests(tb, &b)
}

func checkVictimRoute(tb testing.TB, res Result) {
	if !hasRoute(res, "team-a.victim.victim.shared.example.com.80") {
		tb.Errorf("the victim's route is missing")
	}
	if hasRoute(res, "team-b.i0.i0.shared.example.com.80") {
		tb.Errorf("a younger Ingress kept the victim's host and path")
	}
}

// caIDWorld is a victim CA certificate Secret in team-a trusted by a Service there and, younger,
// n CA certificate Secrets in team-b with the same id.
func caIDWorld(tb testing.TB, n int) []store.Object {
	var b bytes.Buffer
	const id = "5d8e0f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a"
	cert := base64.StdEncoding.EncodeToString(caCertPEMForTest(tb))
	secret := func(ns, name, created string) {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: %s, creationTimestamp: %q, labels: {konghq.com/ca-cert: \"true\"}}\ndata: {id: %s, cert: %s}\n",
			name, ns, created, base64.StdEncoding.EncodeToString([]byte(id)), cert)
	}
	secret("team-a", "ca", "2026-01-01T00:00:00Z")
	b.WriteString(`---
apiVersion: v1
kind: Service
metadata:
  name: verified
  namespace: team-a
  annotations: {konghq.com/protocol: https, konghq.com/tls-verify: "true", konghq.com/ca-certificates-secrets: ca}
spec: {ports: [{port: 443}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: verified, namespace: team-a}
spec:
  ingressClassName: kong
  rules: [{host: verified.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: verified, port: {number: 443}}}}]}}]
`)
	for i := range n {
		secret("team-b", "ca-"+strconv.Itoa(i), "2026-02-01T00:00:00Z")
	}
	return manifests(tb, &b)
}

func checkVictimCA(tb testing.TB, res Result) {
	if len(res.Document.CACertificates) != 1 || !hasTag(res.Document.CACertificates[0].Tags, "k8s-namespace:team-a") {
		tb.Errorf("want the one CA certificate from team-a, got %d", len(res.Document.CACertificates))
	}
	for _, s := range res.Document.Services {
		if *s.Name == "team-a.verified.443" && len(s.CACertificates) != 1 {
			tb.Errorf("the victim's Service lost its CA certificate")
		}
	}
}

func hasRoute(res Result, name string) bool {
	for _, s := range res.Document.Services {
		for _, r := range s.Routes {
			if *r.Name == name {
				return true
			}
		}
	}
	return false
}

func hasProblem(res Result, object, reason string) bool {
	for _, p := range res.Problems {
		if p.Object.String() == object && strings.Contains(p.Reason, reason) {
			return true
		}
	}
	return false
}

func hasTag(tags []*string, tag string) bool {
	for _, t := range tags {
		if *t == tag {
			return true
		}
	}
	return false
}

// customEntityWorld is n Ingresses in team-b, each to a Service of its own, all carrying one
// KongPlugin, and two KongCustomEntities following it: one with 60 KiB of fields (n copies would
// be n*60 KiB), one small (n entities of a few dozen bytes).
func customEntityWorld(tb testing.TB, n int) []store.Object {
	var b bytes.Buffer
	for i := range n {
		name := "i" + strconv.Itoa(i)
		fmt.Fprintf(&b, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %[1]s, namespace: team-b, annotations: {konghq.com/plugins: p}}
spec:
  ingressClassName: kong
  rules: [{host: %[1]s.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: %[1]s, port: {number: 80}}}}]}}]
`, name)
		serviceYAML(&b, "team-b", name)
	}
	b.WriteString("---\napiVersion: configuration.konghq.com/v1\nkind: KongPlugin\nmetadata: {name: p, namespace: team-b}\nplugin: cors\n")
	ce := func(name, query string) {
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongCustomEntity\n"+
			"metadata: {name: %s, namespace: team-b}\nspec:\n  controllerName: kong\n  type: degraphql_routes\n"+
			"  parentRef: {group: configuration.konghq.com, kind: KongPlugin, name: p}\n  fields: {uri: /a, query: %q}\n", name, query)
	}
	ce("big", strings.Repeat("q", 60<<10))
	ce("small", "query{ a }")
	return manifests(tb, &b)
}

func checkCustomEntities(tb testing.TB, res Result) {
	if !hasProblem(res, "KongCustomEntity team-b/big", "the plugin's attachments would make 5000 entities") {
		tb.Errorf("no problem on the custom entity copied past the bound")
	}
	if l := res.Document.CustomEntities; len(l) != 1 || len(l[0].Entities) != 5000 {
		tb.Errorf("want the 5,000 entities of the small custom entity")
	}
}

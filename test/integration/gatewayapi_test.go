//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
)

// TestGatewayAPICRDsInstalledAfterStart runs kongsync, under the deploy/ ServiceAccount's
// permissions, in a cluster without the Gateway API, then installs gateway-api's own CRDs (from
// the module kongsync builds with): the standard channel, whose L4 and TLS routes are v1 only,
// then the experimental one over it (kongsync switches them to KIC's v1alpha2), then removes
// them. Objects of every kind reach kongsync's store without a restart; an HTTPRoute reaches
// Kong and follows its changes and its namespace's labels (allowedRoutes selector); removing
// the CRDs takes everything out again.
func TestGatewayAPICRDsInstalledAfterStart(t *testing.T) {
	removeGatewayCRDs(t)
	t.Cleanup(func() { removeGatewayCRDs(t) })
	ns := newNamespace(t)
	labelNamespace(t, ns, "kongsync-test", ns)
	web := app{ns: ns, name: "web"}
	createBackend(t, web)
	kong := newDouble(t)
	w := newStoreWatch()
	cfg := func(c *runner.Config) {
		c.RestConfig = serviceAccountConfig(t)
		c.GatewayAlpha = true // TCPRoutes, UDPRoutes and TLSRoutes are read only with the gate, as in KIC
		w.hooks(c)
	}
	startKongsync(t, "gwapi", ns, []*kongdouble.Server{kong}, cfg)

	installGatewayCRDs(t, "standard")
	gw := gatewayObjects{ns: ns, class: "kongsync-" + ns, host: "gw-" + ns + ".example.com"}
	gw.create(t, gw.standard())
	w.wait(t, "every Gateway API kind in the store", w.hasAll(gw.standardRefs()...))
	if o, ok := w.store().Get(store.Ref{Kind: store.KindNamespace, Name: ns}); !ok || o.GetLabels()["kongsync-test"] != ns {
		t.Fatalf("Namespace %s in the store: %v, %v", ns, o, ok)
	}
	waitDouble(t, kong, "the HTTPRoute's host in Kong", func() bool { return hasHost(kong, gw.host) })

	moved := "moved-" + gw.host
	t0 := time.Now()
	patchRoute(t, ns, "httproutes", "web", `{"spec":{"hostnames":["`+moved+`"]}}`)
	waitDouble(t, kong, "the HTTPRoute's new host in Kong", func() bool { return hasHost(kong, moved) && !hasHost(kong, gw.host) })
	took := time.Since(t0)
	t.Logf("HTTPRoute change → Kong double: %s (sync window %s)", took.Round(time.Millisecond), runner.Defaults().SyncWindow)
	if limit := runner.Defaults().SyncWindow + 2*time.Second; took > limit {
		t.Errorf("the HTTPRoute change took %s to reach Kong, over %s", took, limit)
	}
	labelNamespace(t, ns, "kongsync-test", "other")
	waitDouble(t, kong, "the route detached once its namespace no longer matches the listener's selector",
		func() bool { return !hasHost(kong, moved) })
	labelNamespace(t, ns, "kongsync-test", ns)
	waitDouble(t, kong, "the route back with the label", func() bool { return hasHost(kong, moved) })

	installGatewayCRDs(t, "experimental")
	gw.create(t, gw.experimental())
	w.wait(t, "the v1alpha2 routes in the store, the v1 ones kept",
		w.hasAll(append(gw.standardRefs(), gw.experimentalRefs()...)...))

	removeGatewayCRDs(t)
	w.wait(t, "every Gateway API object and the Namespace out of the store", func(st *store.Store) bool {
		for _, ref := range append(gw.standardRefs(), gw.experimentalRefs()...) {
			if _, ok := st.Get(ref); ok {
				return false
			}
		}
		return true
	})
	waitDouble(t, kong, "the HTTPRoute's route gone from Kong", func() bool { return !hasHost(kong, moved) })
}

// storeWatch captures kongsync's store (Hooks.Store) and wakes on every sync loop event
// (Hooks.Observe; every store change ends in one), so a test waits for objects that show in
// Kong only indirectly, without sleeping.
type storeWatch struct {
	st   atomic.Pointer[store.Store]
	wake chan struct{}
}

func newStoreWatch() *storeWatch { return &storeWatch{wake: make(chan struct{}, 1)} }

func (w *storeWatch) hooks(c *runner.Config) {
	c.Hooks.Store = func(s *store.Store) { w.st.Store(s) }
	c.Hooks.Observe = func(kongsync.Event) {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

func (w *storeWatch) store() *store.Store { return w.st.Load() }

func (w *storeWatch) wait(t *testing.T, what string, cond func(*store.Store) bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for !cond(w.store()) {
		select {
		case <-w.wake:
		case <-deadline:
			t.Fatalf("waiting for %s", what)
		}
	}
}

func (w *storeWatch) hasAll(refs ...store.Ref) func(*store.Store) bool {
	return func(st *store.Store) bool {
		for _, ref := range refs {
			if _, ok := st.Get(ref); !ok {
				return false
			}
		}
		return true
	}
}

// gatewayObjects are one test's Gateway API objects in namespace ns: its own GatewayClass of
// kongsync's controller, a Gateway with HTTP (namespaces selected by label), TCP, UDP and TLS
// passthrough listeners, and a route of every kind on the Service "web".
type gatewayObjects struct {
	ns, class, host string
}

func (g gatewayObjects) fill(doc string) string {
	return strings.NewReplacer("NS", g.ns, "CLASS", g.class, "HOST", g.host).Replace(doc)
}

func (g gatewayObjects) standard() []string {
	docs := []string{`
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS}
spec: {controllerName: konghq.com/kic-gateway-controller}`, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kong, namespace: NS}
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80,
     allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {kongsync-test: NS}}}}}
  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {kinds: [{kind: TCPRoute}]}}
  - {name: udp, protocol: UDP, port: 9001, allowedRoutes: {kinds: [{kind: UDPRoute}]}}
  - {name: tls, protocol: TLS, port: 9443, tls: {mode: Passthrough}, allowedRoutes: {kinds: [{kind: TLSRoute}]}}`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: NS}
spec:
  parentRefs: [{name: kong, sectionName: http}]
  hostnames: [HOST]
  rules: [{matches: [{path: {type: PathPrefix, value: /v1}}], backendRefs: [{name: web, port: 80}]}]`, `
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: grpc, namespace: NS}
spec:
  parentRefs: [{name: kong, sectionName: http}]
  hostnames: [grpc-HOST]
  rules: [{matches: [{method: {service: echo.Echo}}], backendRefs: [{name: web, port: 80}]}]`, `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-elsewhere, namespace: NS}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: elsewhere}]
  to: [{group: "", kind: Service}]`}
	return append(docs, g.streamRoutes("v1", "")...)
}

// streamRoutes are a TCPRoute, a UDPRoute and a TLSRoute at version, their names suffixed.
func (g gatewayObjects) streamRoutes(version, suffix string) []string {
	var docs []string
	for _, kind := range []string{"TCPRoute", "UDPRoute", "TLSRoute"} {
		l := strings.ToLower(strings.TrimSuffix(kind, "Route"))
		host := ""
		if kind == "TLSRoute" {
			host = "\n  hostnames: [" + l + suffix + "-HOST]"
		}
		docs = append(docs, fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/%s
kind: %s
metadata: {name: %s%s, namespace: NS}
spec:
  parentRefs: [{name: kong, sectionName: %s}]%s
  rules: [{backendRefs: [{name: web, port: 80}]}]`, version, kind, l, suffix, l, host))
	}
	return docs
}

func (g gatewayObjects) experimental() []string { return g.streamRoutes("v1alpha2", "-alpha") }

func (g gatewayObjects) standardRefs() []store.Ref {
	return []store.Ref{
		{Kind: store.KindGatewayClass, Name: g.class},
		{Kind: store.KindGateway, Namespace: g.ns, Name: "kong"},
		{Kind: store.KindHTTPRoute, Namespace: g.ns, Name: "web"},
		{Kind: store.KindGRPCRoute, Namespace: g.ns, Name: "grpc"},
		{Kind: store.KindReferenceGrant, Namespace: g.ns, Name: "from-elsewhere"},
		{Kind: store.KindTCPRoute, Namespace: g.ns, Name: "tcp"},
		{Kind: store.KindUDPRoute, Namespace: g.ns, Name: "udp"},
		{Kind: store.KindTLSRoute, Namespace: g.ns, Name: "tls"},
		{Kind: store.KindNamespace, Name: g.ns},
	}
}

func (g gatewayObjects) experimentalRefs() []store.Ref {
	return []store.Ref{
		{Kind: store.KindTCPRoute, Namespace: g.ns, Name: "tcp-alpha"},
		{Kind: store.KindUDPRoute, Namespace: g.ns, Name: "udp-alpha"},
		{Kind: store.KindTLSRoute, Namespace: g.ns, Name: "tls-alpha"},
	}
}

// gatewayResources maps the Gateway API kinds to their resources.
var gatewayResources = map[string]string{"GatewayClass": "gatewayclasses", "Gateway": "gateways",
	"HTTPRoute": "httproutes", "GRPCRoute": "grpcroutes", "TCPRoute": "tcproutes", "UDPRoute": "udproutes",
	"TLSRoute": "tlsroutes", "ReferenceGrant": "referencegrants"}

// createYAML creates one Gateway API object written in YAML (with gatewayObjects' placeholders
// already filled) through the dynamic client, at the version it names.
func createYAML(t *testing.T, doc string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	res := dyn.Resource(gv.WithResource(gatewayResources[u.GetKind()]))
	var ri dynamic.ResourceInterface = res
	if ns := u.GetNamespace(); ns != "" {
		ri = res.Namespace(ns)
	}
	if _, err := ri.Create(ctxT(t), u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	if u.GetNamespace() == "" {
		t.Cleanup(func() { _ = ri.Delete(context.Background(), u.GetName(), metav1.DeleteOptions{}) })
	}
}

func (g gatewayObjects) create(t *testing.T, docs []string) {
	t.Helper()
	for _, d := range docs {
		createYAML(t, g.fill(d))
	}
}

func patchRoute(t *testing.T, ns, resource, name, patch string) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	gvr := schema.GroupVersionResource{Group: store.GatewayGroup, Version: "v1", Resource: resource}
	if _, err := dyn.Resource(gvr).Namespace(ns).Patch(ctxT(t), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func labelNamespace(t *testing.T, ns, key, value string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	if _, err := admin.CoreV1().Namespaces().Patch(ctxT(t), ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createBackend makes the app's Service and EndpointSlice, without an Ingress.
func createBackend(t *testing.T, a app) {
	t.Helper()
	if _, err := admin.CoreV1().Services(a.ns).Create(ctxT(t), a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DiscoveryV1().EndpointSlices(a.ns).Create(ctxT(t), a.endpointSlice("10.244.0.7"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// gatewayCRDFiles are the CRDs of the Gateway API kinds kongsync reads, of channel ("standard"
// or "experimental"), as the gateway-api module kongsync builds with ships them. The channel's
// other files are left out: its ValidatingAdmissionPolicy forbids installing the experimental
// channel over the standard one, which the test does, and every CRD the API server builds
// storage for (CEL rules compiled on each update) slows its deletion on a loaded machine.
func gatewayCRDFiles(t *testing.T, channel string) []string {
	t.Helper()
	files, err := gatewayCRDPaths(channel)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func gatewayCRDPaths(channel string) ([]string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		return nil, fmt.Errorf("locating sigs.k8s.io/gateway-api: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", channel)
	var files []string
	for _, res := range gatewayResources {
		f := filepath.Join(dir, store.GatewayGroup+"_"+res+".yaml")
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("the gateway-api module lacks a %s CRD: %v", channel, err)
		}
		files = append(files, f)
	}
	sort.Strings(files)
	return files, nil
}

func fileArgs(verb string, files []string, extra ...string) []string {
	args := append([]string{verb}, extra...)
	for _, f := range files {
		args = append(args, "-f", f)
	}
	return args
}

// installGatewayCRDs applies one channel's CRDs (over the other's, if installed) and waits
// until the API server serves them.
func installGatewayCRDs(t *testing.T, channel string) {
	t.Helper()
	if err := applyGatewayCRDs(channel); err != nil {
		t.Fatal(err)
	}
}

func applyGatewayCRDs(channel string) error {
	files, err := gatewayCRDPaths(channel)
	if err != nil {
		return err
	}
	if _, err := runKubectl(fileArgs("apply", files, "--server-side", "--force-conflicts")...); err != nil {
		return err
	}
	_, err = runKubectl(fileArgs("wait", files, "--for=condition=established", "--timeout=60s")...)
	return err
}

// removeGatewayCRDs deletes the Gateway API CRDs, if installed, and waits until they are gone
// (with every object of theirs). The API server's CRD finalizer retries with a growing backoff
// while the CRD's storage is rebuilt (which its own deletion starts), hence the long bound.
func removeGatewayCRDs(t *testing.T) {
	t.Helper()
	kubectl(t, fileArgs("delete", gatewayCRDFiles(t, "standard"), "--ignore-not-found", "--wait", "--timeout=300s")...)
}

// serviceAccountConfig applies the deploy/ ServiceAccount and RBAC and returns a rest config
// impersonating it.
func serviceAccountConfig(t *testing.T) *rest.Config {
	t.Helper()
	for _, f := range []string{"namespace.yaml", "serviceaccount.yaml", "rbac.yaml"} {
		kubectl(t, "apply", "--server-side", "-f", filepath.Join(deployDir, f))
	}
	rc := plane.RestConfig()
	rc.Impersonate.UserName = "system:serviceaccount:kong:kongsync"
	rc.Impersonate.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:kong", "system:authenticated"}
	return rc
}

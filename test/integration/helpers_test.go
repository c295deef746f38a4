//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
)

// waitTimeout bounds every wait: generous for a loaded 2-core CI machine, never slept.
const waitTimeout = 30 * time.Second

func ptr[T any](v T) *T { return &v }

// newNamespace creates a fresh namespace for one test and, at cleanup, deletes the objects in
// it (no kube-controller-manager runs, so deleting the namespace alone would leave them).
func newNamespace(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if len(name) > 40 {
		name = name[:40]
	}
	name = strings.Trim(name, "-") + "-" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		all := metav1.ListOptions{}
		del := metav1.DeleteOptions{}
		_ = admin.NetworkingV1().Ingresses(name).DeleteCollection(ctx, del, all)
		_ = admin.CoreV1().Secrets(name).DeleteCollection(ctx, del, all)
		_ = admin.DiscoveryV1().EndpointSlices(name).DeleteCollection(ctx, del, all)
		svcs, _ := admin.CoreV1().Services(name).List(ctx, all)
		for _, s := range svcs.Items {
			_ = admin.CoreV1().Services(name).Delete(ctx, s.Name, del)
		}
		_ = admin.CoreV1().Namespaces().Delete(ctx, name, del)
	})
	return name
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// app is a Service with one port, an EndpointSlice with one ready endpoint and an Ingress
// routing host to it.
type app struct {
	ns, name, host string
}

func (a app) service() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: a.name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
}

func (a app) endpointSlice(ip string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: a.name + "-1",
			Labels: map[string]string{discoveryv1.LabelServiceName: a.name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080)), Protocol: ptr(corev1.ProtocolTCP)}},
	}
}

func (a app) ingress(paths ...string) *networkingv1.Ingress {
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	var hp []networkingv1.HTTPIngressPath
	for _, p := range paths {
		hp = append(hp, networkingv1.HTTPIngressPath{Path: p, PathType: ptr(networkingv1.PathTypeImplementationSpecific),
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: a.name, Port: networkingv1.ServiceBackendPort{Number: 80}}}})
	}
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: a.name},
		Spec: networkingv1.IngressSpec{IngressClassName: ptr("kong"), Rules: []networkingv1.IngressRule{{
			Host: a.host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: hp}}}}},
	}
}

// create makes the app's Service, EndpointSlice and Ingress.
func (a app) create(t *testing.T) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := admin.CoreV1().Services(a.ns).Create(ctx, a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DiscoveryV1().EndpointSlices(a.ns).Create(ctx, a.endpointSlice("10.244.0.5"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(a.ns).Create(ctx, a.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// instance is one in-process kongsync.
type instance struct {
	name    string
	cancel  context.CancelFunc
	done    chan error
	ready   chan struct{}
	leading chan bool
	status  chan string // "namespace/name" of each Ingress whose status this instance wrote
}

// startKongsync runs runner.Run in-process, watching ns, pushing to the doubles. It returns once
// the caches have synced; the instance stops at test cleanup (or by stop()).
func startKongsync(t *testing.T, name, ns string, doubles []*kongdouble.Server, mutate func(*runner.Config)) *instance {
	t.Helper()
	return startKongsyncWithLogger(t, name, ns, doubles, mutate, testLogger(t, name))
}

// startKongsyncWithLogger is startKongsync with the given logger.
func startKongsyncWithLogger(t *testing.T, name, ns string, doubles []*kongdouble.Server, mutate func(*runner.Config), log logr.Logger) *instance {
	t.Helper()
	in := &instance{name: name, done: make(chan error, 1), ready: make(chan struct{}),
		leading: make(chan bool, 16), status: make(chan string, 256)}
	cfg := runner.Defaults()
	cfg.RestConfig = plane.RestConfig()
	cfg.KongAdminURLs = nil
	for _, d := range doubles {
		cfg.KongAdminURLs = append(cfg.KongAdminURLs, d.URL())
	}
	if ns != "" {
		cfg.WatchNamespaces = []string{ns}
		cfg.ElectionNamespace = ns
	}
	cfg.UpdateStatus = false
	cfg.MetricsBindAddress, cfg.HealthProbeBindAddress = "127.0.0.1:0", "127.0.0.1:0"
	cfg.Identity = name
	started := make(chan struct{})
	var once sync.Once
	cfg.Hooks.Started = func() { close(started) }
	cfg.Hooks.Ready = func() { once.Do(func() { close(in.ready) }) }
	cfg.Hooks.Leading = func(b bool) { in.leading <- b }
	cfg.Hooks.StatusUpdated = func(ing store.Ref, _ []networkingv1.IngressLoadBalancerIngress) {
		in.status <- ing.Namespace + "/" + ing.Name
	}
	if mutate != nil {
		mutate(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	in.cancel = cancel
	go func() { in.done <- runner.Run(ctx, cfg, log) }()
	select {
	case <-started:
	case err := <-in.done:
		t.Fatalf("kongsync %s exited before syncing: %v", name, err)
	case <-time.After(waitTimeout):
		t.Fatalf("kongsync %s: caches did not sync", name)
	}
	t.Cleanup(in.stop)
	return in
}

// stop cancels the instance and waits for Run to return (idempotent).
func (in *instance) stop() {
	in.cancel()
	select {
	case <-in.done:
	case <-time.After(waitTimeout):
		panic("kongsync " + in.name + " did not stop")
	}
	in.done <- nil // let a second stop return at once
}

func (in *instance) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-in.ready:
	case <-time.After(waitTimeout):
		t.Fatalf("kongsync %s never became ready", in.name)
	}
}

// testLogger sends kongsync's logs to t.Log, or nowhere unless KONGSYNC_TEST_LOG is set (they
// are verbose and interleave between instances).
func testLogger(t *testing.T, name string) logr.Logger {
	if os.Getenv("KONGSYNC_TEST_LOG") == "" {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) { t.Logf("[%s] %s %s", name, prefix, args) }, funcr.Options{Verbosity: 1}).WithName(name)
}

// newDouble starts a Kong double closed at cleanup.
func newDouble(t *testing.T) *kongdouble.Server {
	d := kongdouble.New(kongdouble.Options{})
	t.Cleanup(d.Close)
	return d
}

// routeHosts lists "service-name host" pairs in the double's loaded config, to assert content
// without depending on every translated field.
func routeHosts(d *kongdouble.Server) []string {
	doc := d.Document()
	var out []string
	svcs, _ := doc["services"].([]any)
	for _, s := range svcs {
		sm, _ := s.(map[string]any)
		routes, _ := sm["routes"].([]any)
		for _, r := range routes {
			rm, _ := r.(map[string]any)
			hosts, _ := rm["hosts"].([]any)
			for _, h := range hosts {
				out = append(out, fmt.Sprintf("%v %v", sm["name"], h))
			}
		}
	}
	return out
}

func hasHost(d *kongdouble.Server, host string) bool {
	for _, rh := range routeHosts(d) {
		if strings.HasSuffix(rh, " "+host) {
			return true
		}
	}
	return false
}

// waitDouble waits until cond holds on the double (woken by each request it answers).
func waitDouble(t *testing.T, d *kongdouble.Server, what string, cond func() bool) {
	t.Helper()
	if err := d.WaitFor(ctxT(t), cond); err != nil {
		t.Fatalf("waiting for %s: %v; loaded hosts: %v", what, err, routeHosts(d))
	}
}

// rejectNextPost makes the double answer its next POST /config with Kong's 400 "invalid
// declarative configuration", naming one route of the Ingress ns/name through its k8s-* tags, as
// Kong does for an entity it refuses. (The translator now rejects most invalid input itself, so
// a fault keeps this test independent of which checks it has.)
func rejectNextPost(d *kongdouble.Server, ns, name string) {
	d.AddFault(kongdouble.Fault{Status: 400, Body: rejectionBody(ns, name, "invalid regex: '/x[' (PCRE returned: missing ])"), Times: 1})
}

// rejectionBody is Kong's 400 naming one route of Ingress ns/name through its k8s-* tags, with
// msg as the field error.
func rejectionBody(ns, name, msg string) string {
	body, _ := json.Marshal(map[string]any{
		"code": 14, "name": "invalid declarative configuration",
		"message": "declarative config is invalid: {}", "fields": map[string]any{},
		"flattened_errors": []any{map[string]any{
			"entity_type": "route", "entity_name": ns + "." + name + ".rejected",
			"entity_tags": []string{"k8s-name:" + name, "k8s-namespace:" + ns, "k8s-kind:Ingress",
				"k8s-group:networking.k8s.io", "k8s-version:v1"},
			"errors": []any{map[string]any{"type": "field", "field": "paths.1", "message": msg}},
			"entity": map[string]any{},
		}},
	})
	return string(body)
}

// waitEvent waits for a Warning Event with reason on the named object, listing then watching.
func waitEvent(t *testing.T, ns, kind, name, reason string) *corev1.Event {
	t.Helper()
	ctx := ctxT(t)
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": reason}.AsSelector().String()
	list, err := admin.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) > 0 {
		return &list.Items[0]
	}
	w, err := admin.CoreV1().Events(ns).Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("event watch closed before %s on %s %s/%s", reason, kind, ns, name)
			}
			if ev.Type == watch.Added || ev.Type == watch.Modified {
				if e, ok := ev.Object.(*corev1.Event); ok {
					return e
				}
			}
		case <-ctx.Done():
			t.Fatalf("no %s event on %s %s/%s", reason, kind, ns, name)
		}
	}
}

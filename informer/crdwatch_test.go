package informer

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

func gatewayGVR(version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: store.GatewayGroup, Version: version, Resource: resource}
}

func route(version, kind, ns, name, rv string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": store.GatewayGroup + "/" + version, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns, "resourceVersion": rv, "uid": "uid-" + name},
		"spec":     map[string]any{"parentRefs": []any{map[string]any{"name": "kong"}}},
	}}
}

func crdMeta(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
}

// crdFixture is a controller on fake clients with a discovery the test sets.
type crdFixture struct {
	cs   clients
	disc *fakeLister
	st   *store.Store
	n    *countingNotifier
	c    *Controller
	// lagging is closed once a reconcile found two CRDs that discovery does not serve yet.
	lagging chan struct{}
}

// startCRDFixture starts a controller watching all namespaces, with dyn objects (any version)
// and meta objects (CRDs, Namespaces) present, and returns once the CRD informer watches.
// The GatewayAlpha gate is on, so that every kind kongsync reads is watched.
func startCRDFixture(t *testing.T, disc *fakeLister, dynObjs []runtime.Object, metaObjs ...runtime.Object) *crdFixture {
	t.Helper()
	return startCRDFixtureWith(t, Options{GatewayAlpha: true}, disc, dynObjs, metaObjs...)
}

// startCRDFixtureWith is startCRDFixture with opts (its clients set here).
func startCRDFixtureWith(t *testing.T, opts Options, disc *fakeLister, dynObjs []runtime.Object, metaObjs ...runtime.Object) *crdFixture {
	t.Helper()
	cs := newClients()
	for _, o := range metaObjs {
		if err := cs.meta.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	listKinds := map[schema.GroupVersionResource]string{}
	for _, r := range crdResources {
		for _, v := range r.versions {
			listKinds[schema.GroupVersionResource{Group: r.group, Version: v, Resource: r.resource}] = string(r.kind) + "List"
		}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, dynObjs...)
	crdWatch := make(chan struct{}, 1)
	cs.meta.PrependWatchReactor("customresourcedefinitions", func(k8stesting.Action) (bool, watch.Interface, error) {
		crdWatch <- struct{}{}
		return false, nil, nil
	})
	f := &crdFixture{cs: cs, disc: disc, st: store.New(), n: &countingNotifier{ch: make(chan struct{}, 1)}}
	opts.Metadata, opts.CustomResources = cs.meta, dynamicCustomResources{dyn}
	c, err := New(cs.typed, f.st, f.n, logr.Discard(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c.crds.disc = disc
	f.lagging = make(chan struct{})
	var once sync.Once
	c.crds.reconciled = func(retry bool) {
		idx := c.crds.crds.GetIndexer()
		if retry && len(idx.ListKeys()) == 2 {
			once.Do(func() { close(f.lagging) })
		}
	}
	f.c = c
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-crdWatch:
	case <-time.After(10 * time.Second):
		t.Fatal("the CRD informer never watched")
	}
	return f
}

func (f *crdFixture) has(kind store.Kind, ns, name string) bool {
	_, ok := f.st.Get(store.Ref{Kind: kind, Namespace: ns, Name: name})
	return ok
}

func (f *crdFixture) setCRD(t *testing.T, name, rv string) {
	t.Helper()
	gvr := crdGVR
	if _, err := f.cs.meta.Tracker().Get(gvr, "", name); err == nil {
		err = f.cs.meta.Tracker().Update(gvr, crdMeta(name, rv), "")
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := f.cs.meta.Tracker().Create(gvr, crdMeta(name, rv), ""); err != nil {
		t.Fatal(err)
	}
}

// TestCRDsPresentAtStart: Start returns only once the informers of the CRDs served then have
// listed their objects, so the first push sees them.
func TestCRDsPresentAtStart(t *testing.T) {
	disc := &fakeLister{}
	disc.set("gateway.networking.k8s.io/v1", "httproutes", "gatewayclasses")
	gc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]any{"name": "kong", "resourceVersion": "1"},
		"spec":     map[string]any{"controllerName": "konghq.com/kic-gateway-controller"}}}
	ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1", Labels: map[string]string{"team": "a"}}}
	f := startCRDFixture(t, disc, []runtime.Object{route("v1", "HTTPRoute", "a", "r", "1"), gc},
		crdMeta("httproutes.gateway.networking.k8s.io", "1"), crdMeta("gatewayclasses.gateway.networking.k8s.io", "1"), ns)
	o, ok := f.st.Get(store.Ref{Kind: store.KindHTTPRoute, Namespace: "a", Name: "r"})
	if !ok {
		t.Fatal("HTTPRoute a/r not in the store when Start returned")
	}
	if hr := o.(*gatewayv1.HTTPRoute); len(hr.Spec.ParentRefs) != 1 || hr.Spec.ParentRefs[0].Name != "kong" {
		t.Errorf("HTTPRoute spec = %+v", hr.Spec)
	}
	if !f.has(store.KindGatewayClass, "", "kong") {
		t.Error("GatewayClass kong not in the store")
	}
	if o, ok := f.st.Get(store.Ref{Kind: store.KindNamespace, Name: "a"}); !ok || o.GetLabels()["team"] != "a" {
		t.Errorf("Namespace a = %v, %v", o, ok)
	}
	if !f.c.HasSynced() {
		t.Error("HasSynced is false after Start")
	}
}

// TestCRDsAppearSwitchAndGo follows the Gateway API CRDs through a kongsync lifetime: installed
// after Start (discovery lagging behind the CRD objects, as the API server's does), upgraded to
// the experimental channel (TCPRoute switches to KIC's v1alpha2, and what the new version does
// not list leaves the store), then removed (every object leaves, the Namespaces with them).
func TestCRDsAppearSwitchAndGo(t *testing.T) {
	disc := &fakeLister{}
	ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}}
	f := startCRDFixture(t, disc, []runtime.Object{
		route("v1", "HTTPRoute", "a", "r", "1"),
		route("v1", "TCPRoute", "a", "t1", "2"), route("v1", "TCPRoute", "a", "t2", "3"),
		route("v1alpha2", "TCPRoute", "a", "t1", "2"),
	}, ns)
	if f.has(store.KindHTTPRoute, "a", "r") || f.has(store.KindNamespace, "", "a") {
		t.Fatal("objects of CRDs not installed entered the store")
	}

	// The CRDs exist before discovery serves them: the watcher retries until it does.
	f.setCRD(t, "httproutes.gateway.networking.k8s.io", "10")
	f.setCRD(t, "tcproutes.gateway.networking.k8s.io", "11")
	select {
	case <-f.lagging:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher never saw both CRDs unserved")
	}
	disc.set("gateway.networking.k8s.io/v1", "httproutes", "tcproutes")
	waitFor(t, f.n, func() bool {
		return f.has(store.KindHTTPRoute, "a", "r") && f.has(store.KindTCPRoute, "a", "t2") && f.has(store.KindNamespace, "", "a")
	}, "the Gateway API objects after their CRDs appeared")

	disc.set("gateway.networking.k8s.io/v1alpha2", "tcproutes")
	f.setCRD(t, "tcproutes.gateway.networking.k8s.io", "12")
	waitFor(t, f.n, func() bool { return !f.has(store.KindTCPRoute, "a", "t2") }, "t2, not listed at v1alpha2, gone")
	if !f.has(store.KindTCPRoute, "a", "t1") || !f.has(store.KindHTTPRoute, "a", "r") {
		t.Fatal("the version switch dropped objects the new version lists")
	}
	f.c.crds.mu.Lock()
	var versions []string
	for s := range f.c.crds.running {
		if s.kind == store.KindTCPRoute {
			versions = append(versions, s.gvr.Version)
		}
	}
	f.c.crds.mu.Unlock()
	if len(versions) != 1 || versions[0] != "v1alpha2" {
		t.Fatalf("TCPRoute watched at %v, want [v1alpha2]", versions)
	}

	disc.set("gateway.networking.k8s.io/v1")
	disc.set("gateway.networking.k8s.io/v1alpha2")
	for _, name := range []string{"httproutes.gateway.networking.k8s.io", "tcproutes.gateway.networking.k8s.io"} {
		if err := f.cs.meta.Tracker().Delete(crdGVR, "", name); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, f.n, func() bool {
		return !f.has(store.KindHTTPRoute, "a", "r") && !f.has(store.KindTCPRoute, "a", "t1") && !f.has(store.KindNamespace, "", "a")
	}, "every Gateway API object and Namespace gone with the CRDs")
	f.c.crds.mu.Lock()
	left := len(f.c.crds.running)
	f.c.crds.mu.Unlock()
	if left != 0 {
		t.Errorf("%d informers still running", left)
	}
}

// TestWatchGate: a quiet gate stores without notifying; a stopped one drops late events.
func TestWatchGate(t *testing.T) {
	st := store.New()
	n := &countingNotifier{ch: make(chan struct{}, 1)}
	c := &Controller{store: st, notifier: n, log: logr.Discard(), refs: newSecretRefs()}
	gate := &watchGate{quiet: true}
	h := &handler{c: c, kind: store.KindNamespace, gate: gate}
	h.upsert(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}})
	if _, ok := st.Get(store.Ref{Kind: store.KindNamespace, Name: "a"}); !ok || n.n.Load() != 0 {
		t.Fatalf("quiet gate: stored %v, %d notifications", ok, n.n.Load())
	}
	gate.quiet = false
	h.upsert(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "2"}})
	if n.n.Load() != 1 {
		t.Fatalf("open gate: %d notifications, want 1", n.n.Load())
	}
	gate.stopped = true
	h.delete(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	if _, ok := st.Get(store.Ref{Kind: store.KindNamespace, Name: "a"}); !ok {
		t.Fatal("a stopped gate let a delete through")
	}
	gate.stopped = false
	h.upsert(&undecodable{route("v1", "HTTPRoute", "", "a", "3"), context.Canceled})
	if _, ok := st.Get(store.Ref{Kind: store.KindNamespace, Name: "a"}); ok {
		t.Fatal("an undecodable version left the old one in the store")
	}
}

// dynamicCustomResources serves custom resources from a (fake) dynamic client, each object
// decoded as the API server's JSON of it would be.
type dynamicCustomResources struct{ dyn dynamic.Interface }

func (d dynamicCustomResources) ListerWatcher(gvr schema.GroupVersionResource, namespace string, decode func([]byte) runtime.Object) cache.ListerWatcher {
	ri := d.dyn.Resource(gvr).Namespace(namespace)
	typed := func(o runtime.Object) runtime.Object {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return o
		}
		b, err := u.MarshalJSON()
		if err != nil {
			panic(err)
		}
		return decode(b)
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			ul, err := ri.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			l := &typedList{}
			l.ResourceVersion = ul.GetResourceVersion()
			for i := range ul.Items {
				l.Items = append(l.Items, typed(&ul.Items[i]))
			}
			return l, nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := ri.Watch(ctx, opts)
			if err != nil {
				return nil, err
			}
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				e.Object = typed(e.Object)
				return e, true
			}), nil
		},
	}
	return cache.ToListWatcherWithWatchListSemantics(lw, d.dyn)
}

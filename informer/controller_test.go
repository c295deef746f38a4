package informer

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	metafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/kongsync/kongsync/store"
)

// countingNotifier counts notifications and signals each one on a channel.
type countingNotifier struct {
	n  atomic.Int64
	ch chan struct{}
}

func (c *countingNotifier) Notify() {
	c.n.Add(1)
	select {
	case c.ch <- struct{}{}:
	default:
	}
}

func secret(ns, name string, typ corev1.SecretType, labels map[string]string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, ResourceVersion: "1",
			Annotations: map[string]string{lastAppliedAnnotation: `{"data":{"password":"c2VjcmV0"}}`}},
		Type: typ,
		Data: map[string][]byte{"tls.crt": []byte("crt"), "tls.key": []byte("key"), "password": []byte("secret")},
	}
}

func tlsIngress(ns, name, secretName string) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1"},
		Spec:       networkingv1.IngressSpec{TLS: []networkingv1.IngressTLS{{SecretName: secretName}}},
	}
}

// clients are the fake typed and metadata clientsets of one test, holding the same Secrets.
type clients struct {
	typed *fake.Clientset
	meta  *metafake.FakeMetadataClient
}

// newClients seeds both fakes: the typed one with objs, the metadata one with the Secrets'
// metadata, as a real API server would serve them.
func newClients(objs ...runtime.Object) clients {
	var metas []runtime.Object
	for _, o := range objs {
		if s, ok := o.(*corev1.Secret); ok {
			metas = append(metas, secretMeta(s))
		}
	}
	scheme := metafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		panic(err)
	}
	return clients{typed: fake.NewClientset(objs...), meta: metafake.NewSimpleMetadataClient(scheme, metas...)}
}

func secretMeta(s *corev1.Secret) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: *s.ObjectMeta.DeepCopy()}
}

func startController(t *testing.T, cs clients, opts Options) (*store.Store, *countingNotifier, context.CancelFunc) {
	t.Helper()
	_, st, n, cancel := startControllerWith(t, cs, opts)
	return st, n, cancel
}

// startControllerWith starts a controller on the fake clients and waits until every informer
// watches; it returns the controller too, for tests that feed a handler directly. Each
// configure function sees the controller between New and Start.
func startControllerWith(t *testing.T, cs clients, opts Options, configure ...func(*Controller)) (*Controller, *store.Store, *countingNotifier, context.CancelFunc) {
	t.Helper()
	watching := make(chan struct{}, 64)
	count := func(k8stesting.Action) (bool, watch.Interface, error) {
		watching <- struct{}{}
		return false, nil, nil
	}
	cs.typed.PrependWatchReactor("*", count)
	cs.meta.PrependWatchReactor("*", count)
	// IngressClasses, then per namespace Ingresses, Services, EndpointSlices, the three full
	// Secret informers and the metadata-only one.
	watchers := 1 + 7*max(1, len(opts.Namespaces))
	opts.Metadata = cs.meta
	st := store.New()
	n := &countingNotifier{ch: make(chan struct{}, 1)}
	c, err := New(cs.typed, st, n, logr.Discard(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range configure {
		f(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	// Start runs the informers until ctx ends, so ctx must outlive this function.
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The fake clientset drops events created before an informer's watch is registered, so wait
	// for every informer's watch before the test mutates anything.
	for i := 0; i < watchers; i++ {
		select {
		case <-watching:
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d watches started", i, watchers)
		}
	}
	return c, st, n, cancel
}

func TestDeleteAndNamespaces(t *testing.T) {
	cs := newClients(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s", ResourceVersion: "1",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "s", ResourceVersion: "1"}},
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kong", ResourceVersion: "1"}},
	)
	st, n, _ := startController(t, cs, Options{Namespaces: []string{"a"}})
	a := store.Ref{Kind: store.KindService, Namespace: "a", Name: "s"}
	o, ok := st.Get(a)
	if !ok {
		t.Fatal("Service a/s missing")
	}
	if len(o.(*corev1.Service).ManagedFields) != 0 {
		t.Error("managedFields kept")
	}
	if _, ok := st.Get(store.Ref{Kind: store.KindService, Namespace: "b", Name: "s"}); ok {
		t.Error("Service in an unwatched namespace entered the store")
	}
	if _, ok := st.Get(store.Ref{Kind: store.KindIngressClass, Name: "kong"}); !ok {
		t.Error("IngressClass missing with a namespace filter (it is cluster-scoped)")
	}
	if err := cs.typed.CoreV1().Services("a").Delete(context.Background(), "s", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, n, func() bool { _, ok := st.Get(a); return !ok }, "Service deleted from the store")
}

func TestTombstoneDelete(t *testing.T) {
	st := store.New()
	n := &countingNotifier{ch: make(chan struct{}, 1)}
	c := &Controller{store: st, notifier: n, log: logr.Discard(), refs: newSecretRefs()}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s", ResourceVersion: "1"}}
	h := &handler{c: c, kind: store.KindService}
	h.upsert(svc)
	h.upsert(svc) // a resync with the same resourceVersion changes nothing
	if got := n.n.Load(); got != 1 {
		t.Fatalf("notifications after add+resync = %d, want 1", got)
	}
	h.delete(cacheTombstone("a/s", nil))
	if _, ok := st.Get(store.Ref{Kind: store.KindService, Namespace: "a", Name: "s"}); ok {
		t.Fatal("tombstone did not delete the Service")
	}
	if got := n.n.Load(); got != 2 {
		t.Fatalf("notifications after tombstone = %d, want 2", got)
	}
}

func TestSecretRefsCounting(t *testing.T) {
	r := newSecretRefs()
	s1 := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "s1"}
	s2 := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "s2"}
	i1 := store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "i1"}
	i2 := store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "i2"}
	steps := []struct {
		owner          store.Ref
		secrets        []store.Ref
		added, removed int
	}{
		{i1, []store.Ref{s1}, 1, 0},
		{i2, []store.Ref{s1, s2}, 1, 0}, // s1 already referenced by i1
		{i1, nil, 0, 0},                 // s1 still referenced by i2
		{i2, []store.Ref{s2}, 0, 1},     // s1 released
		{i2, nil, 0, 1},                 // s2 released
	}
	for i, st := range steps {
		added, removed := r.set(st.owner, st.secrets)
		if len(added) != st.added || len(removed) != st.removed {
			t.Errorf("step %d: added %v removed %v, want %d and %d", i, added, removed, st.added, st.removed)
		}
	}
	if r.referenced(s1) || r.referenced(s2) || len(r.byOwner) != 0 {
		t.Errorf("state not empty at the end: %+v %+v", r.count, r.byOwner)
	}
}

func waitFor(t *testing.T, n *countingNotifier, cond func() bool, what string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-n.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for: %s", what)
		}
	}
}

func cacheTombstone(key string, obj any) any {
	return cache.DeletedFinalStateUnknown{Key: key, Obj: obj}
}

func TestWaitSynced(t *testing.T) {
	var calls atomic.Int64
	later := func() bool { return calls.Add(1) > 3 }
	if !waitSynced(context.Background(), []cache.InformerSynced{func() bool { return true }, later}) {
		t.Fatal("waitSynced gave up although every informer synced")
	}
	if calls.Load() != 4 {
		t.Errorf("polled %d times, want 4", calls.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if waitSynced(ctx, []cache.InformerSynced{func() bool { return false }}) {
		t.Error("waitSynced reported synced after ctx ended")
	}
}

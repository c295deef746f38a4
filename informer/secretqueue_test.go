package informer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/kongsync/kongsync/store"
)

// gatedGetter wraps a controller's getSecret. It counts the GETs per Secret name and, once
// armed, holds every GET of the Secret named hold until release is closed or the GET's ctx
// ends, signalling each held GET on entered. With mangle, every copy it returns carries a fresh
// resourceVersion, so that the store never matches the metadata informer and every reconcile of
// the Secret GETs it: the GETs then count the reconciles.
type gatedGetter struct {
	inner   func(context.Context, store.Ref) (*corev1.Secret, error)
	hold    string
	mangle  bool
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}

	mu    sync.Mutex
	calls map[string]int
	n     int
}

func newGatedGetter(hold string) *gatedGetter {
	return &gatedGetter{hold: hold, entered: make(chan struct{}, 64), release: make(chan struct{}),
		calls: map[string]int{}}
}

// install replaces c's getSecret; pass it to startControllerWith.
func (g *gatedGetter) install(c *Controller) {
	g.inner = c.getSecret
	c.getSecret = g.get
}

func (g *gatedGetter) get(ctx context.Context, ref store.Ref) (*corev1.Secret, error) {
	g.mu.Lock()
	g.calls[ref.Name]++
	g.mu.Unlock()
	if g.armed.Load() && ref.Name == g.hold {
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s, err := g.inner(ctx, ref)
	if err == nil && g.mangle {
		g.mu.Lock()
		g.n++
		s.ResourceVersion = fmt.Sprintf("got-%d", g.n)
		g.mu.Unlock()
	}
	return s, err
}

func (g *gatedGetter) count(name string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls[name]
}

func waitEntered(t *testing.T, g *gatedGetter) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatalf("no GET of %s started", g.hold)
	}
}

// waitUntil polls cond (every syncPoll) for up to 10 s, for states no notification announces.
func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !waitSynced(ctx, []cache.InformerSynced{cond}) {
		t.Fatalf("timed out waiting for: %s", what)
	}
}

// A failed GET is retried after a delay that doubles with each failure; Start does not wait for
// the retries, and success resets the Secret's backoff. Every GET fails until Start has
// returned, then three more fail.
func TestSecretGetRetriedWithBackoff(t *testing.T) {
	cs := newClients(secret("a", "opaque", corev1.SecretTypeOpaque, nil), tlsIngress("a", "ing", "opaque"))
	var (
		mu      sync.Mutex
		at      []time.Time
		after   int // failures once started
		started atomic.Bool
	)
	cs.typed.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		at = append(at, time.Now())
		if !started.Load() || after < 3 {
			if started.Load() {
				after++
			}
			return true, nil, apierrors.NewInternalError(errors.New("etcd hiccup"))
		}
		return false, nil, nil
	})
	const base, maxDelay = 10 * time.Millisecond, 40 * time.Millisecond
	c, st, n, _ := startControllerWith(t, cs, Options{SecretRetryBase: base, SecretRetryMax: maxDelay})
	mu.Lock()
	started.Store(true)
	first := len(at)
	mu.Unlock()
	if _, ok := storedSecret(st, "a", "opaque"); ok {
		t.Fatal("Secret stored although every GET so far failed")
	}
	if first == 0 {
		t.Fatal("Start returned before the referenced Secret's first GET")
	}
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "opaque"); return ok }, "Secret GOT on retry")
	mu.Lock()
	defer mu.Unlock()
	if len(at) != first+4 {
		t.Fatalf("%d GETs after Start, want 3 failed ones and a successful one", len(at)-first)
	}
	// The first GET after Start may come at once: an event of the initial lists (the Ingress that
	// names the Secret) can queue it again while its first GET is under way, and a Secret queued
	// while processed is processed again (CI saw it 68µs after the one before). Every later GET
	// is a retry after at least one more failure than the one before.
	for j := 1; j < 4; j++ {
		want := min(base<<j, maxDelay)
		if gap := at[first+j].Sub(at[first+j-1]); gap < want {
			t.Errorf("retry %d after Start came %v after the previous GET, want at least %v", j+1, gap, want)
		}
	}
	ref := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "opaque"}
	waitUntil(t, func() bool { return c.queue.NumRequeues(ref) == 0 }, "backoff forgotten after success")
}

// The retry delay doubles per failure of one Secret from the base up to the cap, independently
// per Secret, and Forget starts over.
func TestSecretRateLimiter(t *testing.T) {
	l := newSecretRateLimiter(Options{SecretRetryBase: defaultSecretRetryBase, SecretRetryMax: defaultSecretRetryMax})
	a := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "a"}
	b := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "b"}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 32 * time.Second, 64 * time.Second, 128 * time.Second, 256 * time.Second, 5 * time.Minute, 5 * time.Minute}
	for i, w := range want {
		if got := l.When(a); got != w {
			t.Errorf("failure %d: delay %v, want %v", i+1, got, w)
		}
	}
	if got := l.When(b); got != 500*time.Millisecond {
		t.Errorf("another Secret's first delay = %v, want 500ms", got)
	}
	l.Forget(a)
	if got := l.When(a); got != 500*time.Millisecond {
		t.Errorf("delay after Forget = %v, want 500ms", got)
	}
}

// While the GET of one Secret hangs, other Secrets (a TLS one from a full informer, a
// referenced Opaque one GOT by another worker) still reach the store: the informer handlers
// only queue, and the workers work in parallel.
func TestSlowSecretGetDoesNotBlockOtherSecrets(t *testing.T) {
	ing2 := tlsIngress("a", "ing2", "fast")
	cs := newClients(secret("a", "slow", corev1.SecretTypeOpaque, nil), tlsIngress("a", "ing", "slow"), ing2)
	g := newGatedGetter("slow")
	_, st, n, _ := startControllerWith(t, cs, Options{}, g.install)
	if _, ok := storedSecret(st, "a", "slow"); !ok {
		t.Fatal("referenced Secret a/slow not GOT at startup")
	}
	g.armed.Store(true)
	slow := secret("a", "slow", corev1.SecretTypeOpaque, nil)
	slow.ResourceVersion = "2"
	writeSecret(t, cs, slow, false)
	waitEntered(t, g)

	writeSecret(t, cs, secret("a", "tls", corev1.SecretTypeTLS, nil), true)
	writeSecret(t, cs, secret("a", "fast", corev1.SecretTypeOpaque, nil), true)
	waitFor(t, n, func() bool {
		_, tls := storedSecret(st, "a", "tls")
		_, fast := storedSecret(st, "a", "fast")
		return tls && fast
	}, "TLS and referenced Opaque Secrets stored while another GET hangs")
	if s, _ := storedSecret(st, "a", "slow"); s.ResourceVersion != "1" {
		t.Fatalf("a/slow at version %s while its GET is held", s.ResourceVersion)
	}
	close(g.release)
	waitFor(t, n, func() bool {
		s, ok := storedSecret(st, "a", "slow")
		return ok && s.ResourceVersion == "2"
	}, "slow Secret stored once its GET returns")
}

// A Secret queued many times while a worker reconciles it is reconciled once more, not once
// per enqueue.
func TestSecretEnqueueDeduplicated(t *testing.T) {
	cs := newClients(secret("a", "x", corev1.SecretTypeOpaque, nil), tlsIngress("a", "ing", "x"))
	g := newGatedGetter("x")
	g.mangle = true
	c, _, _, _ := startControllerWith(t, cs, Options{}, g.install)
	before := g.count("x")
	if before == 0 {
		t.Fatal("referenced Secret a/x not GOT at startup")
	}
	ref := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "x"}
	g.armed.Store(true)
	c.enqueueSecret(ref)
	waitEntered(t, g)
	for range 50 {
		c.enqueueSecret(ref)
	}
	if l := c.queue.Len(); l != 0 {
		t.Errorf("queue length %d while a/x is being reconciled, want 0 (held back until Done)", l)
	}
	close(g.release)
	waitUntil(t, func() bool { return c.pending.empty() && c.queue.Len() == 0 }, "queue drained")
	if got := g.count("x") - before; got != 2 {
		t.Errorf("%d GETs of a/x after 51 enqueues during one reconcile, want 2", got)
	}
}

// Shutdown stops the Secret workers, even one whose GET hangs, and leaves no goroutine of the
// controller, the work queue or the informers behind.
func TestSecretWorkersShutdown(t *testing.T) {
	cs := newClients(secret("a", "x", corev1.SecretTypeOpaque, nil), tlsIngress("a", "ing", "x"))
	g := newGatedGetter("x")
	g.mangle = true // so that reconciling a/x again GETs it
	c, _, _, cancel := startControllerWith(t, cs, Options{}, g.install)
	g.armed.Store(true)
	c.enqueueSecret(store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "x"})
	waitEntered(t, g)
	cancel()
	done := make(chan struct{})
	go func() { c.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return with a GET in flight")
	}
	c.enqueueSecret(store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "y"}) // after shutdown: ignored
	var left string
	ok := func() bool { left = leakedGoroutines(); return left == "" }
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if !waitSynced(ctx, []cache.InformerSynced{ok}) {
		t.Fatalf("goroutines left after Shutdown:\n%s", left)
	}
}

// leakedGoroutines returns the stacks of the goroutines still running controller, work queue
// or informer code.
func leakedGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "TestSecretWorkersShutdown") || strings.Contains(g, "leakedGoroutines") {
			continue
		}
		for _, marker := range []string{"kongsync/informer.", "client-go/util/workqueue.", "client-go/tools/cache."} {
			if strings.Contains(g, marker) {
				out = append(out, g)
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// A Secret queued again while a worker reconciles it stays pending until the reconcile after;
// a retry (not pending) clears nothing; wait returns once the last pending Secret is done.
func TestPendingSet(t *testing.T) {
	a := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "a"}
	b := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "b"}
	p := newPendingSet()
	p.add(a)
	g := p.begin(a)
	p.add(a) // an event during the reconcile
	p.end(a, g)
	if p.empty() {
		t.Fatal("a cleared although queued again during its reconcile")
	}
	p.end(a, 0) // a retry's reconcile
	if p.empty() {
		t.Fatal("a cleared by a retry")
	}
	p.add(b)
	done := make(chan bool)
	go func() { done <- p.wait(context.Background()) }()
	p.end(a, p.begin(a))
	select {
	case <-done:
		t.Fatal("wait returned while b is pending")
	default:
	}
	p.end(b, p.begin(b))
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("wait reported failure")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait did not return once the set was empty")
	}
	p.add(a)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p.wait(ctx) {
		t.Error("wait reported empty after ctx ended with a pending")
	}
}

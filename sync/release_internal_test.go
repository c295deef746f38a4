package sync

import (
	"fmt"
	"testing"
	"time"

	"github.com/blang/semver/v4"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// releasable gives a rejected object its chance again after a change in its namespace (itself
// included), in a namespace it names, or of a cluster-scoped object, and after an EndpointSlice
// change in its namespace only when it is a Service; never after a change elsewhere.
func TestReleasable(t *testing.T) {
	meta := func(ns, name, rv string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}
	}
	svc := func(ns, name, rv string) store.Object { return &corev1.Service{ObjectMeta: meta(ns, name, rv)} }
	slice := func(ns, name, rv string) store.Object {
		m := meta(ns, name, rv)
		m.Labels = map[string]string{discoveryv1.LabelServiceName: "svc"}
		return &discoveryv1.EndpointSlice{ObjectMeta: m}
	}
	gwNS, backendNS := gatewayv1.Namespace("g"), gatewayv1.Namespace("b")
	svcKind := gatewayv1.Kind("Service")
	route := &gatewayv1.HTTPRoute{ObjectMeta: meta("r", "r", "1"), Spec: gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &gwNS}}},
		Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
			BackendObjectReference: gatewayv1.BackendObjectReference{Kind: &svcKind, Name: "be", Namespace: &backendNS}}}}}}}}
	base := []store.Object{svc("a", "svc", "1"), svc("a", "other", "1"), svc("b", "be", "1"), svc("c", "far", "1"),
		&configurationv1.KongPlugin{ObjectMeta: meta("a", "p", "1"), PluginFields: configurationv1.PluginFields{PluginName: "key-auth"}},
		&networkingv1.IngressClass{ObjectMeta: meta("", "kong", "1")},
		&gatewayv1.Gateway{ObjectMeta: meta("g", "gw", "1")}, slice("a", "svc-1", "1"), route}
	broken := []store.Ref{{Kind: store.KindService, Namespace: "a", Name: "svc"},
		{Kind: store.KindKongPlugin, Namespace: "a", Name: "p"}, {Kind: store.KindHTTPRoute, Namespace: "r", Name: "r"}}
	for _, tc := range []struct {
		name   string
		change store.Object
		del    *store.Ref
		want   string
	}{
		{"nothing", nil, nil, "[]"},
		{"another namespace", svc("c", "far", "2"), nil, "[]"},
		{"one of them", svc("a", "svc", "2"), nil, "[KongPlugin a/p Service a/svc]"},
		{"one of them deleted", nil, &broken[1], "[KongPlugin a/p Service a/svc]"},
		{"their namespace", svc("a", "other", "2"), nil, "[KongPlugin a/p Service a/svc]"},
		{"cluster-scoped", &networkingv1.IngressClass{ObjectMeta: meta("", "kong", "2")}, nil, "[HTTPRoute r/r KongPlugin a/p Service a/svc]"},
		{"an EndpointSlice", slice("a", "svc-1", "2"), nil, "[Service a/svc]"},
		{"a route's parent", &gatewayv1.Gateway{ObjectMeta: meta("g", "gw", "2")}, nil, "[HTTPRoute r/r]"},
		{"a route's backend", svc("b", "be", "2"), nil, "[HTTPRoute r/r]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := store.New()
			for _, o := range base {
				if _, err := st.Upsert(o); err != nil {
					t.Fatal(err)
				}
			}
			prev := st.Snapshot()
			rejected := map[store.Ref]store.Object{}
			for _, r := range broken {
				rejected[r], _ = prev.Get(r)
			}
			if tc.change != nil {
				if _, err := st.Upsert(tc.change); err != nil {
					t.Fatal(err)
				}
			}
			if tc.del != nil {
				st.Delete(*tc.del)
			}
			if got := fmt.Sprint(releasable(rejected, sortedRefs(rejected), prev, st.Snapshot())); got != tc.want {
				t.Errorf("released %s, want %s", got, tc.want)
			}
		})
	}
}

// A rejected object's retries are held: base·2^(n-1) after its n-th rejection in a row, capped;
// a change during the hold marks it pending, and it is included when the hold ends, with no
// further change; a deleted object is let go at once; a rejection long after the last starts
// from the base again.
func TestRetryHolds(t *testing.T) {
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 30: 10 * time.Second} {
		if got := retryHold(time.Second, 10*time.Second, n); got != want {
			t.Errorf("hold after rejection %d: %s, want %s", n, got, want)
		}
	}
	st := store.New()
	bad := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "bad", ResourceVersion: "1"}}
	other := func(rv string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "other", ResourceVersion: rv}}
	}
	for _, o := range []store.Object{bad, other("1")} {
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	ref := store.Ref{Kind: store.KindService, Namespace: "a", Name: "bad"}
	l := holdsLoop(Config{RetryRejectedBase: time.Second, RetryRejectedMax: 10 * time.Second})
	l.broken[ref] = bad
	kong := kongKey(l.KongVersion(), l.RouterFlavor())
	t0 := time.Unix(1000, 0)
	l.builtSnap = st.Snapshot()
	l.noteRejected(ref, t0, kong)
	if _, err := st.Upsert(other("2")); err != nil {
		t.Fatal(err)
	}
	cured := st.Snapshot()
	if got := l.toRelease(cured, t0.Add(500*time.Millisecond), true); len(got) != 0 || !l.retries[ref].pending {
		t.Fatalf("during the hold: released %v, pending %v", got, l.retries[ref].pending)
	}
	l.builtSnap = cured // a build went out without it
	if at := l.nextRetry(); !at.Equal(t0.Add(time.Second)) {
		t.Errorf("next retry at %s, want the hold's end", at)
	}
	if got := l.toRelease(cured, t0.Add(time.Second), true); len(got) != 1 {
		t.Errorf("at the hold's end, with no further change: released %v", got)
	}
	l.noteRejected(ref, t0.Add(time.Second), kong) // refused again: the second hold is 2 s
	if h := l.retries[ref].notBefore.Sub(t0.Add(time.Second)); h != 2*time.Second {
		t.Errorf("second hold %s", h)
	}
	l.noteRejected(ref, t0.Add(time.Minute), kong) // long after: from the base again
	if st := l.retries[ref]; st.n != 1 || st.notBefore.Sub(t0.Add(time.Minute)) != time.Second {
		t.Errorf("a rejection long after the last: %+v", st)
	}
	upgraded := semver.MustParse("3.10.0")
	l.target.Store(&upgraded) // another Kong: the rejection may not hold, no store change needed
	if got := l.toRelease(cured, t0.Add(time.Minute), true); len(got) != 0 || !l.retries[ref].pending {
		t.Errorf("Kong upgraded during the hold: released %v, pending %v", got, l.retries[ref].pending)
	}
	if got := l.toRelease(cured, t0.Add(time.Minute+time.Second), true); len(got) != 1 {
		t.Errorf("Kong upgraded, after the hold: released %v", got)
	}
	st.Delete(ref)
	if got := l.toRelease(st.Snapshot(), t0.Add(time.Minute), true); len(got) != 1 {
		t.Errorf("deleted during its hold: released %v", got)
	}
}

// Deciding what to retry is linear in the objects and in those rejected (a tenant controls
// both): n Services in 100 namespaces, all rejected a minute ago, one changed; the decision
// (pruning the holds, releasing, the next retry) is timed, not the setup.
func BenchmarkReleaseBroken(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("rejected=%d", n), func(b *testing.B) {
			st := store.New()
			refs := make([]store.Ref, n)
			for i := range n {
				o := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i%100),
					Name: fmt.Sprintf("svc-%d", i), ResourceVersion: "1"}}
				if _, err := st.Upsert(o); err != nil {
					b.Fatal(err)
				}
				refs[i] = store.Ref{Kind: store.KindService, Namespace: o.Namespace, Name: o.Name}
			}
			prev := st.Snapshot()
			if _, err := st.Upsert(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns-7", Name: "svc-7", ResourceVersion: "2"}}); err != nil {
				b.Fatal(err)
			}
			cur := st.Snapshot()
			now := time.Unix(1000, 0)
			for range b.N {
				b.StopTimer()
				l := holdsLoop(Config{RetryRejectedBase: time.Second, RetryRejectedMax: 10 * time.Second, Now: func() time.Time { return now }})
				l.builtSnap = prev
				kong := kongKey(l.KongVersion(), l.RouterFlavor())
				for _, r := range refs {
					l.broken[r], _ = prev.Get(r)
					l.noteRejected(r, now.Add(-time.Minute), kong)
				}
				b.StartTimer()
				l.pruneRetries(now)
				if !l.releaseBroken(cur) || len(l.broken) != n-n/100 {
					b.Fatalf("%d left out", len(l.broken))
				}
				l.nextRetry()
			}
		})
	}
}

// holdsLoop is a Loop with only what the holds read: no replicas, no Run.
func holdsLoop(cfg Config) *Loop {
	l := &Loop{cfg: cfg, broken: map[store.Ref]store.Object{}, retries: map[store.Ref]*retryState{}}
	v := translator.DefaultKongVersion
	l.target.Store(&v)
	return l
}

//go:build integration

package integration

import (
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	kongsync "github.com/kongsync/kongsync/sync"
)

// identityHeader tells the doubles which kongsync posted.
const identityHeader = "X-Kongsync-Identity"

// adminService creates Service kong-admin in ns with one EndpointSlice per double (each
// double listens on its own port), as Kong's Pods behind --kong-admin-svc.
func adminService(t *testing.T, ns string, doubles ...*kongdouble.Server) {
	t.Helper()
	ctx := ctxT(t)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kong-admin"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "admin", Port: 8001}}}}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, d := range doubles {
		host, p, _ := net.SplitHostPort(d.URL()[len("http://"):])
		port, _ := strconv.Atoi(p)
		slice := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: "kong-admin-" + strconv.Itoa(i), Labels: map[string]string{discoveryv1.LabelServiceName: "kong-admin"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{host}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
			Ports:       []discoveryv1.EndpointPort{{Name: ptr("admin"), Port: ptr(int32(port))}},
		}
		if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// startElected runs a kongsync that discovers the doubles through kong-admin (so only the
// leader pushes), signing its requests with its name. led receives when it starts leading.
func startElected(t *testing.T, name, ns string, obs *observer, led chan<- time.Time) *instance {
	return startKongsync(t, name, ns, nil, func(c *runner.Config) {
		c.KongAdminSvc = ns + "/kong-admin"
		c.KongAdminSvcPortNames = []string{"admin"}
		c.KongAdminHeaders = http.Header{identityHeader: {name}}
		c.Hooks.Observe = obs.observe
		c.Hooks.Leading = func(leading bool) {
			if leading {
				led <- time.Now()
			}
		}
	})
}

// postsBy counts the POST /config each double got from each kongsync.
func postsBy(doubles ...*kongdouble.Server) map[string]int {
	out := map[string]int{}
	for _, d := range doubles {
		for _, p := range d.Posts() {
			out[p.Header.Get(identityHeader)]++
		}
	}
	return out
}

func waitLeading(t *testing.T, name string, led <-chan time.Time) time.Time {
	t.Helper()
	select {
	case at := <-led:
		return at
	case <-time.After(waitTimeout):
		t.Fatalf("kongsync %s never led", name)
	}
	return time.Time{}
}

// --kong-admin-svc: two kongsyncs see the same two Kongs; only the Lease holder pushes, the
// other translates and probes. When the leader goes, the other takes the Lease and pushes
// what changed meanwhile at once; a failover with nothing changed pushes nothing.
func TestOnlyLeaderPushesWithAdminService(t *testing.T) {
	ip := hostIP(t)
	ns := newNamespace(t)
	k1 := kongdouble.New(kongdouble.Options{Addr: ip + ":0"})
	t.Cleanup(k1.Close)
	k2 := kongdouble.New(kongdouble.Options{Addr: ip + ":0"})
	t.Cleanup(k2.Close)
	adminService(t, ns, k1, k2)
	app{ns: ns, name: "web", host: "one.example.com"}.create(t)
	both := func(host string) func() bool {
		return func() bool { return hasHost(k1, host) && hasHost(k2, host) }
	}

	obsA, obsB := newObserver(), newObserver()
	ledA, ledB := make(chan time.Time, 4), make(chan time.Time, 4)
	a := startElected(t, "a", ns, obsA, ledA)
	waitLeading(t, "a", ledA)
	waitDouble(t, k1, "a's config on both Kongs", both("one.example.com"))
	waitDouble(t, k2, "a's config on both Kongs", both("one.example.com"))
	b := startElected(t, "b", ns, obsB, ledB)
	b.waitReady(t) // a follower is ready with its caches; its loop latches once Kong holds its config

	// A change while both run: a pushes it; b translates the same and sees it in Kong.
	from := obsB.len()
	app{ns: ns, name: "two", host: "two.example.com"}.create(t)
	waitDouble(t, k1, "the change on both Kongs", both("two.example.com"))
	want := k1.Hash()
	obsB.wait(t, "b's build of the change", from, 1, func(e kongsync.Event) bool { return e.Type == kongsync.EventBuild && e.Hash == want })
	obsB.wait(t, "b's probes seeing it in both Kongs", from, 2, func(e kongsync.Event) bool { return e.Type == kongsync.EventProbe && e.Hash == want })
	if by := postsBy(k1, k2); by["b"] != 0 || by["a"] < 2 {
		t.Fatalf("POSTs by kongsync: %v; want only a's", by)
	}
	if n, _ := obsB.count(0, func(e kongsync.Event) bool { return e.Type == kongsync.EventPush }); n != 0 {
		t.Fatalf("the follower pushed %d times", n)
	}

	// The leader goes (its Lease released, as at a rollout); a change made meanwhile waits for b.
	stopped := time.Now()
	a.stop()
	app{ns: ns, name: "three", host: "three.example.com"}.create(t)
	led := waitLeading(t, "b", ledB)
	// A double loads a config before it records the POST, so wait for the records themselves.
	postedByB := func(d *kongdouble.Server) func() bool {
		return func() bool { return postsBy(d)["b"] > 0 && hasHost(d, "three.example.com") }
	}
	waitDouble(t, k1, "b's push after taking over", postedByB(k1))
	waitDouble(t, k2, "b's push after taking over", postedByB(k2))
	first := time.Time{}
	for _, d := range []*kongdouble.Server{k1, k2} {
		for _, p := range d.Posts() {
			if p.Header.Get(identityHeader) == "b" && (first.IsZero() || p.Start.Before(first)) {
				first = p.Start
			}
		}
	}
	t.Logf("leader stopped → b leads after %v; b's first POST %v after it led (%v after the leader stopped)",
		led.Sub(stopped).Round(time.Millisecond), first.Sub(led).Round(100*time.Microsecond), first.Sub(stopped).Round(time.Millisecond))
	if by := postsBy(k1, k2); by["b"] < 2 {
		t.Errorf("POSTs by kongsync after the takeover: %v", by)
	}

	// A failover with nothing changed pushes nothing: c follows b, b goes, c leads, probes both
	// Kongs, finds them holding its config, and posts nothing.
	obsC, ledC := newObserver(), make(chan time.Time, 4)
	c := startElected(t, "c", ns, obsC, ledC)
	c.waitReady(t)
	want = k1.Hash()
	b.stop()
	led = waitLeading(t, "c", ledC)
	from = obsC.len()
	obsC.wait(t, "c's probes after it led, seeing its config in both Kongs", from, 2,
		func(e kongsync.Event) bool { return e.Type == kongsync.EventProbe && e.Hash == want })
	if by := postsBy(k1, k2); by["c"] != 0 {
		t.Errorf("a failover with nothing changed pushed: POSTs %v", by)
	}
	if n, _ := obsC.count(0, func(e kongsync.Event) bool { return e.Type == kongsync.EventPush }); n != 0 {
		t.Errorf("the new leader pushed %d times with nothing changed", n)
	}
	t.Logf("unchanged failover: c probed both Kongs holding its config %v after it led; no POST", time.Since(led).Round(time.Millisecond))
}

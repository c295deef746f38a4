//go:build integration

package integration

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// Create → config arrives; a burst of updates → one push with the final state; delete → gone.
func TestCreateUpdateDelete(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	t0 := time.Now()
	in := startKongsync(t, "a", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		// A burst must fit in one window even on a loaded CI machine.
		c.SyncWindow, c.SyncMaxDelay = 300*time.Millisecond, 3*time.Second
	})
	in.waitReady(t) // the empty config is pushed (or found) first
	a := app{ns: ns, name: "web", host: "web.example.com"}
	a.create(t)
	waitDouble(t, kong, "the Ingress's route", func() bool { return hasHost(kong, "web.example.com") })
	t.Logf("create → config in Kong: %s after start", time.Since(t0).Round(time.Millisecond))

	ctx := ctxT(t)
	before := len(kong.Posts())
	ing, err := admin.NetworkingV1().Ingresses(ns).Get(ctx, a.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{"b1.example.com", "b2.example.com", "b3.example.com", "final.example.com"}
	tb := time.Now()
	for _, h := range hosts {
		ing.Spec.Rules[0].Host = h
		if ing, err = admin.NetworkingV1().Ingresses(ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("burst of %d updates took %s", len(hosts), time.Since(tb).Round(time.Millisecond))
	waitDouble(t, kong, "the final host", func() bool { return hasHost(kong, "final.example.com") })
	if err := kong.WaitPosts(ctx, before+1); err != nil { // loaded before recorded
		t.Fatal(err)
	}
	if got := len(kong.Posts()) - before; got != 1 {
		t.Errorf("a burst of %d updates made %d pushes, want 1", len(hosts), got)
	}
	for _, h := range hosts[:3] {
		if hasHost(kong, h) {
			t.Errorf("stale host %s still in Kong", h)
		}
	}

	if err := admin.NetworkingV1().Ingresses(ns).Delete(ctx, a.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the route to disappear", func() bool { return len(routeHosts(kong)) == 0 })
}

// Two Kong replicas both receive the same configuration.
func TestTwoReplicasConverge(t *testing.T) {
	ns := newNamespace(t)
	k1, k2 := newDouble(t), newDouble(t)
	startKongsync(t, "a", ns, []*kongdouble.Server{k1, k2}, nil)
	app{ns: ns, name: "web", host: "two.example.com"}.create(t)
	for i, k := range []*kongdouble.Server{k1, k2} {
		waitDouble(t, k, "replica config", func() bool { return hasHost(k, "two.example.com") })
		t.Logf("replica %d holds hash %s", i, k.Hash())
	}
	if k1.Hash() != k2.Hash() || k1.Config() != k2.Config() {
		t.Errorf("replicas differ: %s vs %s", k1.Hash(), k2.Hash())
	}
}

// A Kong that restarts empty gets the configuration again without any cluster change.
func TestKongRestartedEmptyIsRepushed(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	startKongsync(t, "a", ns, []*kongdouble.Server{kong}, nil)
	app{ns: ns, name: "web", host: "restart.example.com"}.create(t)
	waitDouble(t, kong, "first config", func() bool { return hasHost(kong, "restart.example.com") })
	want := kong.Hash()
	tr := time.Now()
	kong.Restart()
	if kong.Hash() != kongdouble.EmptyHash {
		t.Fatalf("restarted double reports %s, want the empty hash", kong.Hash())
	}
	if err := kong.WaitHash(ctxT(t), want); err != nil {
		t.Fatalf("config not re-pushed after restart: %v", err)
	}
	t.Logf("re-pushed %s after the restart", time.Since(tr).Round(time.Millisecond))
}

// Kong refuses one Ingress: a Warning Event lands on that Ingress and the other Ingress still
// reaches Kong.
func TestKongRejectsOneObject(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	startKongsync(t, "a", ns, []*kongdouble.Server{kong}, nil)
	good := app{ns: ns, name: "good", host: "good.example.com"}
	good.create(t)
	waitDouble(t, kong, "the good Ingress", func() bool { return hasHost(kong, "good.example.com") })
	bad := app{ns: ns, name: "bad", host: "bad.example.com"}
	rejectNextPost(kong, ns, "bad")
	ctx := ctxT(t)
	if _, err := admin.CoreV1().Services(ns).Create(ctx, bad.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, bad.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, ns, "Ingress", "bad", "KongConfigurationApplyFailed")
	t.Logf("event: %s: %s", ev.Reason, ev.Message)
	if ev.Type != "Warning" {
		t.Errorf("event type %s, want Warning", ev.Type)
	}
	waitDouble(t, kong, "the good Ingress without the bad one", func() bool {
		return hasHost(kong, "good.example.com") && !hasHost(kong, "bad.example.com")
	})
}

// A kongsync restarted against an unchanged cluster finds Kong up to date and posts nothing.
func TestRestartUnchangedClusterNoPush(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	first := startKongsync(t, "first", ns, []*kongdouble.Server{kong}, nil)
	app{ns: ns, name: "web", host: "stable.example.com"}.create(t)
	waitDouble(t, kong, "first config", func() bool { return hasHost(kong, "stable.example.com") })
	first.waitReady(t)
	first.stop()
	kong.ResetRequests()
	second := startKongsync(t, "second", ns, []*kongdouble.Server{kong}, nil)
	second.waitReady(t) // ready = its GET /status found the hash it would have pushed
	if posts := kong.Posts(); len(posts) != 0 {
		t.Errorf("restarted kongsync posted %d times to an up-to-date Kong", len(posts))
	}
	if len(kong.Requests()) == 0 {
		t.Error("restarted kongsync never asked Kong for its status")
	}
}

// An object the translator cannot use gets a KongConfigurationTranslationFailed Warning Event;
// the rest of the configuration still reaches Kong.
func TestTranslationProblemEvent(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	startKongsync(t, "a", ns, []*kongdouble.Server{kong}, nil)
	app{ns: ns, name: "good", host: "good.example.com"}.create(t)
	broken := app{ns: ns, name: "broken", host: "broken.example.com"}
	ctx := ctxT(t)
	if _, err := admin.CoreV1().Services(ns).Create(ctx, broken.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, broken.ingress("/~/broken[regex"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, ns, "Ingress", "broken", "KongConfigurationTranslationFailed")
	t.Logf("event: %s", ev.Message)
	waitDouble(t, kong, "the good Ingress", func() bool { return hasHost(kong, "good.example.com") })
}

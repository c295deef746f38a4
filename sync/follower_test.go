package sync

import (
	"strings"
	"testing"
	"time"
)

// probesAfterBuild reports whether the replica was probed at least n times after the loop's
// last build: its worker has then decided at least once, knowing what Kong holds, whether to
// push the build.
func (e *env) probesAfterBuild(n int) bool {
	seen, built := 0, false
	for _, ev := range e.ev.all() {
		switch ev.Type {
		case EventBuild:
			seen, built = 0, true
		case EventProbe:
			seen++
		}
	}
	return built && seen >= n
}

// A follower translates and probes but posts nothing until it leads; then it posts at once,
// and stops posting when it no longer leads.
func TestFollowerPostsOnlyWhileLeading(t *testing.T) {
	e := newEnv(t, envOpts{cfg: func(c *Config) { c.Follower = true }})
	e.upsert("a", nil)
	e.wait("two probes after the first build", wait, func() bool { return e.probesAfterBuild(2) })
	if n := len(e.kongs[0].Posts()); n != 0 || e.loop.Leading() || e.loop.Ready() {
		t.Fatalf("follower: %d POSTs, leading %v, ready %v; want none, false, false", n, e.loop.Leading(), e.loop.Ready())
	}
	start := time.Now()
	e.loop.Lead(true)
	e.wait("the new leader's POST", wait, func() bool { return len(e.kongs[0].Posts()) == 1 })
	t.Logf("elected → POST began and ended within %v", time.Since(start))
	e.converged(wait)

	e.loop.Lead(false)
	e.upsert("b", nil)
	e.wait("two probes after the build of b", wait, func() bool { return e.probesAfterBuild(2) })
	if n := len(e.kongs[0].Posts()); n != 1 {
		t.Fatalf("%d POSTs after leadership was lost, want still 1", n)
	}
	e.loop.Lead(true)
	e.converged(wait)
	if got := serviceNames(e.kongs[0]); len(got) != 2 {
		t.Errorf("after leading again Kong holds %v", got)
	}
}

// A follower whose replica already holds its config (the leader pushed the same translation)
// becomes ready without posting, and posts nothing when elected.
func TestFollowerSeesLeadersConfig(t *testing.T) {
	leader := newEnv(t, envOpts{})
	leader.upsert("a", nil)
	want := leader.converged(wait)
	e := newEnv(t, envOpts{replicas: -1, cfg: func(c *Config) {
		c.Follower = true
		c.Replicas = []string{leader.kongs[0].URL()}
		c.Source = leader.store
	}})
	e.kongs = leader.kongs
	select {
	case <-e.loop.ReadyC():
	case <-time.After(wait):
		t.Fatalf("follower not ready although Kong holds its config: %+v", e.loop.Replicas())
	}
	posts := len(leader.kongs[0].Posts())
	e.loop.Lead(true)
	e.loop.Notify()
	e.nextEvent(EventProbe, wait)
	if e.loop.DesiredHash() != want || len(leader.kongs[0].Posts()) != posts {
		t.Errorf("elected follower: desired %s (leader's %s), %d new POSTs", e.loop.DesiredHash(), want,
			len(leader.kongs[0].Posts())-posts)
	}
}

// Dumps keep the last config a replica took and the last one it refused, with Kong's body.
func TestDumpsKeepLastSuccessAndFailure(t *testing.T) {
	d := &Dumps{}
	e := newEnv(t, envOpts{cfg: func(c *Config) { c.Dumps = d }})
	if _, ok := d.LastSuccessful(); ok {
		t.Fatal("a success before any push")
	}
	e.upsert("good", nil)
	want := e.converged(wait)
	ok, found := d.LastSuccessful()
	if !found || ok.Hash != want || ok.Replica != e.kongs[0].URL() || ok.Document == nil || ok.Config == nil || ok.ErrorBody != nil {
		t.Fatalf("last success %+v, want hash %s from %s", ok, want, e.kongs[0].URL())
	}
	e.upsert("bad", map[string]string{annPort: "70000"})
	e.wait("a failure recorded", wait, func() bool { _, f := d.Counts(); return f > 0 })
	e.converged(wait)
	fail, found := d.LastFailed()
	if !found || fail.Status != 400 || fail.Result != ResultRejected || !strings.Contains(string(fail.ErrorBody), "flattened_errors") ||
		!strings.Contains(fail.Error, "HTTP 400") {
		t.Fatalf("last failure %+v", fail)
	}
	if len(fail.Document.Services) != 2 {
		t.Errorf("the failed config has %d services, want good and bad", len(fail.Document.Services))
	}
	if ok, _ := d.LastSuccessful(); ok.Hash != e.loop.DesiredHash() || len(ok.Document.Services) != 1 {
		t.Errorf("last success after the rejection: hash %s (desired %s), %d services", ok.Hash, e.loop.DesiredHash(), len(ok.Document.Services))
	}
}

package sync

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// A 400 that names no Kubernetes object cannot be worked around: it is reported, Kong keeps its
// config, and the same config is not posted again.
func TestUnmappedRejectionIsNotRetried(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.upsert("a", nil)
	prev := e.converged(wait)
	e.upsert("untagged", map[string]string{annPort: "-1", annNoTags: "x"})
	e.wait("a rejection", wait, func() bool { return e.loop.Stats().Rejected == 1 })
	e.nextEvent(EventProbe, wait)
	e.nextEvent(EventProbe, wait)
	if st := e.loop.Stats(); st.Rejected != 1 || st.Pushes != 2 {
		t.Errorf("rejected config posted again: %+v", st)
	}
	if document.Hash([]byte(e.kongs[0].Config())) != prev {
		t.Error("Kong lost its previous config")
	}
	_, rej, failures := e.rep.snapshot()
	if len(rej) != 0 || len(failures) != 1 || failures[0] != ResultRejected {
		t.Errorf("rejections %v, failures %v", rej, failures)
	}
}

// A Kong that restarts empty while the latest config is refused (413) gets the last config it
// took back, rather than staying empty.
func TestRestartWhileRejectedRestoresLastGood(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.upsert("a", nil)
	good := e.converged(wait)
	e.kongs[0].AddFault(kongdouble.Fault{Status: http.StatusRequestEntityTooLarge, Times: 1})
	e.upsert("b", nil)
	e.wait("a 413", wait, func() bool { return e.loop.Stats().TooLarge == 1 })
	e.kongs[0].Restart()
	e.wait("the last good config back in Kong", wait, func() bool {
		return e.kongs[0].Config() != "" && document.Hash([]byte(e.kongs[0].Config())) == good
	})
}

// A translator panic is contained: reported, Kong keeps its config, the loop keeps running.
func TestTranslatorPanicKeepsConfig(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.upsert("a", nil)
	prev := e.converged(wait)
	e.upsert("boom", map[string]string{annPanic: "x"})
	e.wait("the failure report", wait, func() bool {
		_, _, f := e.rep.snapshot()
		return len(f) == 1 && f[0] == ResultFailed
	})
	if e.loop.DesiredHash() != prev || document.Hash([]byte(e.kongs[0].Config())) != prev {
		t.Fatal("config changed after a translator panic")
	}
	e.upsert("boom", nil)
	if got := e.converged(wait); got == prev {
		t.Error("loop did not recover after the panic")
	}
}

// Kong unreachable for a while, then back: with the default timings (1 s probe, backoff capped
// at 2 s) the config arrives within 2 s of the port opening again.
func TestUnreachableThenBackWithinTwoSeconds(t *testing.T) {
	e := newEnv(t, envOpts{cfg: func(c *Config) { c.Replica = ReplicaOptions{} }})
	e.upsert("a", nil)
	e.converged(wait)
	e.kongs[0].Stop()
	e.upsert("b", nil)
	e.wait("a failed push and three failed probes", wait, func() bool {
		st := e.loop.Stats()
		return st.NetworkErrors >= 1 && st.ProbeFailures >= 3
	})
	if err := e.kongs[0].Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e.converged(wait)
	t.Logf("converged %v after Kong came back", time.Since(start))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("converged %v after Kong came back, want ≤ 2s", d)
	}
	_, _, failures := e.rep.snapshot()
	if len(failures) != 1 || failures[0] != ResultNetworkError {
		t.Errorf("want one report for the outage, got %v", failures)
	}
}

// A Kong that goes away while nothing changes is noticed by the probe alone: reported once for
// the whole outage (the controller turns that into an Event), however many probes fail.
func TestIdleOutageReportedOnce(t *testing.T) {
	e := newEnv(t, envOpts{cfg: func(c *Config) { c.Replica = ReplicaOptions{} }})
	e.upsert("a", nil)
	e.converged(wait)
	e.kongs[0].Stop()
	e.wait("three failed probes", wait, func() bool { return e.loop.Stats().ProbeFailures >= 3 })
	if _, _, failures := e.rep.snapshot(); len(failures) != 1 || failures[0] != ResultNetworkError {
		t.Errorf("want one network_error report for the outage, got %v", failures)
	}
	if err := e.kongs[0].Start(); err != nil {
		t.Fatal(err)
	}
	e.converged(wait)
}

// With default timings a single 500 is retried after the first backoff step (100–200 ms, with
// a /status check just before), not after a probe interval.
func TestRetryAfterServerErrorUsesBackoff(t *testing.T) {
	e := newEnv(t, envOpts{cfg: func(c *Config) { c.Replica = ReplicaOptions{} }})
	e.upsert("a", nil)
	e.converged(wait)
	e.kongs[0].SetNextResponse(http.StatusInternalServerError, "")
	e.upsert("b", nil)
	e.converged(wait)
	posts := e.kongs[0].Posts()
	failed, retry := posts[len(posts)-2], posts[len(posts)-1]
	gap := retry.Start.Sub(failed.End)
	t.Logf("retried %v after a 500", gap)
	if failed.Status != http.StatusInternalServerError || gap < 100*time.Millisecond || gap > 500*time.Millisecond {
		t.Errorf("status %d, retried after %v; want 500 then a retry 100–200 ms later", failed.Status, gap)
	}
}

// When Kong refuses the latest config and, after a restart, the previous one too (413 for
// both), the worker stops: no alternating between the two.
func TestBothConfigsRefusedDoesNotLoop(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.upsert("a", nil)
	e.converged(wait)
	e.kongs[0].AddFault(kongdouble.Fault{Status: http.StatusRequestEntityTooLarge})
	e.upsert("b", nil)
	e.wait("a 413", wait, func() bool { return e.loop.Stats().TooLarge == 1 })
	e.kongs[0].Restart()
	e.wait("the last good config refused too", wait, func() bool { return e.loop.Stats().TooLarge == 2 })
	for i := 0; i < 3; i++ {
		e.nextEvent(EventProbe, wait)
	}
	if n := e.loop.Stats().TooLarge; n != 2 {
		t.Errorf("%d posts refused with 413, want 2 (latest, then last good once)", n)
	}
}

// Two controllers pushing the same config to one slow Kong: the one that finds Kong loading gets
// 429, waits the Retry-After, and then sees in GET /status that its config is there: no second
// POST.
func TestSecondControllerWaitsForBusyKong(t *testing.T) {
	e := newEnv(t, envOpts{kong: kongdouble.Options{LoadTime: 500 * time.Millisecond}})
	e.upsert("a", nil)
	e.wait("Kong loading the first controller's config", wait, e.kongs[0].Loading)
	ev2 := newEvents()
	l2, err := New(Config{Source: e.store, Build: buildWith(fakeTranslate), Replicas: []string{e.kongs[0].URL()},
		Window: time.Millisecond, Observe: ev2.observe})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = l2.Run(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case <-l2.ReadyC():
	case <-time.After(wait):
		t.Fatalf("second controller never ready: %+v", l2.Replicas())
	}
	e.converged(wait)
	if st := l2.Stats(); st.Busy != 1 || st.Pushes != 1 {
		t.Errorf("second controller: busy %d (want 1), pushes %d (want 1): %+v", st.Busy, st.Pushes, st)
	}
}

// Metrics see translations, pushes, and (optional ProbeMetrics) whether a replica is reachable
// and in sync, which is all there is to see during an outage.
func TestMetricsObserveOutage(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.upsert("a", map[string]string{annProblem: "x"})
	e.upsert("b", nil)
	e.converged(wait)
	e.met.mu.Lock()
	last := e.met.translations[len(e.met.translations)-1]
	pushes := append([]Result(nil), e.met.pushes...)
	e.met.mu.Unlock()
	if last.Objects != 2 || last.Problems != 1 || last.ConfigBytes == 0 || len(pushes) == 0 || pushes[len(pushes)-1] != ResultAccepted {
		t.Fatalf("translation %+v, pushes %v", last, pushes)
	}
	e.wait("a probe seeing the replica in sync", wait, func() bool { return e.met.lastProbe() == "true/true" })
	e.kongs[0].Stop()
	e.wait("a probe seeing the replica down", wait, func() bool { return e.met.lastProbe() == "false/true" })
	e.upsert("c", nil)
	e.wait("a probe seeing it down and behind", wait, func() bool { return e.met.lastProbe() == "false/false" })
	if err := e.kongs[0].Start(); err != nil {
		t.Fatal(err)
	}
	e.converged(wait)
	e.wait("a probe seeing it back in sync", wait, func() bool { return e.met.lastProbe() == "true/true" })
}

package sync

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// churn upserts a new Service every 10 ms for d and returns when the last one was written.
func (e *env) churn(d time.Duration) time.Time {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		<-tick.C
		e.upsert(fmt.Sprintf("churn-%03d", i), nil)
	}
	return time.Now()
}

// loadShare is the share of [from, to] during which the double was answering a POST it took.
func loadShare(posts []kongdouble.Request, from, to time.Time) float64 {
	var busy time.Duration
	for _, p := range posts {
		s, e := p.Start, p.End
		if s.Before(from) {
			s = from
		}
		if e.After(to) {
			e = to
		}
		if e.After(s) {
			busy += e.Sub(s)
		}
	}
	return busy.Seconds() / to.Sub(from).Seconds()
}

// Kong takes 100 ms per load while the store changes every 10 ms for 1.5 s: each POST waits 4×
// the previous load after it ended (the 20 % default), so Kong loads about a fifth of the time
// instead of all of it; no POST finds Kong busy; the last change is in Kong within its bound;
// the holds show in Stats, ReplicaStatus and PacingMetrics; and a lone change after a quiet
// spell goes out at once, unpaced.
func TestPacedUnderChurn(t *testing.T) {
	const load = 100 * time.Millisecond
	e := newEnv(t, envOpts{kong: kongdouble.Options{LoadTime: load}})
	e.upsert("a", nil)
	e.converged(wait)
	k := e.kongs[0]
	from := len(k.Posts()) - 1 // the initial load holds the first change of the churn
	start := time.Now()
	end := e.churn(1500 * time.Millisecond)
	e.converged(wait)
	posts := k.Posts()[from:]
	for i, p := range posts {
		if p.Status != http.StatusCreated {
			t.Fatalf("POST %d answered %d, want every one taken (201)", i, p.Status)
		}
		if i > 0 && p.Start.Sub(posts[i-1].End) < 4*load {
			t.Errorf("POST %d started %v after the previous load ended, want ≥ %v", i, p.Start.Sub(posts[i-1].End), 4*load)
		}
	}
	last := posts[len(posts)-1]
	share := loadShare(posts, start, last.End)
	t.Logf("%d POSTs for %d builds; Kong loading %.0f%% of the time; last change in Kong %v after it was made",
		len(posts)-1, e.ev.count(EventBuild), 100*share, last.End.Sub(end).Round(time.Millisecond))
	if share > 0.25 {
		t.Errorf("Kong loading %.0f%% of the time, want ≤ 25%%", 100*share)
	}
	// The bound: the coalescing delay (MaxDelay, 100 ms, in this stream) + the load in flight
	// and its rest (load / budget) + the load itself, with 100 ms for the machine.
	if bound := 100*time.Millisecond + 5*load + load + 100*time.Millisecond; last.End.Sub(end) > bound {
		t.Errorf("last change in Kong %v after it was made, want ≤ %v", last.End.Sub(end), bound)
	}
	st, rs := e.loop.Stats(), e.loop.Replicas()[0]
	if st.Deferred == 0 || rs.Deferred != st.Deferred || int64(len(e.met.deferrals())) != st.Deferred {
		t.Errorf("deferred: Stats %d, replica %d, metrics %v", st.Deferred, rs.Deferred, e.met.deferrals())
	}
	for _, why := range e.met.deferrals() {
		if why != PaceLoadBudget {
			t.Errorf("deferred for %q, want %q", why, PaceLoadBudget)
		}
	}
	if want := time.Duration(len(posts)) * load; rs.KongLoadTime < want {
		t.Errorf("KongLoadTime %v, want ≥ %v", rs.KongLoadTime, want)
	}
	if ps := e.met.pushStatsList(); ps[len(ps)-1].LoadCost < load {
		t.Errorf("PushStats.LoadCost %v, want ≥ %v", ps[len(ps)-1].LoadCost, load)
	}

	// A lone change once the rest is over: posted one window after it, never held.
	time.Sleep(time.Until(e.loop.Replicas()[0].PacedUntil)) // the quiet spell, not an assertion
	n, held := len(k.Posts()), e.loop.Stats().Deferred
	t0 := time.Now()
	e.upsert("lone", nil)
	e.converged(wait)
	lone := k.Posts()[n]
	t.Logf("lone change posted %v after it was made", lone.Start.Sub(t0).Round(time.Millisecond))
	if e.loop.Stats().Deferred != held || lone.Start.Sub(t0) >= 4*load {
		t.Errorf("lone change held (%d deferrals before, %d after; posted %v after it)", held, e.loop.Stats().Deferred, lone.Start.Sub(t0))
	}
}

// Config.MinPushInterval (KIC's --proxy-sync-seconds): no two POSTs to a replica start closer
// than it, though the loads are too quick for the budget to hold anything back.
func TestMinPushIntervalSpacesPushes(t *testing.T) {
	const interval = 300 * time.Millisecond
	e := newEnv(t, envOpts{cfg: func(c *Config) { c.MinPushInterval = interval }})
	e.upsert("a", nil)
	e.converged(wait)
	k := e.kongs[0]
	from := len(k.Posts()) - 1
	end := e.churn(time.Second)
	e.converged(wait)
	posts := k.Posts()[from:]
	if len(posts) < 3 {
		t.Fatalf("%d POSTs in a second of churn, want several", len(posts))
	}
	for i := 1; i < len(posts); i++ {
		if gap := posts[i].Start.Sub(posts[i-1].Start); gap < interval {
			t.Errorf("POSTs %d and %d started %v apart, want ≥ %v", i-1, i, gap, interval)
		}
	}
	if d := e.met.deferrals(); len(d) == 0 || d[0] != PaceInterval {
		t.Errorf("deferrals %v, want %q", d, PaceInterval)
	}
	if late := posts[len(posts)-1].Start.Sub(end); late > 100*time.Millisecond+interval+100*time.Millisecond {
		t.Errorf("last change posted %v after it was made, want ≤ max delay + interval", late)
	}
}

// Pacing never delays a Kong restarted empty, nor the retry of a failed POST, however long the
// failure took: the backoff times retries.
func TestPacingExemptions(t *testing.T) {
	const load = 300 * time.Millisecond
	e := newEnv(t, envOpts{kong: kongdouble.Options{LoadTime: load}})
	e.upsert("a", nil)
	e.converged(wait)
	k := e.kongs[0]
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	held := k.Posts()[len(k.Posts())-1].End.Add(4 * load)
	n := len(k.Posts())
	k.Restart()
	if err := k.WaitPosts(ctx, n+1); err != nil {
		t.Fatal(err)
	}
	if p := k.Posts()[n]; !p.Start.Before(held) {
		t.Errorf("restarted Kong re-posted at %v, after the hold (%v): it was paced", p.Start, held)
	}
	e.converged(wait)

	k.SetLoadTime(0)
	k.AddFault(kongdouble.Fault{Status: http.StatusInternalServerError, Delay: load, Times: 1})
	e.upsert("b", nil)
	e.converged(wait)
	posts := k.Posts()
	failed, retry := posts[len(posts)-2], posts[len(posts)-1]
	if failed.Status != http.StatusInternalServerError || retry.Status != http.StatusCreated {
		t.Fatalf("statuses %d, %d; want 500 then 201", failed.Status, retry.Status)
	}
	// The backoff is 20–200 ms here; pacing the 300 ms failure would have waited 1.2 s.
	if gap := retry.Start.Sub(failed.End); gap >= 4*load {
		t.Errorf("retry %v after the failure, want the backoff's (< %v)", gap, 4*load)
	}
}

// The quiet path is as it was: with pacing on (the default budget) and Kong taking 50 ms per
// load, changes a quiet spell apart (longer than the 200 ms rest) are each posted one window
// (20 ms here) after they are made, none held.
func TestLoneChangesNotPaced(t *testing.T) {
	const load = 50 * time.Millisecond
	e := newEnv(t, envOpts{kong: kongdouble.Options{LoadTime: load}})
	e.upsert("a", nil)
	e.converged(wait)
	k := e.kongs[0]
	var worst time.Duration
	for i := 0; i < 10; i++ {
		time.Sleep(5*load + 20*time.Millisecond) // the quiet spell: a precondition, not an assertion
		n := len(k.Posts())
		t0 := time.Now()
		e.upsert(fmt.Sprintf("lone-%d", i), nil)
		e.converged(wait)
		worst = max(worst, k.Posts()[n].Start.Sub(t0))
	}
	t.Logf("10 lone changes: posted at most %v after they were made (window 20 ms)", worst.Round(time.Millisecond))
	if st := e.loop.Stats(); st.Deferred != 0 || worst > 20*time.Millisecond+50*time.Millisecond {
		t.Errorf("lone changes: %d held, the slowest posted %v after it was made; want none held, ≤ window + 50 ms", st.Deferred, worst)
	}
}

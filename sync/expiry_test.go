package sync

import (
	gosync "sync"
	"testing"
	"time"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

func TestExpiryWait(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name            string
		next, done, now time.Time
		wait            time.Duration
		ok              bool
	}{
		{"nothing expires", time.Time{}, time.Time{}, t0, 0, false},
		{"an hour ahead: just after its NotAfter", t0.Add(time.Hour), time.Time{}, t0, time.Hour + expirySlack, true},
		{"already past (a clock ahead of the translator's): at once", t0.Add(-time.Minute), time.Time{}, t0, 0, true},
		{"within the slack", t0, time.Time{}, t0.Add(expirySlack / 2), expirySlack / 2, true},
		{"its rebuild ran: never again", t0, t0, t0.Add(time.Hour), 0, false},
		{"an earlier one's rebuild ran", t0.Add(time.Hour), t0, t0.Add(time.Minute), time.Hour - time.Minute + expirySlack, true},
	} {
		wait, ok := expiryWait(tc.next, tc.done, tc.now)
		if wait != tc.wait || ok != tc.ok {
			t.Errorf("%s: got (%v, %v), want (%v, %v)", tc.name, wait, ok, tc.wait, tc.ok)
		}
	}
}

func TestExpiryTimerDecidesOnChangeOnly(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newExpiryTimer()
	defer e.stop()
	if at, changed := e.update(time.Time{}, t0); changed || !at.IsZero() || e.C != nil {
		t.Fatalf("nothing to expire: (%v, %v), C %v", at, changed, e.C)
	}
	next := t0.Add(time.Hour)
	if at, changed := e.update(next, t0); !changed || !at.Equal(next.Add(expirySlack)) || e.C == nil {
		t.Fatalf("scheduled (%v, %v), want %v", at, changed, next.Add(expirySlack))
	}
	if _, changed := e.update(next, t0.Add(time.Minute)); changed {
		t.Fatal("the same expiry decided again")
	}
	e.fired()
	if at, changed := e.update(next, t0.Add(2*time.Hour)); e.C != nil || !at.IsZero() || changed {
		t.Fatalf("after its rebuild the same expiry: (%v, %v), C %v", at, changed, e.C)
	}
	if at, changed := e.update(time.Time{}, t0.Add(2*time.Hour)); !changed || !at.IsZero() || e.C != nil {
		t.Fatalf("the certificate left: (%v, %v)", at, changed)
	}
}

// expiring is a fake translation whose configuration holds a CA certificate expiring at the
// instant expires returns (zero: none), as translator.Result.NextExpiry reports it.
type expiring struct {
	mu      gosync.Mutex
	expires func(build int) time.Time
	builds  int
}

func (x *expiring) translate(snap *store.Snapshot) translator.Result {
	res := fakeTranslate(snap)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.builds++
	res.NextExpiry = x.expires(x.builds)
	return res
}

// The loop builds again, with no event, once a CA certificate of its configuration expires, by
// its injected clock: here the clock is already past it, so it does at once, and once only.
func TestLoopRebuildsAtExpiry(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter := now.Add(-time.Minute) // the translator's clock was a little behind the loop's
	for _, tc := range []struct {
		name   string
		second time.Time // NextExpiry of the build at expiry
	}{
		{"the certificate is left out", time.Time{}},
		{"the translator still keeps it (its clock is behind): no second rebuild", notAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &expiring{expires: func(n int) time.Time {
				if n == 1 {
					return notAfter
				}
				return tc.second
			}}
			e := newEnv(t, envOpts{cfg: func(c *Config) {
				c.Build = buildWith(x.translate)
				c.Now = func() time.Time { return now }
			}})
			e.upsert("a", nil)
			if ev := e.nextEvent(EventExpiry, wait); !ev.At.Equal(now) {
				t.Errorf("expiry rebuild scheduled at %v, want now (%v)", ev.At, now)
			}
			e.wait("the rebuild at expiry", wait, func() bool { return e.ev.count(EventBuild) == 2 })
			e.converged(wait)
			e.loop.Notify()
			e.nextEvent(EventSkip, wait) // the loop is idle: no further build is due
			if n := e.ev.count(EventBuild); n != 2 {
				t.Errorf("%d builds, want 2 (the change, the expiry)", n)
			}
			if n := e.ev.count(EventExpiry); n != 1 {
				t.Errorf("%d expiry events, want 1", n)
			}
		})
	}
}

// An expiry an hour away is scheduled for just after its NotAfter, and builds nothing meanwhile.
func TestLoopSchedulesExpiryAhead(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	x := &expiring{expires: func(int) time.Time { return now.Add(time.Hour) }}
	e := newEnv(t, envOpts{cfg: func(c *Config) {
		c.Build = buildWith(x.translate)
		c.Now = func() time.Time { return now }
	}})
	e.upsert("a", nil)
	if ev := e.nextEvent(EventExpiry, wait); !ev.At.Equal(now.Add(time.Hour + expirySlack)) {
		t.Errorf("expiry rebuild at %v, want %v", ev.At, now.Add(time.Hour+expirySlack))
	}
	e.converged(wait)
	e.loop.Notify()
	e.nextEvent(EventSkip, wait)
	if n := e.ev.count(EventBuild); n != 1 {
		t.Errorf("%d builds before the expiry, want 1", n)
	}
}

package sync

import (
	"net/http"
	"testing"
	"time"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

const ms = time.Millisecond

// A load of cost d, at the 20 % default, holds the next POST until 4·d after it ended; the
// interval (KIC's --proxy-sync-seconds) counts from the last POST's start; whichever ends later
// wins; nothing holds once both have passed.
func TestPacingHold(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        pacing
		now      time.Time
		until    time.Time
		why      PaceReason
		wantRest time.Duration
	}{
		{"never pushed", pacing{budget: 0.2}, at(0), time.Time{}, PaceNone, 0},
		{"1 s load, just ended", pacing{budget: 0.2, start: at(0), end: at(time.Second), cost: time.Second},
			at(time.Second), at(5 * time.Second), PaceLoadBudget, 4 * time.Second},
		{"1 s load, rest over", pacing{budget: 0.2, start: at(0), end: at(time.Second), cost: time.Second},
			at(5 * time.Second), time.Time{}, PaceNone, 4 * time.Second},
		{"Kong's figure below the round trip", pacing{budget: 0.2, start: at(0), end: at(1200 * ms), cost: time.Second},
			at(2 * time.Second), at(5200 * ms), PaceLoadBudget, 4 * time.Second},
		{"budget 50 %", pacing{budget: 0.5, start: at(0), end: at(time.Second), cost: time.Second},
			at(time.Second), at(2 * time.Second), PaceLoadBudget, time.Second},
		{"budget 100 %: off", pacing{budget: 1, start: at(0), end: at(time.Second), cost: time.Second},
			at(time.Second), time.Time{}, PaceNone, 0},
		{"interval longer than the rest", pacing{budget: 0.2, interval: 3 * time.Second, start: at(0), end: at(500 * ms), cost: 500 * ms},
			at(time.Second), at(3 * time.Second), PaceInterval, 2 * time.Second},
		{"rest longer than the interval", pacing{budget: 0.2, interval: 3 * time.Second, start: at(0), end: at(time.Second), cost: time.Second},
			at(time.Second), at(5 * time.Second), PaceLoadBudget, 4 * time.Second},
		{"interval alone (budget off)", pacing{budget: 1, interval: 3 * time.Second, start: at(0), end: at(10 * ms), cost: 10 * ms},
			at(2999 * ms), at(3 * time.Second), PaceInterval, 0},
		{"interval over", pacing{budget: 1, interval: 3 * time.Second, start: at(0), end: at(10 * ms), cost: 10 * ms},
			at(3 * time.Second), time.Time{}, PaceNone, 0},
		{"a 304 costs next to nothing", pacing{budget: 0.2, start: at(0), end: at(3 * ms), cost: 2 * ms},
			at(3 * ms), at(11 * ms), PaceLoadBudget, 8 * ms},
	} {
		until, why := tc.p.hold(tc.now)
		if !until.Equal(tc.until) || why != tc.why || tc.p.rest() != tc.wantRest {
			t.Errorf("%s: hold = %v %q, rest %v; want %v %q, rest %v", tc.name, until.Sub(t0), why, tc.p.rest(),
				tc.until.Sub(t0), tc.why, tc.wantRest)
		}
	}
}

// The interval counts from Kong's start on the last POST as kongsync can tell it (its answer
// less Kong's figure), never from before the POST was sent.
func TestPacingTookAnchorsInterval(t *testing.T) {
	for _, tc := range []struct {
		name             string
		start, end       time.Time
		cost             time.Duration
		wantStart, until time.Time
	}{
		{"Kong's figure: 20 ms on the way there", at(0), at(1030 * ms), time.Second, at(30 * ms), at(3030 * ms)},
		{"round trip: the send", at(0), at(time.Second), time.Second, at(0), at(3 * time.Second)},
		{"never before the send", at(0), at(time.Second), 2 * time.Second, at(0), at(3 * time.Second)},
	} {
		p := pacing{budget: 1, interval: 3 * time.Second}
		p.took(tc.start, tc.end, tc.cost)
		if until, _ := p.hold(at(time.Second)); !p.start.Equal(tc.wantStart) || !until.Equal(tc.until) {
			t.Errorf("%s: start %v, hold until %v; want %v, %v", tc.name, p.start.Sub(t0), until.Sub(t0),
				tc.wantStart.Sub(t0), tc.until.Sub(t0))
		}
	}
}

// Kong's X-Kong-Admin-Latency is the cost when it is there and plausible; else the round trip.
func TestLoadCost(t *testing.T) {
	rt := 1200 * ms
	for _, tc := range []struct {
		header   string
		want     time.Duration
		fromKong bool
	}{
		{"", rt, false},
		{"1003", 1003 * ms, true},
		{"1003.0001220703", 1003*ms + 122*time.Nanosecond, true},
		{"0", 0, true},
		{"1201", rt, false}, // more than the round trip: clock granularity
		{"-5", rt, false},
		{"NaN", rt, false},
		{"soon", rt, false},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set(AdminLatencyHeader, tc.header)
		}
		got, fromKong := loadCost(h, rt)
		if got != tc.want || fromKong != tc.fromKong {
			t.Errorf("%q: cost %v (from Kong %v), want %v (%v)", tc.header, got, fromKong, tc.want, tc.fromKong)
		}
	}
}

// pacedWorker is a worker holding old, whose loop has built next, with a probe due at probe;
// no goroutine runs: tests set its state and call next with made-up times.
func pacedWorker(t *testing.T, budget float64, interval time.Duration, probe time.Time) (*worker, *Payload) {
	t.Helper()
	l, err := New(Config{Source: store.New(), Build: func(*store.Snapshot) (translator.Built, error) {
		return translator.Built{}, nil
	}, LoadBudget: budget, MinPushInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := NewReplica("http://kong:8001", ReplicaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorker(rep, l)
	p := testPayload(t, "next")
	w.desired, w.accepted, w.lastGood = p, testPayload(t, "old").Hash(), nil
	w.needProbe, w.needVersion, w.versionKnown = false, false, true
	w.kongVersion, p.kongVersion = translator.DefaultKongVersion, translator.DefaultKongVersion
	w.flavor, p.routerFlavor, w.rootTried = translator.RouterTraditionalCompatible, translator.RouterTraditionalCompatible, true
	l.chosen.Store(&routerChoice{Decided: true, Flavor: translator.RouterTraditionalCompatible, Version: translator.DefaultKongVersion})
	w.nextProbe = probe
	return w, p
}

func testPayload(t *testing.T, name string) *Payload {
	doc := document.New()
	doc.Services = []*document.Service{{Service: kong.Service{Name: kong.String(name), Host: kong.String("h")}}}
	p, err := NewPayload(doc)
	if err != nil {
		t.Fatal(err)
	}
	p.Hash()
	return p
}

// The worker's decision with pacing, from its state and the time alone: a change after a quiet
// spell goes at once; one during the rest waits for it (probes still run meanwhile); a Kong
// restarted empty, a retry after a failure, the rebuild after a refusal and a new leader's first
// POST are never paced; a follower holds nothing back since it posts nothing.
func TestWorkerNextPacing(t *testing.T) {
	second := time.Second
	for _, tc := range []struct {
		name     string
		interval time.Duration
		set      func(w *worker)
		now      time.Time
		want     decision // p is checked as "the desired payload" when act is actPush
	}{
		{"quiet: at once", 0, func(w *worker) { w.pace.took(at(0), at(second), second) },
			at(5 * second), decision{act: actPush}},
		{"during the rest: wait for it", 0, func(w *worker) { w.pace.took(at(0), at(second), second) },
			at(2 * second), decision{wait: 3 * second, held: PaceLoadBudget}},
		{"during the rest, probe due first", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.nextProbe = at(2 * second)
		}, at(2 * second), decision{act: actProbe, held: PaceLoadBudget}},
		{"interval", 3 * second, func(w *worker) { w.pace.took(at(0), at(100*ms), 100*ms) },
			at(time.Second), decision{wait: 2 * second, held: PaceInterval}},
		{"Kong restarted empty", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.accepted = ""
		}, at(2 * second), decision{act: actPush}},
		{"retry after a 500: the backoff's time", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.failures, w.nextAttempt, w.unpaced = 1, at(2*second), true
		}, at(1500 * ms), decision{wait: 500 * ms}},
		{"retry after a 500, due", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.failures, w.nextAttempt, w.unpaced = 1, at(2*second), true
		}, at(2 * second), decision{act: actPush}},
		{"after a refusal", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.unpaced = true
		}, at(2 * second), decision{act: actPush}},
		{"follower: nothing to hold", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.loop.leading.Store(false)
		}, at(2 * second), decision{wait: 8 * second}},
		{"replica holds it already", 0, func(w *worker) {
			w.pace.took(at(0), at(second), second)
			w.accepted = w.desired.Hash()
		}, at(2 * second), decision{wait: 8 * second}},
	} {
		w, p := pacedWorker(t, 0, tc.interval, at(10*second))
		tc.set(w)
		got := w.next(tc.now)
		want := tc.want
		if want.act == actPush {
			want.p = p
		}
		if got != want {
			t.Errorf("%s: next = %+v, want %+v", tc.name, got, want)
		}
	}
}

// Lead(true) lets the next POST of every worker go unpaced.
func TestLeadUnpaces(t *testing.T) {
	w, _ := pacedWorker(t, 0, 0, at(10*time.Second))
	w.pace.took(at(0), at(time.Second), time.Second)
	w.loop.cfg.Follower = true
	w.loop.leading.Store(false)
	w.loop.workers[w.rep.URL()] = w
	w.loop.Lead(true)
	if d := w.next(at(2 * time.Second)); d.act != actPush {
		t.Errorf("after Lead(true): %+v, want a push", d)
	}
}

// A payload whose md5 is still deferred (an engine's first build after it started over) is not
// posted when its bytes are those the replica took last; the md5 is computed only when the
// lengths agree.
func TestAlreadyHeldSkipsTheSamePush(t *testing.T) {
	w, _ := pacedWorker(t, 0, 0, time.Now())
	old := testPayload(t, "svc-a")
	w.lastGood, w.accepted = old, old.Hash()
	deferred := func(name string) *Payload {
		doc := document.New()
		doc.Services = []*document.Service{{Service: kong.Service{Name: kong.String(name), Host: kong.String("h")}}}
		cfg, err := document.NewJSONCache().EncodeConfig(doc)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cfg.HashReady(); ok {
			t.Fatal("a first encoding's md5 should be deferred")
		}
		return &Payload{Config: cfg, doc: doc}
	}
	if !w.alreadyHeld(deferred("svc-a")) {
		t.Error("the bytes the replica holds would be posted again")
	}
	if w.alreadyHeld(deferred("svc-b")) {
		t.Error("other bytes of the same length taken for the held ones")
	}
	longer := deferred("svc-aa")
	if w.alreadyHeld(longer) {
		t.Error("a longer config taken for the held one")
	}
	if _, ok := longer.Config.HashReady(); ok {
		t.Error("the md5 of a config of another length was computed")
	}
}

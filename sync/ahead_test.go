package sync

import (
	gosync "sync"
	"testing"
	"time"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// gatedTranslate wraps fakeTranslate: it counts calls, and while a gate is set, each call
// announces itself on entered and waits for the gate to be closed.
type gatedTranslate struct {
	mu      gosync.Mutex
	calls   int
	gate    chan struct{}
	entered chan struct{}
}

func (g *gatedTranslate) translate(snap *store.Snapshot) translator.Result {
	g.mu.Lock()
	g.calls++
	gate, entered := g.gate, g.entered
	g.mu.Unlock()
	if gate != nil {
		entered <- struct{}{}
		<-gate
	}
	return fakeTranslate(snap)
}

func (g *gatedTranslate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// hold makes the next translations wait; the returned func releases them.
func (g *gatedTranslate) hold() (entered <-chan struct{}, release func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gate, g.entered = make(chan struct{}), make(chan struct{}, 8)
	gate := g.gate
	return g.entered, func() {
		g.mu.Lock()
		g.gate = nil
		g.mu.Unlock()
		close(gate)
	}
}

// last is the latest event of a type (zero if none).
func (e *events) last(typ EventType) Event {
	var got Event
	for _, ev := range e.all() {
		if ev.Type == typ {
			got = ev
		}
	}
	return got
}

const aheadWindow = 150 * time.Millisecond

func newAheadEnv(t *testing.T) (*env, *gatedTranslate) {
	g := &gatedTranslate{}
	e := newEnv(t, envOpts{cfg: func(c *Config) {
		c.Build = buildWith(g.translate)
		c.Window, c.MaxDelay = aheadWindow, 4*aheadWindow
	}})
	e.upsert("a", nil)
	e.converged(wait)
	// The scenario is a change after a quiet spell: let one window pass since the last build.
	time.Sleep(aheadWindow)
	return e, g
}

// A lone change is translated as soon as it arrives, during the window; the build at the
// window's end hands that translation over without translating again.
func TestLoneChangeTranslatedDuringWindow(t *testing.T) {
	e, g := newAheadEnv(t)
	calls, before := g.count(), e.loop.Stats()
	entered, release := g.hold()
	e.upsert("b", nil)
	select {
	case <-entered: // translating now, long before the window ends
	case <-time.After(aheadWindow / 2):
		t.Fatalf("no translation within half a window of the change; stats %+v", e.loop.Stats())
	}
	release()
	e.converged(wait)
	ahead, built := e.ev.last(EventAhead), e.ev.last(EventBuild)
	if built.Hash != ahead.Hash || built.Version != ahead.Version {
		t.Errorf("built %s@%d, translated ahead %s@%d", built.Hash, built.Version, ahead.Hash, ahead.Version)
	}
	if n := g.count() - calls; n != 1 {
		t.Errorf("%d translations for one change, want 1", n)
	}
	after := e.loop.Stats()
	if after.AheadUsed != before.AheadUsed+1 || after.AheadWasted != before.AheadWasted {
		t.Errorf("stats before %+v after %+v: want one more AheadUsed", before, after)
	}
	if got := serviceNames(e.kongs[0]); len(got) != 2 {
		t.Errorf("Kong holds %v, want a and b", got)
	}
}

// A change arriving while the ahead translation runs makes it stale: the build translates
// again, and Kong gets both changes.
func TestAheadTranslationOvertakenByChange(t *testing.T) {
	e, g := newAheadEnv(t)
	calls, before := g.count(), e.loop.Stats()
	entered, release := g.hold()
	e.upsert("b", nil)
	<-entered
	e.upsert("c", nil) // the store moves on while "b" is being translated
	release()
	e.converged(wait)
	if got := serviceNames(e.kongs[0]); len(got) != 3 {
		t.Errorf("Kong holds %v, want a, b and c", got)
	}
	if n := g.count() - calls; n != 2 {
		t.Errorf("%d translations, want 2 (ahead, then at the window's end)", n)
	}
	after := e.loop.Stats()
	if after.AheadWasted != before.AheadWasted+1 || after.AheadUsed != before.AheadUsed {
		t.Errorf("stats before %+v after %+v: want one more AheadWasted", before, after)
	}
}

// An object Kong rejected stays out of a config translated ahead, and comes back in once it
// changes.
func TestAheadKeepsRejectedObjectOut(t *testing.T) {
	e, _ := newAheadEnv(t)
	e.upsert("bad", map[string]string{annPort: "70000"})
	e.wait("the bad service to be excluded", wait, func() bool { return len(e.loop.Excluded()) == 1 })
	e.converged(wait)
	time.Sleep(aheadWindow)
	used := e.loop.Stats().AheadUsed
	e.upsert("b", nil)
	e.converged(wait)
	if got := serviceNames(e.kongs[0]); len(got) != 2 {
		t.Errorf("Kong holds %v, want a and b without the rejected one", got)
	}
	if e.loop.Stats().AheadUsed != used+1 {
		t.Errorf("ahead translation not used: %+v", e.loop.Stats())
	}
	time.Sleep(aheadWindow)
	e.upsert("bad", nil) // fixed: a new version is included again
	e.converged(wait)
	if got := serviceNames(e.kongs[0]); len(got) != 3 {
		t.Errorf("Kong holds %v, want the fixed service back", got)
	}
}

// LatencyMetrics sees each config once per replica, from its first change to its first POST
// (so at least one window), and never the first build's listing.
func TestChangeToPostObserved(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2})
	e.upsert("a", nil)
	e.converged(wait)
	if r, _ := e.met.changeToPost(); len(r) != 0 {
		t.Fatalf("first build observed: %v", r)
	}
	e.upsert("b", nil)
	e.upsert("c", nil)
	e.converged(wait)
	replicas, ds := e.met.changeToPost()
	if len(replicas) != 2 || replicas[0] == replicas[1] {
		t.Fatalf("observed for %v, want each of the 2 replicas once", replicas)
	}
	for _, d := range ds {
		if d < 20*time.Millisecond || d > wait {
			t.Errorf("change to POST %v, want at least the 20 ms window", d)
		}
	}
}

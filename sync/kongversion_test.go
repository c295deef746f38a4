package sync

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// engineWith is the controller's wiring: a real Engine whose Kong version follows the loop.
func engineWith(cfg *Config) {
	eng := translator.NewEngine(translator.DefaultOptions())
	cfg.Build = eng.Build
	cfg.SetKongVersion = func(v semver.Version) {
		o := translator.DefaultOptions()
		o.KongVersion = v
		eng.SetOptions(o)
	}
}

// loadCase upserts a golden case's objects and notifies the loop.
func (e *env) loadCase(name string) {
	e.t.Helper()
	f, err := os.Open("../testdata/golden/" + name + "/in.yaml")
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	objs, _, err := store.DecodeManifests("in.yaml", f)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, o := range objs {
		if _, err := e.store.Upsert(o); err != nil {
			e.t.Fatal(err)
		}
	}
	e.loop.Notify()
}

func stickyPosts(k *kongdouble.Server) (sticky, plain int) {
	for _, p := range k.Posts() {
		if strings.Contains(string(p.Body), "sticky-sessions") {
			sticky++
		} else {
			plain++
		}
	}
	return sticky, plain
}

// The live Kong version drives the gates: a Kong 3.11 gets the sticky-sessions policy from its
// very first push (the version is read before anything is posted); adding a Kong 3.10 makes
// the loop translate for the lowest version, leaving the policy out with a problem, and neither
// Kong is ever sent what the 3.10 one refuses; upgrading that Kong (a restart with a new
// version) brings the policy back; a Kong reporting a version KIC v3 does not support is
// reported and posted nothing.
func TestKongVersionDrivesGates(t *testing.T) {
	e := newEnv(t, envOpts{kong: kongdouble.Options{Version: "3.11.0"}, cfg: engineWith})
	e.loadCase("kong-version-3.10-sticky-sessions")
	e.converged(5 * time.Second)
	if s, p := stickyPosts(e.kongs[0]); s != 1 || p != 0 {
		t.Fatalf("Kong 3.11: %d posts with sticky-sessions, %d without; want exactly one, with", s, p)
	}
	if v := e.loop.KongVersion().String(); v != "3.11.0" {
		t.Errorf("translating for %s, want 3.11.0", v)
	}

	old := kongdouble.New(kongdouble.Options{Version: "3.10.0"})
	defer old.Close()
	e.kongs = append(e.kongs, old)
	if err := e.loop.SetReplicas([]string{e.kongs[0].URL(), old.URL()}); err != nil {
		t.Fatal(err)
	}
	e.wait("translating for 3.10.0", 5*time.Second, func() bool { return e.loop.KongVersion().String() == "3.10.0" })
	e.converged(5 * time.Second)
	if s, p := stickyPosts(old); s != 0 || p != 1 {
		t.Errorf("Kong 3.10: %d posts with sticky-sessions, %d without; want one, without", s, p)
	}
	if strings.Contains(e.kongs[0].Config(), "sticky-sessions") {
		t.Error("Kong 3.11 keeps the sticky-sessions config while its peer cannot load it")
	}
	probs, rejections, _ := e.rep.snapshot()
	if len(rejections) != 0 {
		t.Errorf("Kong rejected objects: %v", rejections)
	}
	if last := probs[len(probs)-1]; len(last) != 1 || !strings.Contains(last[0].Reason, "needs Kong 3.11.0 or later (translating for Kong 3.10.0)") {
		t.Errorf("problems %v, want the sticky-sessions one", last)
	}

	old.SetVersion("3.11.1")
	old.Restart()
	e.wait("translating for 3.11.0 again", 5*time.Second, func() bool { return e.loop.KongVersion().String() == "3.11.0" })
	e.converged(5 * time.Second)
	for i, k := range e.kongs {
		if !strings.Contains(k.Config(), "sticky-sessions") {
			t.Errorf("replica %d after the upgrade: no sticky-sessions", i)
		}
	}
	if st := e.loop.Replicas(); st[0].KongVersion == "" || st[1].KongVersion == "" {
		t.Errorf("replica versions not shown: %+v", st)
	}

	posts := len(old.Posts())
	old.SetVersion("3.3.0")
	old.Restart()
	e.wait("the unsupported version reported", 5*time.Second, func() bool {
		_, _, failures := e.rep.snapshot()
		return len(failures) > 0 && failures[len(failures)-1] == ResultFailed
	})
	n := e.ev.count(EventVersion)
	e.wait("two more reads of GET /", 5*time.Second, func() bool { return e.ev.count(EventVersion) >= n+2 })
	if got := len(old.Posts()); got != posts {
		t.Errorf("a Kong reporting 3.3.0 was posted %d configs", got-posts)
	}
}

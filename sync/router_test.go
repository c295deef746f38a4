package sync

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/blang/semver/v4"
	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

const (
	trad = translator.RouterTraditional
	comp = translator.RouterTraditionalCompatible
	expr = translator.RouterExpressions
)

func known(url string, f translator.RouterFlavor, v string) rootView {
	return rootView{Replica: url, Tried: true, Known: true, Flavor: f, Version: semver.MustParse(v)}
}

// chooseRouter, state in, decision out: nothing is chosen until every replica has answered (or
// failed) once; the kind of routes most replicas need wins, ties going to traditional; within
// the traditional kind, the flavor most report (ties: traditional); the version is the lowest
// of the replicas chosen; the others are mismatched.
func TestChooseRouter(t *testing.T) {
	failed := rootView{Replica: "f", Tried: true}
	for _, tc := range []struct {
		name       string
		views      []rootView
		decided    bool
		flavor     translator.RouterFlavor
		version    string
		mismatched []string
	}{
		{"no replica", nil, false, "", "", nil},
		{"one not answered yet", []rootView{known("a", trad, "3.9.1"), {Replica: "b"}}, false, "", "", nil},
		{"the minority answered first", []rootView{known("a", trad, "3.9.1"), {Replica: "b"}, {Replica: "c"}}, false, "", "", nil},
		{"every one failed", []rootView{failed, {Replica: "g", Tried: true}}, false, "", "", nil},
		{"one failed, one answered", []rootView{failed, known("a", expr, "3.10.0")}, true, expr, "3.10.0", nil},
		{"alone, default flavor", []rootView{known("a", comp, "3.9.1")}, true, comp, "3.9.1", nil},
		{"two expressions, one traditional", []rootView{known("a", expr, "3.11.0"), known("b", trad, "3.9.0"), known("c", expr, "3.10.0")},
			true, expr, "3.10.0", []string{"b"}},
		{"tie: traditional wins over expressions", []rootView{known("b", expr, "3.9.1"), known("a", comp, "3.11.0")},
			true, comp, "3.11.0", []string{"b"}},
		{"traditional kinds together outnumber expressions", []rootView{known("x", expr, "3.9.1"), known("c", comp, "3.9.1"), known("t", trad, "3.10.0")},
			true, trad, "3.9.1", []string{"x"}},
		{"traditional_compatible the most of its kind", []rootView{known("c1", comp, "3.9.1"), known("c2", comp, "3.9.1"), known("t", trad, "3.9.1")},
			true, comp, "3.9.1", nil},
		{"a failed replica keeps its last flavor", []rootView{{Replica: "a", Tried: true, Known: true, Flavor: expr, Version: semver.MustParse("3.9.1")},
			known("b", expr, "3.9.1"), known("c", trad, "3.8.0")}, true, expr, "3.9.1", []string{"c"}},
		{"mismatched sorted", []rootView{known("z", trad, "3.9.1"), known("e1", expr, "3.9.1"), known("e2", expr, "3.9.1"), known("e3", expr, "3.9.1"), known("a", comp, "3.9.1")},
			true, expr, "3.9.1", []string{"a", "z"}},
	} {
		c := chooseRouter(tc.views)
		if c.Decided != tc.decided {
			t.Errorf("%s: decided %v, want %v", tc.name, c.Decided, tc.decided)
			continue
		}
		if !c.Decided {
			continue
		}
		if c.Flavor != tc.flavor || c.Version.String() != tc.version || !reflect.DeepEqual(c.Mismatched, tc.mismatched) {
			t.Errorf("%s: %s %s mismatched %v, want %s %s %v", tc.name, c.Flavor, c.Version, c.Mismatched, tc.flavor, tc.version, tc.mismatched)
		}
	}
}

// flavorBuild is the controller's wiring with a translation that shows the flavor it was made
// for: each config carries a service named after it, so a double's config tells which flavor
// it was translated for.
func flavorBuild(flavors *[]translator.RouterFlavor) func(*Config) {
	var mu gosync.Mutex
	cur := comp
	return func(cfg *Config) {
		cfg.SetRouterFlavor = func(f translator.RouterFlavor) {
			mu.Lock()
			defer mu.Unlock()
			cur = f
			*flavors = append(*flavors, f)
		}
		cfg.Build = buildWith(func(snap *store.Snapshot) translator.Result {
			res := fakeTranslate(snap)
			mu.Lock()
			f := cur
			mu.Unlock()
			res.Document.Services = append(res.Document.Services, flavorService(f))
			return res
		})
	}
}

func flavorService(f translator.RouterFlavor) *document.Service {
	name := "flavor-" + strings.ReplaceAll(string(f), "_", "-")
	return &document.Service{Service: kong.Service{Name: kong.String(name), Host: kong.String("flavor.invalid")}}
}

// flavorIn is the flavor the config a double holds was translated for ("" for none).
func flavorIn(k *kongdouble.Server) string {
	for _, f := range []translator.RouterFlavor{trad, comp, expr} {
		if strings.Contains(k.Config(), "flavor-"+strings.ReplaceAll(string(f), "_", "-")) {
			return string(f)
		}
	}
	return ""
}

// held reports whether every double of ks holds the loop's latest config.
func (e *env) held(ks ...*kongdouble.Server) bool {
	want := e.loop.DesiredHash()
	for _, k := range ks {
		if want == "" || document.Hash([]byte(k.Config())) != want {
			return false
		}
	}
	return true
}

// Three replicas: expressions, traditional_compatible and traditional. The traditional kind is
// the majority: the loop translates for traditional (the tie within the kind), posts nothing to
// the expressions replica, and reports it (log, FlavorReporter, FlavorMetrics), while the loop
// is ready without it. Restarted as traditional_compatible, it rejoins and gets the config. Then
// two replicas restart as expressions: the majority changes, the loop translates again for
// expressions, posts that to them, and leaves the third out.
func TestRouterFlavorMajority(t *testing.T) {
	var applied []translator.RouterFlavor
	e := newEnv(t, envOpts{flavors: []string{"expressions", "traditional_compatible", "traditional"}, cfg: flavorBuild(&applied)})
	x, c, tr := e.kongs[0], e.kongs[1], e.kongs[2]
	e.upsert("web", nil)
	e.wait("the traditional replicas to hold the config", 5*time.Second, func() bool { return e.held(c, tr) })
	if f := e.loop.RouterFlavor(); f != trad || flavorIn(c) != "traditional" {
		t.Errorf("translating for %s (config: %s), want traditional", f, flavorIn(c))
	}
	if n := len(x.Posts()); n != 0 {
		t.Errorf("the expressions replica was posted %d configs", n)
	}
	if m := e.rep.flavorMismatches(); !slices.Equal(m, []string{x.URL() + " expressions traditional"}) {
		t.Errorf("mismatches reported: %q", m)
	}
	if got := e.met.flavorOf(x.URL()); got != "expressions true" {
		t.Errorf("metrics for the expressions replica: %q", got)
	}
	if got := e.met.flavorOf(c.URL()); got != "traditional_compatible false" {
		t.Errorf("metrics for the traditional_compatible replica: %q", got)
	}
	if !strings.Contains(e.logs.String(), `"router flavor mismatch; nothing is posted to this Kong until its flavor matches"`) {
		t.Error("no error logged for the mismatch")
	}
	select {
	case <-e.loop.ReadyC():
	case <-time.After(5 * time.Second):
		t.Fatal("not ready: a replica left out for its flavor must not hold readiness back")
	}
	if st := e.loop.Replicas(); !slices.ContainsFunc(st, func(s ReplicaStatus) bool {
		return s.URL == x.URL() && s.FlavorMismatch && s.RouterFlavor == "expressions"
	}) {
		t.Errorf("replica status does not show the mismatch: %+v", st)
	}

	x.SetRouterFlavor("traditional_compatible")
	x.Restart()
	e.wait("the restarted replica to rejoin", 5*time.Second, func() bool { return e.held(x, c, tr) })
	if got := e.met.flavorOf(x.URL()); got != "traditional_compatible false" {
		t.Errorf("metrics after the rejoin: %q", got)
	}

	for _, k := range []*kongdouble.Server{c, tr} {
		k.SetRouterFlavor("expressions")
		k.Restart()
	}
	e.wait("expressions chosen and posted", 5*time.Second, func() bool {
		return e.loop.RouterFlavor() == expr && e.held(c, tr) && flavorIn(c) == "expressions"
	})
	if flavorIn(x) != "traditional" {
		t.Errorf("the now mismatched replica holds a config for %q, want the traditional one it had", flavorIn(x))
	}
	for _, p := range x.Posts() {
		if strings.Contains(string(p.Body), "flavor-expressions") {
			t.Error("the traditional_compatible replica was posted an expressions config")
		}
	}
	// c may be left out for a moment, between its restart and tr's.
	if m := e.rep.flavorMismatches(); len(m) < 2 || m[len(m)-1] != x.URL()+" traditional_compatible expressions" {
		t.Errorf("mismatches reported: %q", m)
	}
	if !slices.Contains(applied, expr) {
		t.Errorf("SetRouterFlavor calls %v: expressions never applied", applied)
	}
}

// The startup race: the traditional replica answers GET / at once, the two expressions ones
// take a while. Nothing is chosen until all three answered, so the minority replica is never
// posted a config, and the first choice is expressions.
func TestRouterFlavorWaitsForEveryReplica(t *testing.T) {
	var applied []translator.RouterFlavor
	e := newEnv(t, envOpts{flavors: []string{"traditional", "expressions", "expressions"}, cfg: flavorBuild(&applied),
		setup: func(ks []*kongdouble.Server) {
			for _, k := range ks[1:] {
				k.AddFault(kongdouble.Fault{Method: http.MethodGet, Path: "/", Delay: 300 * time.Millisecond, Times: 1})
			}
		}})
	e.upsert("web", nil)
	e.wait("the expressions replicas to hold the config", 5*time.Second, func() bool { return e.held(e.kongs[1:]...) })
	if n := len(e.kongs[0].Posts()); n != 0 {
		t.Errorf("the minority replica, first to answer, was posted %d configs", n)
	}
	var choices []string
	for _, ev := range e.ev.all() {
		if ev.Type == EventRouter {
			choices = append(choices, ev.RouterFlavor)
		}
	}
	if len(choices) == 0 || choices[0] != "expressions" {
		t.Errorf("router choices %v, want expressions first", choices)
	}
}

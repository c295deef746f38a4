//go:build integration

package integration

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/runner"
	kongsync "github.com/kongsync/kongsync/sync"
)

// flavorDouble starts a Kong double reporting router_flavor f, closed at cleanup.
func flavorDouble(t *testing.T, f string) *kongdouble.Server {
	d := kongdouble.New(kongdouble.Options{RouterFlavor: f})
	t.Cleanup(d.Close)
	return d
}

// flavorSeries is a per-replica router-flavor series as /metrics prints it (labels sorted).
func flavorSeries(d *kongdouble.Server, flavor string) string {
	if flavor == "" {
		return `kongsync_replica_router_flavor_mismatch{replica="` + d.URL() + `"}`
	}
	return `kongsync_replica_router_flavor{flavor="` + flavor + `",replica="` + d.URL() + `"}`
}

// isRouter matches the loop's choice of a router flavor.
func isRouter(flavor string) func(kongsync.Event) bool {
	return func(e kongsync.Event) bool { return e.Type == kongsync.EventRouter && e.RouterFlavor == flavor }
}

// Three Kong replicas behind one kongsync: expressions, traditional_compatible and traditional.
// The traditional kind is the most: the expressions replica is posted nothing, the controller is
// ready without it, and the mismatch shows as an Event on kongsync's Pod and in the metrics.
// Restarted as traditional, it rejoins and gets the configuration. Then the two others restart
// as expressions: the loop chooses expressions, posts to them and leaves the third out.
func TestRouterFlavorMixedPair(t *testing.T) {
	pod := "kongsync-flavor-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Setenv("POD_NAMESPACE", "default")
	t.Setenv("POD_NAME", pod)
	x, c, tr := flavorDouble(t, "expressions"), flavorDouble(t, "traditional_compatible"), flavorDouble(t, "traditional")
	ns, obs, addr := newNamespace(t), newObserver(), freeAddr(t)
	in := startKongsync(t, "flavor", ns, []*kongdouble.Server{x, c, tr}, func(cfg *runner.Config) {
		cfg.MetricsBindAddress = addr
		cfg.Hooks.Observe = obs.observe
	})
	app{ns: ns, name: "web", host: "flavor.example.com"}.create(t)
	for _, d := range []*kongdouble.Server{c, tr} {
		waitDouble(t, d, "the config on a traditional replica", func() bool { return hasHost(d, "flavor.example.com") })
	}
	in.waitReady(t)
	ev := waitEvent(t, "default", "Pod", pod, metrics.ReasonRouterFlavorMismatch)
	if !strings.Contains(ev.Message, x.URL()+" reports router_flavor expressions, but most Kong replicas report traditional") {
		t.Errorf("Event message: %s", ev.Message)
	}
	if v := metricAt(t, addr, flavorSeries(x, "")); v != 1 {
		t.Errorf("mismatch gauge of the expressions replica = %v, want 1", v)
	}
	if v := metricAt(t, addr, flavorSeries(x, "expressions")); v != 1 {
		t.Errorf("flavor gauge of the expressions replica = %v, want 1", v)
	}
	if v := metricAt(t, addr, flavorSeries(c, "")); v != 0 {
		t.Errorf("mismatch gauge of the traditional_compatible replica = %v, want 0", v)
	}
	if n := len(x.Posts()); n != 0 {
		t.Fatalf("the expressions replica was posted %d configs", n)
	}

	x.SetRouterFlavor("traditional")
	x.Restart()
	waitDouble(t, x, "the config on the restarted replica", func() bool { return hasHost(x, "flavor.example.com") })
	if v := metricAt(t, addr, flavorSeries(x, "")); v != 0 {
		t.Errorf("mismatch gauge after the rejoin = %v, want 0", v)
	}
	if v := metricAt(t, addr, flavorSeries(x, "expressions")); v != -1 {
		t.Errorf("the old flavor's series is still there: %v", v)
	}

	posts := len(x.Posts())
	from := obs.len()
	for _, d := range []*kongdouble.Server{c, tr} {
		d.SetRouterFlavor("expressions")
		d.Restart()
	}
	obs.wait(t, "expressions chosen", from, 1, isRouter("expressions"))
	for _, d := range []*kongdouble.Server{c, tr} {
		waitDouble(t, d, "the config on a replica restarted as expressions", func() bool { return d.Hash() != kongdouble.EmptyHash })
	}
	if n := len(x.Posts()) - posts; n != 0 {
		t.Errorf("the traditional replica, now the minority, was posted %d configs", n)
	}
	if v := metricAt(t, addr, flavorSeries(x, "")); v != 1 {
		t.Errorf("mismatch gauge of the now minority replica = %v, want 1", v)
	}
}

// A Kong double started with router_flavor expressions is translated for and posted to.
// TODO(issue 23): once the translator writes expressions routes, check that every route the
// double holds carries an `expression` and a `priority` and no traditional match fields; until
// then this checks only the choice and the push.
func TestRouterFlavorExpressionsDouble(t *testing.T) {
	d := flavorDouble(t, "expressions")
	ns, obs := newNamespace(t), newObserver()
	in := startKongsync(t, "expr", ns, []*kongdouble.Server{d}, func(cfg *runner.Config) { cfg.Hooks.Observe = obs.observe })
	app{ns: ns, name: "web", host: "expr.example.com"}.create(t)
	obs.wait(t, "expressions chosen", 0, 1, isRouter("expressions"))
	waitDouble(t, d, "a config on the expressions double", func() bool { return d.Hash() != kongdouble.EmptyHash })
	in.waitReady(t)
	builds, _ := obs.count(0, func(e kongsync.Event) bool { return e.Type == kongsync.EventBuild && e.RouterFlavor == "expressions" })
	if builds == 0 {
		t.Error("no build translated for expressions")
	}
	var cfg struct {
		Services []struct {
			Routes []map[string]any `json:"routes"`
		} `json:"services"`
	}
	if err := json.Unmarshal([]byte(d.Config()), &cfg); err != nil {
		t.Fatal(err)
	}
	routes := 0
	for _, s := range cfg.Services {
		for _, r := range s.Routes {
			routes++
			expr, _ := r["expression"].(string)
			_, prio := r["priority"]
			if !strings.Contains(expr, `http.host == "expr.example.com"`) || !prio || r["paths"] != nil || r["hosts"] != nil {
				t.Errorf("route %v: want an expression on the host and a priority, no paths or hosts", r["name"])
			}
		}
	}
	if routes == 0 {
		t.Error("the expressions double holds no route")
	}
}

//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// Pacing's settings and the bounds the test holds kongsync to (docs/sync.md, "Pacing").
const (
	pacingWindow = 100 * time.Millisecond // --sync-window's default
	pacingBudget = 0.2                    // --kong-load-budget's default
	pacingTick   = 200 * time.Millisecond // the churn: one change every 0.2 s
	// pacingSlack is the machine's share of a bound: the apiserver's write and watch, the
	// timers of a shared 2-core machine.
	pacingSlack = 250 * time.Millisecond
	// loneBound is the bound for a lone change after a quiet spell: one window + 50 ms.
	loneBound = pacingWindow + 50*time.Millisecond
)

// pacingScenario is one run of the churn against a kongsync binary.
type pacingScenario struct {
	name     string
	interval time.Duration   // --proxy-sync-seconds; 0 leaves it unset
	loads    []time.Duration // the double's load time, one per equal part of the churn
}

// TestPacingUnderChurn is issue 25's evidence, on the real apiserver with the kongsync binary
// (its flags as a user sets them) and a Kong double whose every load takes 1 s: an Ingress
// annotation changes the config every 0.2 s, and
//
//   - Kong spends at most 25 % of the churn loading (without pacing it was 100 %: 60 POSTs in
//     60 s); no POST ever finds it busy (429);
//   - each POST waits at least 4× the previous load after it ended (the 20 % budget);
//   - every change is in Kong within its bound: the window, then the load in flight and its
//     rest (load ÷ budget) or the interval, whichever is longer, then its own load;
//   - the metrics show Kong's load time and the deferred pushes;
//   - after the churn, a lone change after a quiet spell is posted within the window + 50 ms.
//
// The second scenario adds --proxy-sync-seconds=3: no two POSTs start less than 3 s apart. With
// 1 s loads the budget alone already spaces them 5 s apart, so its second half lowers the load
// time to 0.5 s: the budget alone would then post every 2.5 s, and the POSTs coming every 3 s
// (not sooner, not much later) shows the flag doing it.
//
// The churn lasts KONGSYNC_PACING_CHURN (default 30s; the 60 s with
// KONGSYNC_PACING_CHURN=60s). From the first hold on the POSTs settle into a fixed cycle (one
// load then its rest: 5 s, or 3 s with the interval), so 30 s is six such cycles and holds the
// same shares and bounds as 60 s. The scenarios run in parallel (about a minute in all).
func TestPacingUnderChurn(t *testing.T) {
	churn := pacingChurn(t)
	for _, sc := range []pacingScenario{
		{name: "budget", loads: []time.Duration{time.Second}},
		{name: "proxy-sync-3s", interval: 3 * time.Second, loads: []time.Duration{time.Second, 500 * time.Millisecond}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runPacingScenario(t, sc, churn)
		})
	}
}

// pacingChurn is KONGSYNC_PACING_CHURN (default 30s).
func pacingChurn(t *testing.T) time.Duration {
	v := os.Getenv("KONGSYNC_PACING_CHURN")
	if v == "" {
		return 30 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 5*time.Second {
		t.Fatalf("KONGSYNC_PACING_CHURN=%q: want a duration of at least 5s, such as 60s", v)
	}
	return d
}

// pacedChange is one annotation write: the sequence number it sets and when it was sent.
type pacedChange struct {
	seq int
	at  time.Time
}

func runPacingScenario(t *testing.T, sc pacingScenario, churn time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), churn+3*time.Minute)
	defer cancel()
	ns := newNamespace(t)
	kong := kongdouble.New(kongdouble.Options{LoadTime: sc.loads[0]})
	t.Cleanup(kong.Close)
	metricsAddr := freeAddr(t)
	var extra []string
	if sc.interval > 0 {
		extra = append(extra, fmt.Sprintf("--proxy-sync-seconds=%g", sc.interval.Seconds()))
	}
	startPacedKongsync(t, ns, kong, metricsAddr, extra...)
	a := app{ns: ns, name: "web", host: "paced.example.com"}
	a.create(t)
	waitDouble(t, kong, "the first config", func() bool { return hasHost(kong, a.host) })
	ing, err := admin.NetworkingV1().Ingresses(ns).Get(ctx, a.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := &annotator{ctx: ctx, ing: ing}

	waitQuiet(kong, sc.interval)
	from := len(kong.Posts())
	start := time.Now()
	changes := w.churn(t, kong, sc.loads, churn)
	end := time.Now()
	last := changes[len(changes)-1].seq
	waitDouble(t, kong, "the last change", func() bool { return configSeq(kong.Config()) == last })
	posts := kong.Posts()[from:]
	checkPacedPosts(t, sc, posts, start, end)
	checkChangesInKong(t, sc, changes, posts)
	checkPacingMetrics(t, sc, metricsAddr, kong)

	waitQuiet(kong, sc.interval) // the quiet spell: a wait, not an assertion
	n := len(kong.Posts())
	lone := w.set(t, last+1)
	waitDouble(t, kong, "the lone change", func() bool { return configSeq(kong.Config()) == last+1 })
	post := kong.Posts()[n]
	took := post.Start.Sub(lone.at)
	t.Logf("lone change after the churn: posted %v after the write was sent", took.Round(time.Millisecond))
	if configSeq(postConfig(t, post)) != last+1 || took > loneBound {
		t.Errorf("lone change posted %v after it was made (POST of change %d), want ≤ %v", took, configSeq(postConfig(t, post)), loneBound)
	}
}

// startPacedKongsync runs the kongsync binary on ns, pushing to kong, stopped at cleanup.
func startPacedKongsync(t *testing.T, ns string, kong *kongdouble.Server, metricsAddr string, extra ...string) {
	t.Helper()
	args := append([]string{"--kubeconfig=" + plane.Kubeconfig, "--kong-admin-url=" + kong.URL(),
		"--metrics-bind-address=" + metricsAddr, "--health-probe-bind-address=0", "--watch-namespace=" + ns,
		"--election-namespace=" + ns, "--update-status=false", "--log-level=error"}, extra...)
	cmd := exec.Command(kongsyncBinary(t), args...)
	logs := newLines()
	cmd.Stderr = logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("kongsync exited with %v:\n%s", err, logs.String())
			}
		case <-time.After(waitTimeout):
			_ = cmd.Process.Kill()
			t.Errorf("kongsync did not stop on SIGTERM")
		}
	})
}

// waitQuiet sleeps until pacing no longer holds a POST back, by the double's record of the last
// load: its rest at the default budget is over, and the interval since it started (if any).
func waitQuiet(kong *kongdouble.Server, interval time.Duration) {
	posts := kong.Posts()
	if len(posts) == 0 {
		return
	}
	p := posts[len(posts)-1]
	rest := time.Duration(float64(p.End.Sub(p.Start)) * (1 - pacingBudget) / pacingBudget)
	until := p.End.Add(rest)
	if t := p.Start.Add(interval); t.After(until) {
		until = t
	}
	time.Sleep(time.Until(until) + 200*time.Millisecond)
}

// annotator writes the Ingress's regex-priority annotation: each value is a new config, and the
// config tells which change it includes.
type annotator struct {
	ctx context.Context
	ing *networkingv1.Ingress
}

func (a *annotator) set(t *testing.T, seq int) pacedChange {
	t.Helper()
	ing := a.ing.DeepCopy()
	if ing.Annotations == nil {
		ing.Annotations = map[string]string{}
	}
	ing.Annotations["konghq.com/regex-priority"] = strconv.Itoa(seq)
	c := pacedChange{seq: seq, at: time.Now()}
	out, err := admin.NetworkingV1().Ingresses(ing.Namespace).Update(a.ctx, ing, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.ing = out
	return c
}

// churn changes the config every pacingTick for d, the double's load time following loads.
func (a *annotator) churn(t *testing.T, kong *kongdouble.Server, loads []time.Duration, d time.Duration) []pacedChange {
	tick := time.NewTicker(pacingTick)
	defer tick.Stop()
	start, part := time.Now(), d/time.Duration(len(loads))
	var out []pacedChange
	for seq, phase := 1, 0; time.Since(start) < d; seq++ {
		if p := int(time.Since(start) / part); p != phase && p < len(loads) {
			phase = p
			kong.SetLoadTime(loads[p])
		}
		out = append(out, a.set(t, seq))
		<-tick.C
	}
	return out
}

var regexPriority = regexp.MustCompile(`"regex_priority":\s*(\d+)`)

// configSeq is the change a config includes: its route's regex_priority (-1 when none).
func configSeq(config string) int {
	m := regexPriority.FindStringSubmatch(config)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// postConfig is the config string of a POST /config body, {"config": "..."}.
func postConfig(t *testing.T, p kongdouble.Request) string {
	t.Helper()
	var body struct{ Config string }
	if err := json.Unmarshal(p.Body, &body); err != nil {
		t.Fatalf("POST body: %v", err)
	}
	return body.Config
}

// checkPacedPosts: every POST taken (never 429), each after the previous load's rest (and the
// interval, if set), and Kong loading at most 25 % of the churn.
func checkPacedPosts(t *testing.T, sc pacingScenario, posts []kongdouble.Request, start, end time.Time) {
	t.Helper()
	var busy time.Duration
	for i, p := range posts {
		if p.Status != http.StatusCreated {
			t.Errorf("POST %d answered %d, want 201 (one load at a time, never a 429)", i, p.Status)
		}
		busy += overlap(p.Start, p.End, start, end)
		if i == 0 {
			continue
		}
		prev := posts[i-1]
		load := prev.End.Sub(prev.Start)
		rest := time.Duration(float64(load)*(1-pacingBudget)/pacingBudget) - 10*time.Millisecond
		if gap := p.Start.Sub(prev.End); gap < rest {
			t.Errorf("POST %d started %v after a load of %v ended, want ≥ %v", i, gap, load, rest)
		}
		if gap := p.Start.Sub(prev.Start); sc.interval > 0 && gap < sc.interval {
			t.Errorf("POSTs %d and %d started %v apart, want ≥ %v (--proxy-sync-seconds)", i-1, i, gap, sc.interval)
		}
		// Where the rest alone would allow a POST sooner than the interval, the interval is what
		// spaces them: the POST follows it closely.
		if sc.interval > 0 && load*5 < sc.interval*9/10 {
			if gap := p.Start.Sub(prev.Start); gap > sc.interval+500*time.Millisecond {
				t.Errorf("POSTs %d and %d started %v apart after a %v load, want about the interval %v", i-1, i, gap, load, sc.interval)
			}
		}
	}
	share := busy.Seconds() / end.Sub(start).Seconds()
	t.Logf("%d POSTs in %v of churn (%d changes); Kong loading %.1f%% of the time", len(posts), end.Sub(start).Round(time.Second),
		int(end.Sub(start)/pacingTick), 100*share)
	if share > 0.25 {
		t.Errorf("Kong loading %.1f%% of the churn, want ≤ 25%%", 100*share)
	}
}

func overlap(s, e, from, to time.Time) time.Duration {
	if s.Before(from) {
		s = from
	}
	if e.After(to) {
		e = to
	}
	return max(e.Sub(s), 0)
}

// checkChangesInKong: each change is in Kong (a load of a config including it has ended) within
// the window, then the load in flight and its rest or the interval, then its own load.
func checkChangesInKong(t *testing.T, sc pacingScenario, changes []pacedChange, posts []kongdouble.Request) {
	t.Helper()
	longest := sc.loads[0]
	for _, l := range sc.loads {
		longest = max(longest, l)
	}
	hold := max(time.Duration(float64(longest)/pacingBudget), sc.interval)
	bound := pacingWindow + hold + longest + pacingSlack
	seqs := make([]int, len(posts))
	for i, p := range posts {
		seqs[i] = configSeq(postConfig(t, p))
	}
	var worst time.Duration
	for _, c := range changes {
		in := inKong(posts, seqs, c)
		if in < 0 {
			t.Errorf("change %d never reached Kong", c.seq)
			continue
		}
		worst = max(worst, in)
		if in > bound {
			t.Errorf("change %d in Kong %v after it was made, want ≤ %v", c.seq, in, bound)
		}
	}
	last := changes[len(changes)-1]
	t.Logf("every change in Kong within %v (bound %v); the last one, after the churn stopped: %v", worst.Round(time.Millisecond),
		bound, inKong(posts, seqs, last).Round(time.Millisecond))
}

// inKong is how long after change c a load of a config including it ended (-1: none did).
func inKong(posts []kongdouble.Request, seqs []int, c pacedChange) time.Duration {
	for i, p := range posts {
		if p.Status == http.StatusCreated && seqs[i] >= c.seq && p.Start.After(c.at) {
			return p.End.Sub(c.at)
		}
	}
	return -1
}

// checkPacingMetrics: kongsync_kong_load_seconds_total is Kong's own figure for the loads (the
// double's X-Kong-Admin-Latency), and the deferred pushes are counted by the rule that held them.
func checkPacingMetrics(t *testing.T, sc pacingScenario, addr string, kong *kongdouble.Server) {
	t.Helper()
	// The double records a POST before kongsync reads the answer; the worker's next GET /status
	// comes after it has counted the POST.
	posts := kong.Posts()
	lastEnd := posts[len(posts)-1].End
	waitDouble(t, kong, "a probe after the last POST", func() bool {
		reqs := kong.Requests()
		r := reqs[len(reqs)-1]
		return r.Path == "/status" && r.Start.After(lastEnd)
	})
	var loaded time.Duration
	for _, p := range kong.Posts() {
		if p.Status == http.StatusCreated || p.Status == http.StatusNotModified {
			loaded += p.End.Sub(p.Start)
		}
	}
	replica := `replica="` + kong.URL() + `"`
	got := metricAt(t, addr, "kongsync_kong_load_seconds_total{"+replica+"}")
	if got > loaded.Seconds() || got < 0.97*loaded.Seconds()-0.05 {
		t.Errorf("kongsync_kong_load_seconds_total = %v, want the loads' %v (Kong's whole milliseconds)", got, loaded.Seconds())
	}
	budget := metricAt(t, addr, `kongsync_pushes_deferred_total{reason="load_budget",`+replica+"}")
	interval := metricAt(t, addr, `kongsync_pushes_deferred_total{reason="proxy_sync_interval",`+replica+"}")
	t.Logf("metrics: Kong loading %.2f s in all; pushes deferred: %v by the budget, %v by the interval", got, max(budget, 0), max(interval, 0))
	if budget < 1 {
		t.Errorf("no push deferred by the load budget")
	}
	if sc.interval > 0 && interval < 1 {
		t.Errorf("no push deferred by --proxy-sync-seconds")
	}
}

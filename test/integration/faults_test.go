//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restwatch "k8s.io/client-go/rest/watch"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/runner"
	kongsync "github.com/kongsync/kongsync/sync"
)

// converged is the bound the issue sets: Kong holds the latest config within this long of a
// fault ending.
const converged = 2 * time.Second

// observer records the sync loop's events (builds, pushes, probes) from the runner's Observe
// hook and wakes waiters on each, so tests wait on what kongsync did instead of sleeping.
type observer struct {
	mu      gosync.Mutex
	events  []kongsync.Event
	changed chan struct{}
}

func newObserver() *observer { return &observer{changed: make(chan struct{})} }

func (o *observer) observe(e kongsync.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
	close(o.changed)
	o.changed = make(chan struct{})
}

// count returns how many events since index from satisfy match, and the total so far.
func (o *observer) count(from int, match func(kongsync.Event) bool) (n, total int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.events[min(from, len(o.events)):] {
		if match(e) {
			n++
		}
	}
	return n, len(o.events)
}

func (o *observer) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.events)
}

// lastBuild is the hash of the latest build.
func (o *observer) lastBuild() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.events) - 1; i >= 0; i-- {
		if o.events[i].Type == kongsync.EventBuild {
			return o.events[i].Hash
		}
	}
	return ""
}

// wait blocks until at least n events since index from match (bounded by waitTimeout).
func (o *observer) wait(t *testing.T, what string, from, n int, match func(kongsync.Event) bool) {
	t.Helper()
	ctx := ctxT(t)
	for {
		o.mu.Lock()
		ch := o.changed
		o.mu.Unlock()
		if got, _ := o.count(from, match); got >= n {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			got, _ := o.count(from, match)
			t.Fatalf("waiting for %s: saw %d of %d", what, got, n)
		}
	}
}

func isProbe(ok bool) func(kongsync.Event) bool {
	return func(e kongsync.Event) bool { return e.Type == kongsync.EventProbe && (e.Err == nil) == ok }
}

func isPush(r kongsync.Result) func(kongsync.Event) bool {
	return func(e kongsync.Event) bool {
		return e.Type == kongsync.EventPush && e.Outcome != nil && e.Outcome.Result == r
	}
}

func isBuildOf(hashNot string) func(kongsync.Event) bool {
	return func(e kongsync.Event) bool { return e.Type == kongsync.EventBuild && e.Hash != hashNot }
}

// faultRig is one kongsync with its metrics endpoint, one Kong double and one app already in
// Kong: the starting point of every fault test.
type faultRig struct {
	ns      string
	kong    *kongdouble.Server
	obs     *observer
	metrics string // host:port of /metrics
	good    string // the hash Kong holds before the fault
}

func newFaultRig(t *testing.T) *faultRig { return newFaultRigWith(t, nil) }

// newFaultRigWith is newFaultRig with more settings.
func newFaultRigWith(t *testing.T, mutate func(*runner.Config)) *faultRig {
	t.Helper()
	r := &faultRig{ns: newNamespace(t), kong: newDouble(t), obs: newObserver(), metrics: freeAddr(t)}
	in := startKongsync(t, "a", r.ns, []*kongdouble.Server{r.kong}, func(c *runner.Config) {
		c.MetricsBindAddress = r.metrics
		c.Hooks.Observe = r.obs.observe
		if mutate != nil {
			mutate(c)
		}
	})
	app{ns: r.ns, name: "web", host: "v0.example.com"}.create(t)
	waitDouble(t, r.kong, "the config before the fault", func() bool { return hasHost(r.kong, "v0.example.com") })
	in.waitReady(t)
	r.good = r.kong.Hash()
	return r
}

// setHost changes the Ingress's host: one write, one new config.
func (r *faultRig) setHost(t *testing.T, host string) {
	t.Helper()
	ctx := ctxT(t)
	ing, err := admin.NetworkingV1().Ingresses(r.ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ing.Spec.Rules[0].Host = host
	if _, err := admin.NetworkingV1().Ingresses(r.ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// change sets the host and waits until the loop has built the new config; returns its hash.
func (r *faultRig) change(t *testing.T, host string) string {
	t.Helper()
	prev := r.obs.lastBuild()
	from := r.obs.len()
	r.setHost(t, host)
	r.obs.wait(t, "a build for "+host, from, 1, isBuildOf(prev))
	return r.obs.lastBuild()
}

// metric scrapes /metrics and returns the value of one series (name{labels}); -1 if absent.
func (r *faultRig) metric(t *testing.T, series string) float64 {
	t.Helper()
	return metricAt(t, r.metrics, series)
}

// metricAt scrapes /metrics at addr and returns the value of one series (name{labels}); -1 if
// absent.
func metricAt(t *testing.T, addr, series string) float64 {
	t.Helper()
	code, body := get(t, "http://"+addr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", series, err)
			}
			return f
		}
	}
	return -1
}

func (r *faultRig) series(name string, labels ...string) string {
	l := `replica="` + r.kong.URL() + `"`
	for _, x := range labels {
		l += "," + x
	}
	return name + "{" + l + "}"
}

// acceptedPosts lists the POSTs after index from that Kong took (2xx): during a fault there
// must be none but the final one, so Kong kept the last good config until then.
func (r *faultRig) acceptedPosts(from int) []kongdouble.Request {
	var out []kongdouble.Request
	for _, p := range r.kong.Posts()[from:] {
		if p.Status == 200 || p.Status == 201 {
			out = append(out, p)
		}
	}
	return out
}

// waitConverged waits until Kong holds want and returns how long after faultEnd that was, by
// the double's own record of the accepting request (not when this goroutine woke).
func (r *faultRig) waitConverged(t *testing.T, want string, faultEnd time.Time) time.Duration {
	t.Helper()
	if err := r.kong.WaitHash(ctxT(t), want); err != nil {
		t.Fatalf("Kong never got the latest config %s (holds %s): %v", want, r.kong.Hash(), err)
	}
	posts := r.kong.Posts()
	for i := len(posts) - 1; i >= 0; i-- {
		if posts[i].Status == 201 || posts[i].Status == 200 {
			return posts[i].End.Sub(faultEnd)
		}
	}
	t.Fatal("Kong holds the config but no POST was accepted")
	return 0
}

// faultOutage is KONGSYNC_FAULT_OUTAGE (default 5s): how long Kong stays unreachable. The
// issue asks for 60 s; `KONGSYNC_FAULT_OUTAGE=60s` runs that full-length version.
func faultOutage(t *testing.T) time.Duration {
	v := os.Getenv("KONGSYNC_FAULT_OUTAGE")
	if v == "" {
		return 5 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("KONGSYNC_FAULT_OUTAGE=%q: want a positive duration such as 60s", v)
	}
	return d
}

// Kong's admin API is unreachable (connection refused) for KONGSYNC_FAULT_OUTAGE (default 5 s;
// set 60s for the full length) while two changes happen. Kong keeps the last good
// config, the replica shows as unreachable and out of sync in the metrics, and once the port
// reopens the latest config (not the intermediate one) arrives within 2 s, in one POST.
func TestFaultKongUnreachableThenBack(t *testing.T) {
	// The runner reports replica-wide failures as Events on its own Pod (downward API env).
	pod := "kongsync-fault-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Setenv("POD_NAMESPACE", "default")
	t.Setenv("POD_NAME", pod)
	r := newFaultRig(t)
	outage := faultOutage(t)
	from := r.obs.len()
	r.kong.Stop()
	t0 := time.Now()
	r.obs.wait(t, "a failed probe", from, 1, isProbe(false))
	r.change(t, "mid.example.com")
	want := r.change(t, "v1.example.com")
	// Two failed probes after the last build: the gauges set by the first (which follow the
	// hook) describe the new desired config.
	r.obs.wait(t, "two failed probes", r.obs.len(), 2, isProbe(false))
	if v := r.metric(t, r.series("kongsync_replica_reachable")); v != 0 {
		t.Errorf("kongsync_replica_reachable during the outage = %v, want 0", v)
	}
	if v := r.metric(t, r.series("kongsync_replica_in_sync")); v != 0 {
		t.Errorf("kongsync_replica_in_sync during the outage = %v, want 0", v)
	}
	ev := waitEvent(t, "default", "Pod", pod, metrics.ReasonPushFailed)
	t.Logf("Event during the outage: %s", ev.Message)
	<-time.After(outage - time.Since(t0)) // the fault's duration, not a wait for an outcome
	if r.kong.Hash() != r.good {
		t.Fatalf("Kong lost its config during the outage: %s, want %s", r.kong.Hash(), r.good)
	}
	postsBefore := len(r.kong.Posts())
	if err := r.kong.Start(); err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	took := r.waitConverged(t, want, end)
	t.Logf("Kong unreachable for %s; latest config loaded %s after the port reopened", outage, took.Round(time.Millisecond))
	if took > converged {
		t.Errorf("converged %s after the outage, want ≤ %s", took, converged)
	}
	if n := len(r.kong.Posts()) - postsBefore; n != 1 {
		t.Errorf("%d POSTs after the outage, want 1 (the latest config only)", n)
	}
	fromOK := r.obs.len()
	r.obs.wait(t, "two good probes after the outage", fromOK, 2, isProbe(true))
	if v := r.metric(t, r.series("kongsync_replica_reachable")); v != 1 {
		t.Errorf("kongsync_replica_reachable after the outage = %v, want 1", v)
	}
	if v := r.metric(t, r.series("kongsync_replica_in_sync")); v != 1 {
		t.Errorf("kongsync_replica_in_sync after the outage = %v, want 1", v)
	}
}

// Kong answers 429 with Retry-After: 1 twice (as while it loads a previous config): each retry
// waits at least the second Kong asked for, Kong keeps its config meanwhile, the pushes show as
// "busy" in the metrics, and the config arrives within 2 s of the last Retry-After running out.
func TestFaultTooManyRequestsRetryAfter(t *testing.T) {
	r := newFaultRig(t)
	r.kong.AddFault(kongdouble.Fault{Status: 429, RetryAfter: "1", Times: 2})
	from := len(r.kong.Posts())
	want := r.change(t, "v1.example.com")
	if err := r.kong.WaitHash(ctxT(t), want); err != nil {
		t.Fatalf("the config never arrived after the 429s: %v", err)
	}
	posts := r.kong.Posts()[from:]
	var busy []kongdouble.Request
	for i, p := range posts {
		if p.Status == 429 {
			busy = append(busy, p)
			if i+1 < len(posts) {
				gap := posts[i+1].Start.Sub(p.End)
				t.Logf("POST after a 429 came %s later", gap.Round(time.Millisecond))
				if gap < time.Second {
					t.Errorf("retried %s after a 429 with Retry-After: 1", gap)
				}
			}
		}
	}
	if len(busy) != 2 {
		t.Fatalf("%d POSTs answered 429, want 2 (posts: %d)", len(busy), len(posts))
	}
	if acc := r.acceptedPosts(from); len(acc) != 1 {
		t.Errorf("%d accepted POSTs, want only the final one", len(acc))
	}
	faultEnd := busy[1].End.Add(time.Second) // when Kong said it would be ready
	took := r.waitConverged(t, want, faultEnd)
	t.Logf("converged %s after the last Retry-After ran out", took.Round(time.Millisecond))
	if took > converged {
		t.Errorf("converged %s after the fault, want ≤ %s", took, converged)
	}
	if v := r.metric(t, r.series("kongsync_pushes_total", `result="busy"`)); v != 2 {
		t.Errorf(`kongsync_pushes_total{result="busy"} = %v, want 2`, v)
	}
}

// Kong answers every POST with 500 and, twice, lets GET /status hang past the 2 s probe
// timeout. Kong keeps the last good config; the retries back off (gaps grow); the metrics show
// the server errors and the unreachable replica; after the fault the config arrives within 2 s.
//
// The POST timeout (30 s) is not lowered by runner.Config, so a POST that times out is not
// exercised here (the sync package tests it with a short Timeout); the hung probes are real
// client-side timeouts.
func TestFaultServerErrorsAndTimeouts(t *testing.T) {
	r := newFaultRig(t)
	r.kong.AddFault(kongdouble.Fault{Method: "GET", Path: "/status", Delay: 3 * time.Second, Times: 2})
	r.kong.AddFault(kongdouble.Fault{Status: 500})
	from, fromPosts := r.obs.len(), len(r.kong.Posts())
	want := r.change(t, "v1.example.com")
	r.obs.wait(t, "2 probe timeouts", from, 2, isProbe(false))
	r.obs.wait(t, "3 server errors after them", r.obs.len(), 3, isPush(kongsync.ResultServerError))
	if v := r.metric(t, r.series("kongsync_pushes_total", `result="server_error"`)); v < 4 {
		t.Errorf(`kongsync_pushes_total{result="server_error"} = %v, want ≥ 4`, v)
	}
	if r.kong.Hash() != r.good {
		t.Fatalf("Kong's config changed during the fault: %s", r.kong.Hash())
	}
	r.kong.ClearFaults()
	cleared := time.Now()
	// A request already hanging when the faults are cleared is still part of the fault.
	faultEnd := cleared
	_ = r.waitConverged(t, want, cleared)
	// Backoff after the last hung probe (a probe that answers again resets the streak).
	var lastHung time.Time
	for _, q := range r.kong.Requests() {
		if q.Path == "/status" && q.Status == 0 && q.End.After(lastHung) {
			lastHung = q.End
		}
	}
	var gaps []time.Duration
	posts := r.kong.Posts()[fromPosts:]
	for i, p := range posts {
		if p.Status >= 500 && i+1 < len(posts) && p.Start.After(lastHung) {
			gaps = append(gaps, posts[i+1].Start.Sub(p.End).Round(time.Millisecond))
		}
	}
	for _, q := range r.kong.Requests() {
		if (q.Status == 0 || q.Status >= 500) && q.End.After(faultEnd) {
			faultEnd = q.End
		}
	}
	took := r.waitConverged(t, want, faultEnd)
	t.Logf("gaps after each 500 once the probes answer again (backoff): %v", gaps)
	t.Logf("converged %s after the last faulty answer (%s after ClearFaults)", took.Round(time.Millisecond),
		r.waitConverged(t, want, cleared).Round(time.Millisecond))
	if took > converged {
		t.Errorf("converged %s after the fault, want ≤ %s", took, converged)
	}
	if acc := r.acceptedPosts(fromPosts); len(acc) != 1 {
		t.Errorf("%d accepted POSTs, want only the final one", len(acc))
	}
	// Failure n waits [d/2, d], d = 200 ms·2ⁿ⁻¹: consecutive waits never shrink.
	if len(gaps) < 3 {
		t.Fatalf("only %d retries after the probe timeouts: %v", len(gaps), gaps)
	}
	for i := 1; i < len(gaps); i++ {
		if gaps[i] < gaps[i-1] {
			t.Errorf("retry gaps shrank: %v", gaps)
		}
	}
}

// Kong takes 5 s per POST while changes keep coming: the first change is posted (with those
// that arrived within its window), the others arrive while Kong is busy, and the next POST
// carries the latest of them: two POSTs in all, no intermediate config after the first, no
// pile-up of requests. Pacing by cost is off here (--kong-load-budget=1): with the default 20 %,
// the POST after a 5 s load rightly waits 20 s more (pacing_test.go shows pacing; this test
// shows coalescing behind a slow POST).
func TestFaultSlowKongLatestWins(t *testing.T) {
	r := newFaultRigWith(t, func(c *runner.Config) { c.KongLoadBudget = 1 })
	r.kong.SetDelay(5 * time.Second)
	fromPosts := len(r.kong.Posts())
	first := r.change(t, "s1.example.com")
	r.change(t, "s2.example.com")
	r.change(t, "s3.example.com")
	want := r.change(t, "s4.example.com")
	if r.kong.Hash() != r.good {
		t.Fatalf("Kong's config changed before its slow load finished")
	}
	if err := r.kong.WaitPosts(ctxT(t), fromPosts+1); err != nil {
		t.Fatal(err)
	}
	r.kong.ClearFaults() // the POST already in flight still takes its 5 s
	took := r.waitConverged(t, want, r.kong.Posts()[fromPosts].End)
	posts := r.kong.Posts()[fromPosts:]
	t.Logf("%d POSTs; latest config loaded %s after the first slow POST ended", len(posts), took.Round(time.Millisecond))
	if len(posts) != 2 {
		t.Errorf("%d POSTs, want 2 (the first change, then the latest)", len(posts))
	}
	if gap := posts[len(posts)-1].Start.Sub(posts[0].End); gap > converged {
		t.Errorf("latest config posted %s after Kong was free, want ≤ %s", gap, converged)
	}
	// The first POST carries the first change, or a later one that arrived within its coalescing
	// window (the changes come faster than the window under load); the ones after it only the
	// latest.
	for i, p := range posts[1:] {
		body := string(p.Body)
		if strings.Contains(body, "s2.example.com") || strings.Contains(body, "s3.example.com") {
			t.Errorf("POST %d carried an intermediate config", i+1)
		}
	}
	if b := string(posts[0].Body); !strings.Contains(b, "s1.example.com") && !strings.Contains(b, "s2.example.com") &&
		!strings.Contains(b, "s3.example.com") {
		t.Errorf("first POST carries none of the first changes (%s)", first)
	}
	if !hasHost(r.kong, "s4.example.com") {
		t.Error("Kong does not hold the latest host")
	}
}

// watchBreaker wraps kongsync's Kubernetes transport for the Ingresses of one namespace. It can
// end the open Ingress watch streams (as the apiserver does at a watch's timeout, or when a
// watcher falls too far behind) and hold the informer's next (re)list request until released.
type watchBreaker struct {
	next http.RoundTripper
	path string

	mu      gosync.Mutex
	bodies  []*expiringBody // open Ingress watch streams
	armed   bool
	held    chan string   // receives the held request's query when it arrives
	release chan struct{} // closed to send it on
	lists   int           // list or watch-list requests for the Ingresses
}

func newWatchBreaker(ns string) *watchBreaker {
	return &watchBreaker{path: "/apis/networking.k8s.io/v1/namespaces/" + ns + "/ingresses",
		held: make(chan string, 1), release: make(chan struct{})}
}

func (w *watchBreaker) wrap(rt http.RoundTripper) http.RoundTripper { w.next = rt; return w }

func (w *watchBreaker) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path != w.path {
		return w.next.RoundTrip(req)
	}
	q := req.URL.Query()
	isWatch := q.Get("watch") == "true" || q.Get("watch") == "1"
	w.mu.Lock()
	if !isWatch || q.Get("sendInitialEvents") == "true" {
		w.lists++
	}
	armed := w.armed
	w.armed = false
	w.mu.Unlock()
	if armed {
		w.held <- req.URL.RawQuery
		select {
		case <-w.release:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	resp, err := w.next.RoundTrip(req)
	if err == nil && isWatch {
		b := newExpiringBody(resp.Body, resp.Header.Get("Content-Type"))
		resp.Body = b
		w.mu.Lock()
		w.bodies = append(w.bodies, b)
		w.mu.Unlock()
	}
	return resp, err
}

// expiringBody passes a watch stream through until it is ended: plainly (the stream just
// stops), or expired — the stream then ends with the ERROR event carrying a 410 Expired Status,
// byte for byte what the kube-apiserver sends when a watch's resourceVersion was compacted away.
type expiringBody struct {
	under   io.ReadCloser
	pr      *io.PipeReader
	pw      *io.PipeWriter
	expired atomic.Bool
	event   []byte
}

// expiredEvent encodes the watch ERROR event with a 410 Expired Status in the stream's own
// media type (client-go asks for protobuf), exactly as the apiserver frames it.
func expiredEvent(contentType string) []byte {
	mediaType := strings.TrimSpace(strings.Split(contentType, ";")[0])
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil {
		panic("no stream serializer for " + contentType)
	}
	var buf bytes.Buffer
	enc := restwatch.NewEncoder(streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&buf), info.StreamSerializer.Serializer), info.Serializer)
	status := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: "too old resource version: 1 (2)", Reason: metav1.StatusReasonExpired, Code: http.StatusGone}
	if err := enc.Encode(&watch.Event{Type: watch.Error, Object: status}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func newExpiringBody(under io.ReadCloser, contentType string) *expiringBody {
	pr, pw := io.Pipe()
	b := &expiringBody{under: under, pr: pr, pw: pw, event: expiredEvent(contentType)}
	go func() {
		_, err := io.Copy(pw, under)
		if b.expired.Load() {
			_, _ = pw.Write(b.event)
			err = nil
		}
		_ = pw.CloseWithError(err)
	}()
	return b
}

func (b *expiringBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

func (b *expiringBody) Close() error {
	_ = b.pr.Close()
	return b.under.Close()
}

// end stops the stream; with expire, it ends with a 410 Expired event instead of plain EOF.
func (b *expiringBody) end(expire bool) {
	b.expired.Store(expire)
	_ = b.under.Close()
}

// kick arms the breaker and ends the open Ingress watches (with a 410 Expired event when
// expire is set), so the informer lists again.
func (w *watchBreaker) kick(expire bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = true
	for _, b := range w.bodies {
		b.end(expire)
	}
	n := len(w.bodies)
	w.bodies = nil
	return n
}

func (w *watchBreaker) listCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lists
}

// The Ingress watch ends and the informer's re-list is held back while an Ingress changes: the
// change was made when no watch was open, so only the re-list can bring it, and it must reach
// Kong within 2 s of the re-list going out; Kong keeps the last good config until then.
//
// What this proves: a watch that ends (apiserver timeout, dropped stream) costs nothing, even
// for changes made in the gap. What it does not: the 410 Gone path. With client-go v0.37
// informers use watch-list requests ("not older than" the last resourceVersion), and the
// kube-apiserver 1.37 of the harness answered a watch rewritten to resourceVersion=1 by
// replaying, not with 410 — also right after compacting etcd to its current revision — so no
// way was found to make the real apiserver expire a watch in a short test.
func TestFaultWatchEndsChangeInGapArrives(t *testing.T) { watchGapTest(t, false) }

// The same with the watch expiring: the stream ends with the apiserver's 410 Expired ERROR event
// (injected by the test transport at the moment the watch is idle, since no short test can make
// kube-apiserver 1.37 compact away a live watch's resourceVersion — see above). client-go's
// reflector must re-list, and the change made before that re-list must reach Kong.
func TestFaultWatchExpired410Relists(t *testing.T) { watchGapTest(t, true) }

func watchGapTest(t *testing.T, expire bool) {
	ns, kong, obs := newNamespace(t), newDouble(t), newObserver()
	wb := newWatchBreaker(ns)
	startKongsync(t, "a", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		c.RestConfig = plane.RestConfig()
		c.RestConfig.WrapTransport = wb.wrap
		c.Hooks.Observe = obs.observe
	})
	r := &faultRig{ns: ns, kong: kong, obs: obs}
	app{ns: ns, name: "web", host: "v0.example.com"}.create(t)
	waitDouble(t, kong, "the config before the fault", func() bool { return hasHost(kong, "v0.example.com") })
	good := kong.Hash()
	if n := wb.kick(expire); n == 0 {
		t.Fatal("no Ingress watch was open to end")
	}
	var query string
	select {
	case query = <-wb.held:
	case <-time.After(waitTimeout):
		t.Fatal("the informer never listed again after its watch ended")
	}
	t.Logf("held re-list: %s", query)
	if q, _ := url.ParseQuery(query); expire && q.Get("watch") == "true" && q.Get("sendInitialEvents") != "true" {
		t.Fatalf("after 410 Expired the informer resumed its watch (%s) instead of listing again", query)
	}
	lists := wb.listCount()
	r.setHost(t, "v1.example.com") // no watch is open: only the re-list can bring this
	if kong.Hash() != good {
		t.Fatalf("Kong's config changed while no watch was open")
	}
	from := obs.len()
	close(wb.release)
	released := time.Now()
	waitDouble(t, kong, "the change made while no watch was open", func() bool { return hasHost(kong, "v1.example.com") })
	took := r.waitConverged(t, kong.Hash(), released)
	t.Logf("re-list → change in Kong %s after the re-list was let through", took.Round(time.Millisecond))
	if took > converged {
		t.Errorf("converged %s after the watch came back, want ≤ %s", took, converged)
	}
	if wb.listCount() != lists {
		t.Errorf("%d more lists than the held one", wb.listCount()-lists)
	}
	// The hook sees the push after the double answered it: wait for it, then count.
	obs.wait(t, "the accepted push", from, 1, isPush(kongsync.ResultAccepted))
	if n, _ := obs.count(from, isPush(kongsync.ResultAccepted)); n != 1 {
		t.Errorf("%d accepted pushes after the re-list, want 1", n)
	}
}

// A POST hangs past kongsync's 30 s POST timeout (runner.Config cannot lower it, so this takes
// ~35 s and runs only with KONGSYNC_FAULT_POST_TIMEOUT=1). The client gives up, Kong keeps the
// last good config, the push counts as a network error, and the config arrives within 2 s of the
// timeout.
func TestFaultPostTimeoutFullLength(t *testing.T) {
	if os.Getenv("KONGSYNC_FAULT_POST_TIMEOUT") == "" {
		t.Skip("takes ~35 s (the 30 s POST timeout is not settable); set KONGSYNC_FAULT_POST_TIMEOUT=1")
	}
	r := newFaultRig(t)
	r.kong.AddFault(kongdouble.Fault{Delay: kongsync.DefaultTimeout + 5*time.Second, Times: 1})
	fromPosts := len(r.kong.Posts())
	want := r.change(t, "v1.example.com")
	ctx, cancel := context.WithTimeout(context.Background(), kongsync.DefaultTimeout+waitTimeout)
	defer cancel()
	if err := r.kong.WaitPosts(ctx, fromPosts+1); err != nil {
		t.Fatal(err)
	}
	hung := r.kong.Posts()[fromPosts]
	if hung.Status != 0 {
		t.Fatalf("first POST answered %d, want a client timeout", hung.Status)
	}
	t.Logf("client gave up after %s", hung.End.Sub(hung.Start).Round(time.Millisecond))
	if r.kong.Hash() != r.good {
		t.Fatalf("Kong's config changed during the hung POST")
	}
	took := r.waitConverged(t, want, hung.End)
	t.Logf("converged %s after the timeout", took.Round(time.Millisecond))
	if took > converged {
		t.Errorf("converged %s after the timeout, want ≤ %s", took, converged)
	}
	if v := r.metric(t, r.series("kongsync_pushes_total", `result="network_error"`)); v != 1 {
		t.Errorf(`kongsync_pushes_total{result="network_error"} = %v, want 1`, v)
	}
}

package sync

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// Test annotations understood by fakeTranslate.
const (
	annPort    = "test/port"    // service port (an invalid one makes Kong reject the service)
	annProblem = "test/problem" // the object becomes a translator problem instead
	annKey     = "test/key"     // adds a (broken) certificate with this private key text
	annNoTags  = "test/notags"  // the service carries no k8s-* tags
	annPanic   = "test/panic"   // the translator panics
)

// buildWith turns a fake translation into a BuildFunc that encodes as translator.Engine does:
// with a document.JSONCache, whose changed configs defer their md5 past the hand-over.
func buildWith(translate func(*store.Snapshot) translator.Result) BuildFunc {
	jc := document.NewJSONCache()
	return func(snap *store.Snapshot) (translator.Built, error) {
		res := translate(snap)
		cfg, err := jc.EncodeConfig(res.Document)
		return translator.Built{Result: res, Config: cfg}, err
	}
}

// fakeTranslate maps each Service to a Kong service tagged like KIC tags it, so tests do not
// depend on the real translator.
func fakeTranslate(snap *store.Snapshot) translator.Result {
	doc := document.New()
	var problems []translator.Problem
	for _, s := range snap.Services() {
		ref := store.Ref{Kind: store.KindService, Namespace: s.Namespace, Name: s.Name}
		if reason := s.Annotations[annProblem]; reason != "" {
			problems = append(problems, translator.Problem{Object: ref, Reason: reason})
			continue
		}
		if s.Annotations[annPanic] != "" {
			panic("fake translator: " + s.Name)
		}
		port := 80
		if p := s.Annotations[annPort]; p != "" {
			port, _ = strconv.Atoi(p)
		}
		name := s.Namespace + "." + s.Name
		tags := kong.StringSlice("k8s-name:"+s.Name, "k8s-namespace:"+s.Namespace, "k8s-kind:Service", "k8s-version:v1")
		if s.Annotations[annNoTags] != "" {
			tags = nil
		}
		doc.Services = append(doc.Services, &document.Service{Service: kong.Service{
			Name: kong.String(name), Host: kong.String(s.Name + "." + s.Namespace + ".svc"), Port: kong.Int(port), Tags: tags,
		}})
		if key := s.Annotations[annKey]; key != "" {
			doc.Certificates = append(doc.Certificates, &document.Certificate{
				ID:   kong.String("00000000-0000-4000-8000-" + fmt.Sprintf("%012d", len(doc.Certificates))),
				Cert: kong.String("not a certificate"), Key: kong.String(key), Tags: tags,
			})
		}
	}
	return translator.Result{Document: doc, Problems: problems}
}

// events records the loop's Observe events and lets tests wait on them.
type events struct {
	mu      gosync.Mutex
	list    []Event
	changed chan struct{}
}

func newEvents() *events { return &events{changed: make(chan struct{})} }

func (e *events) observe(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *events) ch() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.changed
}

func (e *events) all() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.list...)
}

func (e *events) count(typ EventType) int {
	n := 0
	for _, ev := range e.all() {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// reporter records Reporter and FlavorReporter calls.
type reporter struct {
	mu         gosync.Mutex
	problems   [][]translator.Problem
	rejections []Rejection
	failures   []Result
	mismatches []string // "replica flavor chosen" per RouterFlavorMismatch
}

func (r *reporter) RouterFlavorMismatch(replica string, flavor, chosen translator.RouterFlavor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mismatches = append(r.mismatches, replica+" "+string(flavor)+" "+string(chosen))
}

func (r *reporter) flavorMismatches() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.mismatches...)
}

func (r *reporter) TranslationProblems(p []translator.Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, p)
}

func (r *reporter) KongRejected(rs []Rejection) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rejections = append(r.rejections, rs...)
}

func (r *reporter) ReplicaFailed(_ string, res Result, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, res)
}

func (r *reporter) snapshot() ([][]translator.Problem, []Rejection, []Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]translator.Problem(nil), r.problems...), append([]Rejection(nil), r.rejections...),
		append([]Result(nil), r.failures...)
}

// metrics records Metrics and ProbeMetrics calls.
type metrics struct {
	mu           gosync.Mutex
	translations []TranslationStats
	pushes       []Result
	pushStats    []PushStats
	observed     []string // the replica of every push and probe, in order
	forgotten    []string // ForgetReplica calls
	forgottenAt  []int    // len(observed) at each ForgetReplica
	probes       []string // "reachable/synced" per probe, e.g. "true/false"
	latencies    []string // "replica d" per ObserveChangeToPost
	latency      []time.Duration
	deferred     []PaceReason      // ObserveDeferred calls
	flavors      map[string]string // replica → "flavor mismatched", the last ObserveRouterFlavor
}

func (m *metrics) ObserveRouterFlavor(replica string, f translator.RouterFlavor, mismatched bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.flavors == nil {
		m.flavors = map[string]string{}
	}
	m.flavors[replica] = fmt.Sprintf("%s %v", f, mismatched)
}

func (m *metrics) flavorOf(replica string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.flavors[replica]
}

func (m *metrics) ObserveDeferred(_ string, why PaceReason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deferred = append(m.deferred, why)
}

func (m *metrics) deferrals() []PaceReason {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]PaceReason(nil), m.deferred...)
}

func (m *metrics) ObserveChangeToPost(replica string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.latencies = append(m.latencies, replica)
	m.latency = append(m.latency, d)
}

func (m *metrics) changeToPost() ([]string, []time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.latencies...), append([]time.Duration(nil), m.latency...)
}

func (m *metrics) ObserveTranslation(s TranslationStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.translations = append(m.translations, s)
}

func (m *metrics) ObservePush(s PushStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pushes = append(m.pushes, s.Result)
	m.pushStats = append(m.pushStats, s)
	m.observed = append(m.observed, s.Replica)
}

func (m *metrics) ObserveProbe(replica string, reachable, synced bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.probes = append(m.probes, fmt.Sprintf("%v/%v", reachable, synced))
	m.observed = append(m.observed, replica)
}

func (m *metrics) ForgetReplica(replica string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgotten = append(m.forgotten, replica)
	m.forgottenAt = append(m.forgottenAt, len(m.observed))
}

// replicaRecord returns what ReplicaMetrics saw: the replicas forgotten, and for each the
// observations made of it after it was forgotten.
func (m *metrics) replicaRecord() (forgotten []string, after []int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.forgotten {
		n := 0
		for _, o := range m.observed[m.forgottenAt[i]:] {
			if o == r {
				n++
			}
		}
		forgotten, after = append(forgotten, r), append(after, n)
	}
	return forgotten, after
}

func (m *metrics) pushStatsList() []PushStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]PushStats(nil), m.pushStats...)
}

func (m *metrics) lastProbe() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.probes) == 0 {
		return ""
	}
	return m.probes[len(m.probes)-1]
}

// logSink collects log lines from a funcr logger; changed is closed (and replaced) on each line
// so that wait can re-check a condition on the log without polling.
type logSink struct {
	mu      gosync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func (s *logSink) write(prefix, args string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(prefix + " " + args + "\n")
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// ch returns a channel closed at the next log line.
func (s *logSink) ch() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is a store, Kong doubles and a running loop.
type env struct {
	t     *testing.T
	store *store.Store
	kongs []*kongdouble.Server
	loop  *Loop
	ev    *events
	rep   *reporter
	met   *metrics
	logs  *logSink
	rv    atomic.Int64 // resourceVersions of upsertIn, which tests may call from two goroutines
	stop  func()
}

type envOpts struct {
	replicas int
	kong     kongdouble.Options
	// flavors, if set, are the router flavors of the doubles, one each (replicas defaults to
	// their number).
	flavors []string
	cfg     func(*Config)
	// setup, if set, prepares the doubles before the loop starts.
	setup func([]*kongdouble.Server)
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	if o.replicas == 0 {
		o.replicas = max(1, len(o.flavors))
	}
	e := &env{t: t, store: store.New(), ev: newEvents(), rep: &reporter{}, met: &metrics{}, logs: &logSink{}}
	var urls []string
	for i := 0; i < o.replicas; i++ {
		ko := o.kong
		if i < len(o.flavors) {
			ko.RouterFlavor = o.flavors[i]
		}
		k := kongdouble.New(ko)
		e.kongs = append(e.kongs, k)
		urls = append(urls, k.URL())
	}
	cfg := Config{
		Source: e.store, Build: buildWith(fakeTranslate), Replicas: urls,
		Replica: ReplicaOptions{Token: o.kong.Token, ProbeInterval: 50 * time.Millisecond, BackoffBase: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond},
		Window:  20 * time.Millisecond, MaxDelay: 100 * time.Millisecond,
		RetryRejectedBase: 20 * time.Millisecond, RetryRejectedMax: 200 * time.Millisecond,
		Reporter: e.rep, Metrics: e.met, Observe: e.ev.observe,
		Logger: funcr.New(e.logs.write, funcr.Options{Verbosity: 10}),
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if o.setup != nil {
		o.setup(e.kongs)
	}
	e.loop = l
	e.start()
	t.Cleanup(func() {
		e.stop()
		for _, k := range e.kongs {
			k.Close()
		}
	})
	return e
}

func (e *env) start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.loop.Run(ctx); err != nil {
			e.t.Error(err)
		}
	}()
	e.stop = func() { cancel(); <-done }
}

// upsert adds or changes a Service of namespace default and notifies the loop.
func (e *env) upsert(name string, ann map[string]string) { e.upsertIn("default", name, ann) }

// upsertIn adds or changes a Service and notifies the loop.
func (e *env) upsertIn(ns, name string, ann map[string]string) {
	rv := e.rv.Add(1)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		ResourceVersion: strconv.FormatInt(rv, 10), Annotations: ann}}
	if _, err := e.store.Upsert(svc); err != nil {
		e.t.Fatal(err)
	}
	e.loop.Notify()
}

// wait blocks until cond holds, re-checking whenever a loop event, a double request or a log
// line happens.
func (e *env) wait(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		evc, lc := e.ev.ch(), e.logs.ch()
		var kc []<-chan struct{}
		for _, k := range e.kongs {
			kc = append(kc, k.Changed())
		}
		if cond() {
			return
		}
		select {
		case <-evc:
		case <-lc:
		case <-chanAt(kc, 0):
		case <-chanAt(kc, 1):
		case <-deadline.C:
			e.t.Fatalf("timed out after %v waiting for %s\nreplicas: %+v\nstats: %+v", timeout, what, e.loop.Replicas(), e.loop.Stats())
		}
	}
}

func chanAt(chs []<-chan struct{}, i int) <-chan struct{} {
	if i < len(chs) {
		return chs[i]
	}
	return nil
}

// converged waits until the loop has built from the store as it is now and every double holds
// the loop's latest config.
func (e *env) converged(timeout time.Duration) string {
	e.t.Helper()
	var want string
	target := e.store.Version()
	e.wait("every replica to hold the latest config", timeout, func() bool {
		built := false
		for _, ev := range e.ev.all() {
			built = built || (ev.Type == EventBuild || ev.Type == EventSkip) && ev.Version >= target
		}
		want = e.loop.DesiredHash()
		if !built || want == "" {
			return false
		}
		for _, k := range e.kongs {
			held := document.Hash([]byte(k.Config()))
			if k.Config() == "" {
				held = emptyConfigHash // a fresh Kong is as good as one loaded with the empty config
			}
			if held != want {
				return false
			}
		}
		for _, st := range e.loop.Replicas() {
			if !st.Synced { // the worker has seen Kong's answer too
				return false
			}
		}
		return true
	})
	return want
}

var emptyConfigHash = func() string {
	p, err := NewPayload(document.New())
	if err != nil {
		panic(err)
	}
	return p.Hash()
}()

// nextEvent waits for the next event of a type after the current ones.
func (e *env) nextEvent(typ EventType, timeout time.Duration) Event {
	e.t.Helper()
	n := e.ev.count(typ)
	var got Event
	e.wait("a "+string(typ)+" event", timeout, func() bool {
		var seen int
		for _, ev := range e.ev.all() {
			if ev.Type == typ {
				seen++
				if seen == n+1 {
					got = ev
					return true
				}
			}
		}
		return false
	})
	return got
}

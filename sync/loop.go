package sync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	gosync "sync"
	"sync/atomic"
	"time"

	"github.com/blang/semver/v4"
	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

// Default coalescing timings (see docs/sync.md).
const (
	DefaultWindow   = 100 * time.Millisecond
	DefaultMaxDelay = 500 * time.Millisecond
)

// Source hands out snapshots; *store.Store is one.
type Source interface {
	Snapshot() *store.Snapshot
}

// BuildFunc turns a snapshot into an encoded configuration: the controller passes
// translator.Engine's Build, tests pass fakes.
type BuildFunc func(*store.Snapshot) (translator.Built, error)

// Config configures a Loop. Source and Build are required.
type Config struct {
	Source Source
	Build  BuildFunc
	// Replicas are the initial Kong admin URLs; SetReplicas replaces them at runtime.
	Replicas []string
	// Replica holds the client settings shared by every replica.
	Replica ReplicaOptions
	// Window is the quiet time after the last Notify before building (default 100 ms).
	Window time.Duration
	// MaxDelay bounds the wait after the first Notify of a burst (default 500 ms).
	MaxDelay time.Duration
	// LoadBudget is the share of time each Kong replica may spend loading what this loop
	// posts (default DefaultLoadBudget, 0.2): after a POST that cost Kong d, the next one to
	// that replica waits until d·(1−LoadBudget)/LoadBudget after it ended, and posts the latest
	// config then. 1 (or more) turns pacing by cost off. See docs/sync.md, "Pacing".
	LoadBudget float64
	// MinPushInterval, if positive, is the least time between the starts of two POSTs to one
	// replica: KIC's --proxy-sync-seconds, as KIC means it.
	MinPushInterval time.Duration
	// Reporter receives problems and rejections (default: discard).
	Reporter Reporter
	// Metrics receives measurements (default: discard).
	Metrics Metrics
	// Logger is used for structured logs; configs and tokens are never logged.
	Logger logr.Logger
	// Observe, if set, is called synchronously for every build, push and probe. For tests and
	// diagnostics; it must return quickly.
	Observe func(Event)
	// Follower starts the loop without pushing: it translates and probes every replica, so it
	// knows what each holds, but posts nothing until Lead(true). The controller sets it when
	// only the elected leader pushes (--kong-admin-svc, as KIC), so that a new leader pushes at
	// once, with a translation already made.
	Follower bool
	// Dumps, if set, keeps the last configuration a replica took and the last one it refused,
	// with Kong's answer (--dump-config).
	Dumps *Dumps
	// SetKongVersion, if set, is called on the loop goroutine before a translation whenever the
	// Kong version to translate for changes: the lowest version the replicas report in GET /
	// (translator.DefaultKongVersion until one has answered). The controller points it at the
	// Engine's options; Build must translate for that version from then on.
	SetKongVersion func(semver.Version)
	// SetRouterFlavor, if set, is called like SetKongVersion whenever the router flavor to
	// translate for changes: the one most replicas report in GET / (docs/sync.md, "Router
	// flavor"; RouterTraditionalCompatible until every replica has answered once).
	SetRouterFlavor func(translator.RouterFlavor)
	// SetKongEnterprise, if set, is called like SetKongVersion whenever whether every replica of
	// the chosen flavor is Kong Enterprise changed (translator.Options.KongEnterprise).
	SetKongEnterprise func(bool)
	// SetEntitySchemas, if set, is called like SetKongVersion whenever Kong's schemas of the
	// store's custom entity types changed (translator.Options.EntitySchemas): the loop then reads
	// them from a replica (GET /schemas/<type>; schemas.go) and posts no configuration translated
	// while one is still being read. Unset, no schema is read.
	SetEntitySchemas func(translator.EntitySchemas)
	// Published, if set, is called on the loop's goroutine with every configuration handed to
	// the replicas. It must return quickly: the Programmed status writer keeps the latest.
	Published func(Published)
	// FallbackConfiguration is KIC's gate of that name (docs/sync.md, "Fallback"): when Kong
	// rejects objects, those and every object depending on them, by KIC's rules
	// (sync/fallback), are left out. Off (KIC's default), only the objects Kong named are.
	FallbackConfiguration bool
	// UseLastValidConfigForFallback is KIC's --use-last-valid-config-for-fallback (only with
	// FallbackConfiguration): the objects left out are put back in their versions of the last
	// configuration every replica took, with what depended on them then.
	UseLastValidConfigForFallback bool
	// RetryRejectedBase and RetryRejectedMax pace the retries of an object Kong rejected
	// (release.go): after its n-th rejection in a row it is held out for at least
	// min(RetryRejectedMax, RetryRejectedBase·2^(n-1)), whatever changes meanwhile, then given
	// its chance again if something that may cure it changed (defaults 1 s and 10 s).
	RetryRejectedBase, RetryRejectedMax time.Duration
	// Now is the clock the loop schedules its expiry rebuilds by (translator.Result.NextExpiry:
	// a CA certificate expires, and the configuration changes with no event); default
	// time.Now. Tests inject one.
	Now func() time.Time
}

// Published is one configuration handed to the replicas with what it was made from.
type Published struct {
	// Snapshot is the store as translated, with the objects Excluded names still in it.
	Snapshot *store.Snapshot
	// Excluded are the objects left out because Kong rejected them (with FallbackConfiguration,
	// their dependants too), sorted; some may be in the configuration in an older version
	// (UseLastValidConfigForFallback).
	Excluded []store.Ref
	Result   translator.Result
	// Hash is the configuration's; a replica whose AcceptedHash equals it holds it.
	Hash string
}

// Loop is the sync loop. Create it with New, start it with Run, feed it with Notify.
type Loop struct {
	cfg Config
	log logr.Logger

	notify     chan struct{}
	replicasCh chan struct{}
	versionCh  chan struct{}   // the target Kong version changed: rebuild
	schemaCh   chan struct{}   // a custom entity schema read ended, or a replica restarted: rebuild
	schemas    schemaBook      // Kong's schemas of the custom entity types (schemas.go)
	runCtx     context.Context // Run's, for the schema reads it starts
	// pendingChanged is the first change a translation held back for a schema read included
	// (loop goroutine): the next published one carries it.
	pendingChanged time.Time
	target         atomic.Pointer[semver.Version] // the lowest version the replicas report
	applied        *semver.Version                // the version last given to SetKongVersion (loop goroutine)
	chosen         atomic.Pointer[routerChoice]   // the router choice, nil until every replica answered GET / once
	choiceMu       gosync.Mutex                   // serialises choosing (versionsChanged)
	// appliedFlavor is the flavor last given to SetRouterFlavor (loop goroutine).
	appliedFlavor translator.RouterFlavor
	// appliedEnterprise is the edition last given to SetKongEnterprise (loop goroutine).
	appliedEnterprise *bool
	rejections        chan rejectionMsg
	running           atomic.Bool
	leading           atomic.Bool // pushes allowed (always, unless Config.Follower and not Lead)
	stats             counters

	mu      gosync.Mutex
	urls    []string
	workers map[string]*worker
	current *Payload
	broken  map[store.Ref]store.Object // objects Kong rejected, as they were then
	retries map[store.Ref]*retryState  // their holds (release.go)
	built   uint64                     // store version of the last build
	ahead   *built                     // translated during the window (loop goroutine only)
	// builtSnap is the snapshot of the last build: what releaseBroken compares the next with.
	builtSnap *store.Snapshot
	// retryAt is nextRetry's answer, valid unless retryDirty.
	retryAt    time.Time
	retryDirty bool
	// nextExpiry is the NextExpiry of the configuration last published (loop goroutine only).
	nextExpiry time.Time
	hasBuilt   bool
	ready      bool
	readyCh    chan struct{}

	// lastValid is the snapshot (exclusions and backfills applied) of the last configuration
	// every replica took, kept with UseLastValidConfigForFallback; lastValidSeq its payload's (mu).
	lastValid    *store.Snapshot
	lastValidSeq uint64
	// seq numbers the payloads built (loop goroutine); graph is the dependants graph of the
	// snapshot last planned (reused while the kinds it reads are unchanged), lastGraph that of
	// lastGraphOf, the last valid snapshot last backfilled from (loop goroutine).
	seq         uint64
	graph       *fallback.Graph
	lastGraph   *fallback.Graph
	lastGraphOf *store.Snapshot
}

// New validates the config and returns a Loop that is not yet running.
func New(cfg Config) (*Loop, error) {
	if cfg.Source == nil || cfg.Build == nil {
		return nil, errors.New("sync: Config.Source and Config.Build are required")
	}
	if cfg.UseLastValidConfigForFallback && !cfg.FallbackConfiguration {
		return nil, errLastValidWithoutGate
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = DefaultMaxDelay
	}
	if cfg.MaxDelay < cfg.Window {
		cfg.MaxDelay = cfg.Window
	}
	if !(cfg.LoadBudget > 0) { // also NaN
		cfg.LoadBudget = DefaultLoadBudget
	}
	cfg.LoadBudget = min(cfg.LoadBudget, 1)
	cfg.MinPushInterval = max(cfg.MinPushInterval, 0)
	if cfg.Reporter == nil {
		cfg.Reporter = nopReporter{}
	}
	if cfg.Metrics == nil {
		cfg.Metrics = nopMetrics{}
	}
	cfg.Replica = cfg.Replica.withDefaults()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RetryRejectedBase <= 0 {
		cfg.RetryRejectedBase = DefaultRetryRejectedBase
	}
	if cfg.RetryRejectedMax <= 0 {
		cfg.RetryRejectedMax = DefaultRetryRejectedMax
	}
	cfg.RetryRejectedMax = max(cfg.RetryRejectedMax, cfg.RetryRejectedBase)
	l := &Loop{
		cfg:        cfg,
		log:        cfg.Logger.WithName("sync"),
		notify:     make(chan struct{}, 1),
		replicasCh: make(chan struct{}, 1),
		versionCh:  make(chan struct{}, 1),
		schemaCh:   make(chan struct{}, 1),
		rejections: make(chan rejectionMsg, 16),
		workers:    map[string]*worker{},
		broken:     map[store.Ref]store.Object{},
		retries:    map[store.Ref]*retryState{},
		readyCh:    make(chan struct{}),
	}
	l.leading.Store(!cfg.Follower)
	def := translator.DefaultKongVersion
	l.target.Store(&def)
	if err := l.SetReplicas(cfg.Replicas); err != nil {
		return nil, err
	}
	return l, nil
}

// Lead allows (true) or stops (false) posting configurations, for a loop made with
// Config.Follower: the controller calls it as this replica gains and loses the leader Lease. A
// new leader's replicas post at once whatever they do not hold, unpaced (a previous leader may
// have been pacing other configs); a push already under way when leadership is lost completes.
func (l *Loop) Lead(leading bool) {
	if l.leading.Swap(leading) == leading {
		return
	}
	l.log.Info("leadership changed", "pushing", leading)
	ws := l.workerList()
	for _, w := range ws {
		if leading {
			w.unpace()
		}
		w.poke()
	}
}

// Leading reports whether the loop posts configurations (see Lead).
func (l *Loop) Leading() bool { return l.leading.Load() }

// Notify marks the store dirty. It never blocks and is cheap enough for informer handlers.
func (l *Loop) Notify() {
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

// SetReplicas replaces the set of Kong admin URLs. Replicas that stay keep their state; new
// ones start by reading GET /status, so a Kong that already holds the config is not re-posted.
// Invalid URLs are skipped and reported in the error; the valid ones are still applied.
func (l *Loop) SetReplicas(urls []string) error {
	var errs []error
	valid := make([]string, 0, len(urls))
	seen := map[string]bool{}
	for _, u := range urls {
		if _, err := NewReplica(u, l.cfg.Replica); err != nil {
			errs = append(errs, err)
			continue
		}
		if !seen[u] {
			seen[u] = true
			valid = append(valid, u)
		}
	}
	sort.Strings(valid)
	l.mu.Lock()
	l.urls = valid
	l.mu.Unlock()
	select {
	case l.replicasCh <- struct{}{}:
	default:
	}
	return errors.Join(errs...)
}

// ReplicaOptions are the client settings every replica uses, defaults filled in.
func (l *Loop) ReplicaOptions() ReplicaOptions { return l.cfg.Replica }

// Ready reports whether every replica has taken a config built by this loop at least once
// (latched: it stays true afterwards). The controller's /readyz uses it.
func (l *Loop) Ready() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ready
}

// ReadyC is closed when Ready first becomes true.
func (l *Loop) ReadyC() <-chan struct{} { return l.readyCh }

// latest is the latest payload built (nil before the first build).
func (l *Loop) latest() *Payload {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current
}

// DesiredHash is the hash of the latest config built, "" before the first build. The hash is
// taken outside mu: it may be the md5 that publish is still computing.
func (l *Loop) DesiredHash() string {
	if cur := l.latest(); cur != nil {
		return cur.Hash()
	}
	return ""
}

// Excluded lists the objects Kong rejected that builds leave out until something that may cure
// them changes (release.go; with FallbackConfiguration their dependants are left out too: see
// Fallback).
func (l *Loop) Excluded() []store.Ref {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sortedRefs(l.broken)
}

// Dumps returns Config.Dumps (nil when config dumps are off).
func (l *Loop) Dumps() *Dumps { return l.cfg.Dumps }

// Replicas returns the state of every replica, sorted by URL. DesiredHash and Synced are
// against the loop's latest build, as DesiredHash reports it: publish hands a build to the
// workers one after the other, and a replica whose worker has yet to be handed it does not
// hold the latest config.
func (l *Loop) Replicas() []ReplicaStatus {
	ws := l.workerList()
	desired := l.DesiredHash()
	out := make([]ReplicaStatus, 0, len(ws))
	for _, w := range ws {
		st := w.status()
		if desired != "" {
			st.DesiredHash, st.Synced = desired, st.AcceptedHash == desired
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// Run builds and pushes until ctx is cancelled. The first build happens one Window after Run
// starts, so start Run once the informer caches have synced. Run returns after every replica
// goroutine has stopped.
func (l *Loop) Run(ctx context.Context) error {
	if !l.running.CompareAndSwap(false, true) {
		return errors.New("sync: Loop.Run called twice")
	}
	wctx, cancel := context.WithCancel(ctx)
	defer l.stopWorkers()
	defer cancel()
	l.runCtx = wctx
	l.reconcile(wctx)

	timer := time.NewTimer(l.cfg.Window)
	defer timer.Stop()
	expiry := newExpiryTimer()
	defer expiry.stop()
	retry := newRetryTimer()
	defer retry.stop()
	timerC := timer.C
	first, last, lastBuild := time.Now(), time.Now(), time.Now()
	// changed is the first Notify since the last build, once there has been one (the first
	// build's own changes are the initial listing).
	var changed time.Time
	builtOnce := false
	// rebuild builds at once, whatever the store's version: something else than the store
	// changed (an expiry, a hold's end, Kong's version, a schema, a rejection).
	rebuild := func() {
		l.build(true, time.Time{})
		lastBuild = time.Now()
	}
	arm := func(now time.Time) {
		due := last.Add(l.cfg.Window)
		if limit := first.Add(l.cfg.MaxDelay); due.After(limit) {
			due = limit
		}
		timer.Reset(due.Sub(now))
		timerC = timer.C
	}
	for {
		if at, changed := expiry.update(l.nextExpiry, l.cfg.Now()); changed && !at.IsZero() {
			l.observe(Event{Type: EventExpiry, At: at})
		}
		retry.update(l.nextRetry(), l.cfg.Now())
		select {
		case <-ctx.Done():
			return nil
		case <-expiry.C:
			// A CA certificate of the configuration expires: the translator leaves it out now.
			expiry.fired()
			rebuild()
		case <-retry.C:
			// A rejected object's hold ended after a change that may have cured it.
			retry.fired()
			rebuild()
		case <-l.notify:
			now := time.Now()
			burst := timerC == nil
			if burst {
				first = now
			}
			last = now
			if changed.IsZero() && builtOnce {
				changed = now
			}
			arm(now)
			// The first event after a quiet spell is translated at once, during the window;
			// in a stream of events (a build less than a window ago) that would only be
			// translated again at the window's end.
			if burst && now.Sub(lastBuild) >= l.cfg.Window {
				l.prepareAhead()
			}
		case <-timerC:
			timerC = nil
			l.build(false, changed)
			lastBuild, changed, builtOnce = time.Now(), time.Time{}, true
		case <-l.replicasCh:
			l.reconcile(wctx)
		case <-l.versionCh:
			rebuild()
		case <-l.schemaCh:
			rebuild()
		case rj := <-l.rejections:
			if l.handleRejection(rj) {
				rebuild()
			}
		}
	}
}

// reconcile starts workers for new URLs and stops those for removed ones.
func (l *Loop) reconcile(ctx context.Context) {
	l.mu.Lock()
	want := map[string]bool{}
	added := false
	for _, u := range l.urls {
		want[u] = true
		if _, ok := l.workers[u]; ok {
			continue
		}
		rep, err := NewReplica(u, l.cfg.Replica)
		if err != nil {
			continue // SetReplicas validated it already
		}
		w := newWorker(rep, l)
		wctx, cancel := context.WithCancel(ctx)
		w.stop = cancel
		if l.current != nil {
			w.desired = l.current
		}
		l.workers[u] = w
		added = true
		l.log.Info("Kong replica added", "replica", rep.URL())
		go w.run(wctx)
	}
	var gone []*worker
	for u, w := range l.workers {
		if !want[u] {
			delete(l.workers, u)
			gone = append(gone, w)
		}
	}
	l.mu.Unlock()
	if added {
		l.schemasStale() // a new Kong may have other plugins, so other custom entity types
	}
	if len(gone) > 0 {
		l.versionsChanged() // a removed replica may have been the oldest
	}
	rm, _ := l.cfg.Metrics.(ReplicaMetrics)
	for _, w := range gone {
		w.stop()
		<-w.done
		if rm != nil {
			rm.ForgetReplica(w.rep.URL())
		}
		l.log.Info("Kong replica removed", "replica", w.rep.URL())
	}
	l.checkReady()
}

func (l *Loop) stopWorkers() {
	l.mu.Lock()
	ws := l.workers
	l.workers = map[string]*worker{}
	l.mu.Unlock()
	for _, w := range ws {
		w.stop()
		<-w.done
	}
	l.running.Store(false)
}

// checkReady latches readiness once every current replica has taken a config, but those left
// out for their router flavor (they are reported instead).
func (l *Loop) checkReady() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ready || len(l.workers) == 0 || l.chosen.Load() == nil {
		return
	}
	for _, w := range l.workers {
		if !w.everAccepted.Load() && !w.mismatched.Load() {
			return
		}
	}
	l.ready = true
	close(l.readyCh)
	l.log.Info("every Kong replica holds a configuration; ready")
}

func (l *Loop) observe(e Event) {
	if l.cfg.Observe != nil {
		l.cfg.Observe(e)
	}
}

func sortedRefs(m map[store.Ref]store.Object) []store.Ref {
	out := make([]store.Ref, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, fallback.CompareRefs)
	return out
}

// errPanic wraps a recovered translator panic.
func errPanic(v any) error { return fmt.Errorf("translator panicked: %v", v) }

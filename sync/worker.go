package sync

import (
	"context"
	gosync "sync"
	"sync/atomic"
	"time"

	"github.com/blang/semver/v4"
	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/translator"
)

// worker owns one replica: it pushes the latest desired payload whenever the replica does not
// hold it, probes GET /status while idle to notice a restarted (empty) Kong, and backs off after
// failures. One goroutine per replica, so a slow or dead Kong never delays another.
type worker struct {
	rep  *Replica
	loop *Loop
	log  logr.Logger
	bo   backoff
	wake chan struct{}
	done chan struct{}
	stop context.CancelFunc

	everAccepted atomic.Bool
	pushes       atomic.Int64
	mismatched   atomic.Bool // left out: its router flavor needs the other kind of routes

	mu           gosync.Mutex
	desired      *Payload
	accepted     string   // hash of the config the replica holds, as far as we know
	rejected     string   // hash the replica refused for good (400, 413)
	lastGood     *Payload // the last payload the replica took, re-sent if it comes back empty
	needProbe    bool     // check GET /status before the next push
	failures     int      // consecutive transient failures
	nextAttempt  time.Time
	nextProbe    time.Time
	lastResult   Result
	lastErr      error
	unreachable  bool   // the last request failed at the network level
	lastProbeErr string // the last probe's error, to log each distinct one once

	kongVersion    semver.Version          // from GET /, once versionKnown
	flavor         translator.RouterFlavor // from GET /, with kongVersion
	enterprise     bool                    // from GET /: the version names Kong Enterprise
	listeners      []KongListener          // from GET /: the ports Kong listens on
	versionKnown   bool
	rootTried      bool   // GET / was read once, whatever the answer
	needVersion    bool   // read GET / before the next push (new replica, restart, outage)
	lastVersionErr string // the last unusable version's error, to report each distinct one once

	pace     pacing        // when the next POST may start (docs/sync.md, "Pacing")
	unpaced  bool          // the next POST is not paced: the last one failed, or leadership was just gained
	loadTime time.Duration // what the POSTs Kong took cost it, in all
	deferred int64         // pushes pacing held back

	timed *Payload // the last payload whose first POST fed LatencyMetrics (worker goroutine only)
	// pushedFor is the payload of the last POST, for its version and router flavor (worker
	// goroutine only; newTarget).
	pushedFor *Payload
	holding   bool // a push is being held back by pacing (worker goroutine only)
}

func newWorker(rep *Replica, l *Loop) *worker {
	return &worker{
		rep:         rep,
		loop:        l,
		log:         l.log.WithValues("replica", rep.URL()),
		bo:          newBackoff(rep.opts.BackoffBase, rep.opts.BackoffMax),
		wake:        make(chan struct{}, 1),
		done:        make(chan struct{}),
		needProbe:   true,
		needVersion: true,
		pace:        pacing{budget: l.cfg.LoadBudget, interval: l.cfg.MinPushInterval},
	}
}

// setDesired hands the worker a new payload; it never blocks.
func (w *worker) setDesired(p *Payload) {
	w.mu.Lock()
	w.desired = p
	w.mu.Unlock()
	w.poke()
}

// unpace lets the next POST go without pacing (leadership just gained).
func (w *worker) unpace() {
	w.mu.Lock()
	w.unpaced = true
	w.mu.Unlock()
}

// poke wakes the worker to decide again; it never blocks.
func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

type action int

const (
	actWait action = iota
	actProbe
	actPush
)

// decision is what the worker does next.
type decision struct {
	act  action
	p    *Payload      // actPush: what to post
	wait time.Duration // actWait: how long, 0 = until woken
	held PaceReason    // a push is due but pacing holds it back (actWait or actProbe)
}

// next decides what to do now: probe, push a payload, or wait. It reads only the worker's state
// and now: no I/O, no clock.
func (w *worker) next(now time.Time) decision {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.desired
	if d == nil {
		return decision{}
	}
	probeDue := !w.nextProbe.After(now)
	if w.needProbe {
		if probeDue {
			return decision{act: actProbe}
		}
		return decision{wait: w.nextProbe.Sub(now)}
	}
	target := d
	if w.refused(d) {
		target = nil
		if w.accepted == "" && w.lastGood != nil {
			target = w.lastGood // Kong came back empty: restore the last config it took
		}
	}
	// A follower (Config.Follower, not leading) only probes: it knows what the replica holds
	// when it is elected, and is woken then.
	needPush := target != nil && !w.holds(target) && w.loop.leading.Load() && w.pushable(target)
	due, held := w.nextAttempt, PaceNone
	if needPush && !w.exempt() {
		if until, why := w.pace.hold(now); until.After(due) {
			due, held = until, why
		}
	}
	if needPush && !due.After(now) {
		return decision{act: actPush, p: target}
	}
	if probeDue {
		return decision{act: actProbe, held: held}
	}
	wait := w.nextProbe.Sub(now)
	if needPush {
		wait = minDur(wait, due.Sub(now))
	}
	return decision{wait: wait, held: held}
}

// exempt reports whether the next POST goes out unpaced: a Kong that holds nothing of ours (new,
// or restarted empty) must be served at once; a failed POST is retried on the backoff's
// schedule (or Retry-After), and whatever follows a refused one (the rebuild without the
// objects Kong named) goes at once; so does a new leader's first POST. Called with mu held.
func (w *worker) exempt() bool {
	return w.unpaced || w.failures > 0 || w.accepted == ""
}

// holds reports whether the replica is known to hold p. A payload whose md5 is still being
// computed counts as new: pushing it at once is what deferring the md5 is for, and should it
// equal what the replica holds, Kong answers 304. Called with mu held; never waits.
func (w *worker) holds(p *Payload) bool {
	h, ok := p.Config.HashReady()
	return ok && h == w.accepted
}

// refused reports whether the replica refused p's config for good (by hash, once known).
func (w *worker) refused(p *Payload) bool {
	h, ok := p.Config.HashReady()
	return ok && h == w.rejected
}

func (w *worker) run(ctx context.Context) {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for ctx.Err() == nil {
		d := w.next(time.Now())
		w.noteHeld(d.held)
		switch d.act {
		case actProbe:
			w.probe(ctx)
			continue
		case actPush:
			if w.newTarget(d.p) && w.rootMoved(ctx) {
				continue // what the replica reports changed: decide again
			}
			w.push(ctx, d.p)
			continue
		}
		var tc <-chan time.Time
		if d.wait > 0 {
			timer.Reset(d.wait)
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-tc:
		}
	}
}

// noteHeld counts a push pacing holds back, once per hold (worker goroutine only).
func (w *worker) noteHeld(why PaceReason) {
	if why == PaceNone || w.holding {
		return
	}
	w.holding = true
	w.loop.stats.deferred.Add(1)
	w.mu.Lock()
	w.deferred++
	w.mu.Unlock()
	if pm, ok := w.loop.cfg.Metrics.(PacingMetrics); ok {
		pm.ObserveDeferred(w.rep.URL(), why)
	}
	w.log.V(1).Info("push deferred to spare Kong", "reason", string(why))
}

// probe reads the replica's configuration_hash and updates what it is known to hold; first its
// version (GET /) when that is to be read, and again right away when the probe finds it
// restarted or back from an outage. A replica left out for its router flavor holds nothing of
// ours, so its restart (with another flavor) cannot show as an empty config: its GET / is read
// at every probe.
func (w *worker) probe(ctx context.Context) {
	w.mu.Lock()
	need := w.needVersion || w.mismatched.Load()
	w.mu.Unlock()
	if need && !w.readVersion(ctx) {
		return
	}
	hash, err := w.rep.Status(ctx)
	if ctx.Err() != nil {
		return
	}
	w.loop.stats.probes.Add(1)
	w.loop.observe(Event{Type: EventProbe, Replica: w.rep.URL(), Hash: hash, Err: err})
	if err != nil {
		w.probeFailed(err)
		return
	}
	w.mu.Lock()
	w.nextProbe = time.Now().Add(w.rep.opts.ProbeInterval)
	if w.unreachable {
		// Back after a network failure: retry now rather than at the end of the backoff, once
		// the version is read again (Kong may have been upgraded meanwhile).
		w.unreachable, w.failures, w.nextAttempt, w.needVersion = false, 0, time.Time{}, true
		w.loop.schemasStale() // it may have restarted with other plugins
		w.log.Info("Kong admin API reachable again")
	}
	w.needProbe, w.lastProbeErr = false, ""
	accepted := w.applyStatus(hash)
	need = w.needVersion
	w.mu.Unlock()
	w.observeProbe(true)
	if accepted {
		w.markAccepted()
	}
	if need {
		w.readVersion(ctx)
	}
}

// probeFailed records a failed probe (GET /status, or GET / when reading the version).
func (w *worker) probeFailed(err error) {
	now := time.Now()
	w.loop.stats.probeFailures.Add(1)
	w.mu.Lock()
	defer w.observeProbe(false)
	w.nextProbe = now.Add(w.rep.opts.ProbeInterval)
	if isTransport(err) {
		// Unreachable: look twice as often, so the config is back soon after Kong is.
		w.nextProbe = now.Add(w.rep.opts.ProbeInterval / 2)
	}
	// Only a transport failure keeps the push waiting: an HTTP error from /status says
	// nothing about /config.
	w.needProbe = isTransport(err)
	lost := !w.unreachable && isTransport(err)
	if lost {
		w.log.Error(err, "Kong admin API unreachable")
	}
	if !isTransport(err) && err.Error() != w.lastProbeErr {
		w.log.Error(err, "GET /status failed") // once per distinct error
	}
	w.lastProbeErr = err.Error()
	w.unreachable = w.unreachable || isTransport(err)
	w.mu.Unlock()
	if lost {
		// Once per outage: no push is tried while Kong is unreachable, so this is the only
		// place the outage can be reported (the controller turns it into an Event).
		w.loop.cfg.Reporter.ReplicaFailed(w.rep.URL(), ResultNetworkError, err)
	}
}

// applyStatus interprets a reported hash; it returns true when the replica holds the desired
// config. Called with mu held.
func (w *worker) applyStatus(hash string) bool {
	d := w.desired
	switch {
	case hash == d.StatusHash():
		w.accepted = d.Hash()
		return true
	case w.lastGood != nil && hash == w.lastGood.StatusHash():
		w.accepted = w.lastGood.Hash()
	case hash == document.EmptyHash:
		if w.accepted != "" {
			w.loop.stats.emptyDetected.Add(1)
			w.needVersion = true  // a restart may be an upgrade
			w.loop.schemasStale() // or bring other plugins, so other custom entity schemas
			w.log.Info("Kong reports an empty configuration (restarted?); pushing again")
		}
		w.accepted = ""
	default:
		w.accepted = "kong:" + hash // something else; never equal to a payload hash
	}
	return false
}

// alreadyHeld reports whether the replica holds p's bytes already though next could not tell:
// p's md5 is still deferred (the first build of an engine that started over, after the Kong
// version or router flavor became known), and p is as long as the config the replica took
// last. Computing the md5 then costs less than posting the same megabytes again.
func (w *worker) alreadyHeld(p *Payload) bool {
	if _, ok := p.Config.HashReady(); ok {
		return false // next compared it already
	}
	w.mu.Lock()
	held, accepted := w.lastGood, w.accepted
	w.mu.Unlock()
	if held == nil || held.Config.Len() != p.Config.Len() {
		return false
	}
	if h, ok := held.Config.HashReady(); !ok || h != accepted {
		return false
	}
	return p.Config.Hash() == accepted
}

// push posts one payload and records the outcome, unless the replica holds it already.
func (w *worker) push(ctx context.Context, p *Payload) {
	if w.alreadyHeld(p) {
		return // its hash is ready now: next sees the replica holds it
	}
	if lm, ok := w.loop.cfg.Metrics.(LatencyMetrics); ok && !p.changed.IsZero() && w.timed != p {
		w.timed = p
		lm.ObserveChangeToPost(w.rep.URL(), time.Since(p.changed))
	}
	w.holding, w.pushedFor = false, p
	start := time.Now()
	out := w.rep.Push(ctx, p)
	if ctx.Err() != nil {
		return
	}
	now := time.Now()
	var cost time.Duration
	if out.Result.ok() {
		cost = out.Cost
	}
	w.pushes.Add(1)
	w.loop.countPush(out.Result)
	w.loop.cfg.Metrics.ObservePush(PushStats{Replica: w.rep.URL(), Result: out.Result, Duration: out.Duration,
		Bytes: out.Bytes, RejectedEntities: len(out.Entities), LoadCost: cost, Fallback: p.fallback})
	if w.loop.cfg.Dumps != nil {
		w.loop.cfg.Dumps.Record(w.rep.URL(), p, out, now)
	}
	w.loop.observe(Event{Type: EventPush, Replica: w.rep.URL(), Hash: p.Hash(), Outcome: &out})
	w.mu.Lock()
	w.lastResult, w.lastErr = out.Result, out.Err
	w.nextProbe = now.Add(w.rep.opts.ProbeInterval)
	firstFailure := false
	switch {
	case out.Result.ok():
		w.accepted, w.lastGood = p.Hash(), p
		w.failures, w.nextAttempt, w.needProbe, w.unreachable = 0, time.Time{}, false, false
		w.pace.took(start, now, cost)
		w.unpaced, w.loadTime = false, w.loadTime+cost
	case out.Result.permanent():
		if p == w.lastGood && p != w.desired {
			w.lastGood = nil // even the old config no longer loads: never alternate between the two
		} else {
			w.rejected = p.Hash()
		}
		w.failures, w.nextAttempt, w.unpaced = 0, time.Time{}, true
	default:
		w.failures++
		firstFailure = w.failures == 1
		wait := w.bo.delay(w.failures)
		if out.Result == ResultBusy && out.RetryAfter > 0 {
			wait = out.RetryAfter
		}
		w.nextAttempt = now.Add(wait)
		w.nextProbe = w.nextAttempt // check /status right before the retry, not earlier
		w.needProbe, w.unpaced = true, true
		w.unreachable = w.unreachable || out.Result == ResultNetworkError
	}
	w.mu.Unlock()
	w.afterPush(ctx, p, out, firstFailure)
}

func (w *worker) afterPush(ctx context.Context, p *Payload, out Outcome, firstFailure bool) {
	log := w.log.WithValues("hash", p.Hash(), "result", string(out.Result), "status", out.Status,
		"duration", out.Duration.String())
	switch {
	case out.Result.ok():
		log.V(1).Info("Kong took the configuration", "fallback", p.fallback)
		w.markAccepted()
		w.loop.noteValid(p)
	case out.Result == ResultRejected:
		if w.rootMoved(ctx) {
			// Kong restarted with another version or router flavor since GET / was read: the
			// objects it names are not at fault. The choice is made again instead.
			log.Info("Kong rejected the configuration, but reports another version or router flavor now; not excluding objects")
			return
		}
		// Error, not info: a rejection is what an operator running at --log-level warn must see.
		log.Error(out.Err, "Kong rejected the configuration", "entities", len(out.Entities))
		w.loop.rejected(ctx, rejectionMsg{replica: w.rep.URL(), payload: p, outcome: out})
	case out.Result == ResultTooLarge:
		log.Error(out.Err, "configuration does not fit in Kong; it keeps its previous one", "bytes", p.Config.Len())
		w.loop.cfg.Reporter.ReplicaFailed(w.rep.URL(), out.Result, out.Err)
	default:
		if !firstFailure {
			log.V(1).Info("push failed again; will retry", "error", errString(out.Err))
			return
		}
		log.Error(out.Err, "push failed; will retry with backoff", "retryAfter", out.RetryAfter.String())
		w.loop.cfg.Reporter.ReplicaFailed(w.rep.URL(), out.Result, out.Err)
	}
}

// observeProbe feeds optional probe metrics; deferred so it sees the state after the probe.
// In sync means holding the loop's latest build, as Loop.Replicas reports it: this worker may
// not have been handed it yet.
func (w *worker) observeProbe(reachable bool) {
	pm, ok := w.loop.cfg.Metrics.(ProbeMetrics)
	if !ok {
		return
	}
	st := w.status()
	if d := w.loop.DesiredHash(); d != "" {
		st.Synced = st.AcceptedHash == d
	}
	pm.ObserveProbe(w.rep.URL(), reachable, st.Synced)
}

func (w *worker) markAccepted() {
	if !w.everAccepted.Swap(true) {
		w.loop.checkReady()
	}
}

func (w *worker) status() ReplicaStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := ReplicaStatus{
		URL:                 w.rep.URL(),
		AcceptedHash:        w.accepted,
		RejectedHash:        w.rejected,
		LastResult:          w.lastResult,
		ConsecutiveFailures: w.failures,
		Pushes:              w.pushes.Load(),
		EverAccepted:        w.everAccepted.Load(),
		Unreachable:         w.unreachable,
		KongLoadTime:        w.loadTime,
		Deferred:            w.deferred,
	}
	if !w.exempt() {
		st.PacedUntil, _ = w.pace.hold(time.Now())
	}
	if w.versionKnown {
		st.KongVersion, st.RouterFlavor = w.kongVersion.String(), string(w.flavor)
	}
	st.FlavorMismatch = w.mismatched.Load()
	if w.lastErr != nil {
		st.LastError = w.lastErr.Error()
	}
	if w.desired != nil {
		st.DesiredHash = w.desired.Hash()
		st.Synced = w.accepted == w.desired.Hash()
	}
	return st
}

// ReplicaStatus is a point-in-time view of one replica, for diagnostics and tests.
type ReplicaStatus struct {
	URL string
	// DesiredHash is the latest config built; AcceptedHash the one the replica holds as far as
	// kongsync knows; RejectedHash the last one it refused (400 or 413).
	DesiredHash, AcceptedHash, RejectedHash string
	// Synced is true when the replica holds the latest config.
	Synced bool
	// EverAccepted is true once the replica has held a config kongsync built.
	EverAccepted bool
	// Unreachable is true while the replica fails at the network level.
	Unreachable bool
	// KongVersion and RouterFlavor are what the replica last reported in GET / ("" before it
	// did).
	KongVersion, RouterFlavor string
	// FlavorMismatch is true while the replica is left out because its router flavor needs
	// the other kind of routes than the one translated for (docs/sync.md, "Router flavor").
	FlavorMismatch      bool
	LastResult          Result
	LastError           string
	ConsecutiveFailures int
	// Pushes counts POST /config attempts.
	Pushes int64
	// KongLoadTime is what the POSTs the replica took (201, 304) cost it, in all; Deferred
	// counts the pushes pacing held back; PacedUntil is when the next POST may start (zero when
	// now). See docs/sync.md, "Pacing".
	KongLoadTime time.Duration
	Deferred     int64
	PacedUntil   time.Time
}

func minDur(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

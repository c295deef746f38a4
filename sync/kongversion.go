package sync

import (
	"context"
	"time"

	"github.com/blang/semver/v4"
)

// The Kong version translated for (docs/sync.md, "Kong versions"). Each worker reads its
// replica's version from GET / before its first push, and again after the replica restarted or
// was unreachable (an upgrade restarts Kong). The loop translates for the lowest version its
// replicas reported, so that every replica can load the one configuration; a worker posts only
// a payload translated for that version, and only while its replica's version is known and at
// least that one.

// KongVersion is the Kong version the loop translates for: the lowest its replicas reported,
// translator.DefaultKongVersion before any has answered.
func (l *Loop) KongVersion() semver.Version { return *l.target.Load() }

// versionsChanged recomputes the lowest version among the replicas and, if it moved, wakes
// the loop goroutine to translate again.
func (l *Loop) versionsChanged() {
	l.mu.Lock()
	ws := make([]*worker, 0, len(l.workers))
	for _, w := range l.workers {
		ws = append(ws, w)
	}
	l.mu.Unlock()
	var low *semver.Version
	for _, w := range ws {
		if v, ok := w.version(); ok && (low == nil || v.LT(*low)) {
			low = &v
		}
	}
	if low == nil || low.EQ(l.KongVersion()) {
		return // none known (keep what the loop translates for), or unchanged
	}
	l.target.Store(low)
	l.log.Info("translating for Kong version", "version", low.String())
	select {
	case l.versionCh <- struct{}{}:
	default:
	}
}

// applyVersion hands the target version to Config.SetKongVersion if it changed since the last
// translation, and returns it. Loop goroutine only.
func (l *Loop) applyVersion() semver.Version {
	v := l.KongVersion()
	if l.applied == nil || !l.applied.EQ(v) {
		if l.cfg.SetKongVersion != nil {
			l.cfg.SetKongVersion(v)
		}
		l.applied = &v
	}
	return v
}

// version is the replica's Kong version, if read.
func (w *worker) version() (semver.Version, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kongVersion, w.versionKnown
}

// pushable reports whether p may be posted to the replica: its version is known and current,
// and p was translated for a version it has; the desired payload only if translated for the
// loop's current target (a new target is being translated for). Called with mu held.
func (w *worker) pushable(p *Payload) bool {
	if !w.versionKnown || w.needVersion || w.kongVersion.LT(p.kongVersion) {
		return false
	}
	return p != w.desired || p.kongVersion.EQ(w.loop.KongVersion())
}

// readVersion reads the replica's version (GET /) and tells the loop when it changed. A
// transport failure counts as a failed probe; a version that cannot be used (older than KIC v3
// supports, unreadable, or an HTTP error) keeps pushes stopped, is logged and reported once
// per distinct error, and is read again at the next probe. It returns false on failure.
func (w *worker) readVersion(ctx context.Context) bool {
	v, err := w.rep.KongVersion(ctx)
	if ctx.Err() != nil {
		return false
	}
	ev := Event{Type: EventVersion, Replica: w.rep.URL(), Err: err}
	if err == nil {
		ev.KongVersion = v.String()
	}
	w.loop.observe(ev)
	if err != nil {
		w.versionFailed(err)
		return false
	}
	w.mu.Lock()
	changed := !w.versionKnown || !w.kongVersion.EQ(v)
	w.kongVersion, w.versionKnown, w.needVersion, w.lastVersionErr = v, true, false, ""
	w.mu.Unlock()
	if changed {
		w.log.Info("Kong version", "version", v.String())
		w.loop.versionsChanged()
	}
	w.poke()
	return true
}

func (w *worker) versionFailed(err error) {
	if isTransport(err) {
		w.probeFailed(err)
		return
	}
	w.mu.Lock()
	w.nextProbe = time.Now().Add(w.rep.opts.ProbeInterval)
	first := err.Error() != w.lastVersionErr
	w.lastVersionErr = err.Error()
	w.mu.Unlock()
	if first {
		w.log.Error(err, "cannot use this Kong's version; nothing is posted to it until it reports one")
		w.loop.cfg.Reporter.ReplicaFailed(w.rep.URL(), ResultFailed, err)
	}
}

package sync

import (
	"context"
	"slices"
	"time"

	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/translator"
)

// The Kong version and router flavor translated for (docs/sync.md, "Kong versions" and "Router
// flavor"). Each worker reads its replica's GET / before its first push, and again after the
// replica restarted or was unreachable (an upgrade, or a new router_flavor, restarts Kong). Once
// every replica has answered (or failed) once, the loop chooses (chooseRouter): the flavor of
// the most replicas, and the lowest version among them, so that every replica posted to can load
// the one configuration. A worker posts only a payload translated for that choice, and only while
// its replica's version is known and at least the payload's, and its flavor takes its routes.

// KongVersion is the Kong version the loop translates for: the lowest its replicas of the chosen
// router flavor reported, translator.DefaultKongVersion before any has answered.
func (l *Loop) KongVersion() semver.Version { return *l.target.Load() }

// RouterFlavor is the router flavor the loop translates for: the one most replicas report
// (docs/sync.md), Kong's default (traditional_compatible) until every replica has answered.
func (l *Loop) RouterFlavor() translator.RouterFlavor {
	if c := l.chosen.Load(); c != nil {
		return c.Flavor
	}
	return translator.RouterTraditionalCompatible
}

// versionsChanged chooses again from what every replica last reported in GET / and applies
// the choice: the loop is woken to translate again when the version or the flavor moved, and the
// replicas that join or leave the chosen flavor are reported. Serialised: workers call it
// concurrently.
func (l *Loop) versionsChanged() {
	l.choiceMu.Lock()
	defer l.choiceMu.Unlock()
	ws := l.workerList()
	views := make([]rootView, len(ws))
	for i, w := range ws {
		views[i] = w.rootView()
	}
	c := chooseRouter(views)
	if !c.Decided {
		return // a replica has not answered yet, or none usably: the previous choice stands
	}
	prevFlavor := l.RouterFlavor() // the default before the first choice
	prev := l.chosen.Swap(&c)
	l.reportFlavors(ws, &c)
	moved := !c.Version.EQ(l.KongVersion()) || prevFlavor != c.Flavor || (prev != nil && prev.Enterprise) != c.Enterprise
	if prev == nil || !slices.Equal(prev.Listeners, c.Listeners) {
		l.log.Info("Kong listens on", "listeners", listenerNames(c.Listeners))
	}
	if !c.Version.EQ(l.KongVersion()) {
		l.target.Store(&c.Version)
		l.log.Info("translating for Kong version", "version", c.Version.String())
	}
	if prev == nil || prev.Flavor != c.Flavor {
		l.log.Info("translating for router flavor", "routerFlavor", string(c.Flavor), "mismatched", c.Mismatched)
	}
	l.observe(Event{Type: EventRouter, RouterFlavor: string(c.Flavor), KongVersion: c.Version.String(), Mismatched: c.Mismatched})
	if moved {
		select {
		case l.versionCh <- struct{}{}:
		default:
		}
	}
	for _, w := range ws {
		w.poke() // a replica may now be pushed to (the first choice, or its flavor chosen)
	}
	l.checkReady()
}

// KongEnterprise reports whether the loop translates for Kong Enterprise: every replica of the
// chosen flavor reported an Enterprise version (false until every replica has answered).
func (l *Loop) KongEnterprise() bool {
	c := l.chosen.Load()
	return c != nil && c.Enterprise
}

// workerList is the current workers, in no order.
func (l *Loop) workerList() []*worker {
	l.mu.Lock()
	defer l.mu.Unlock()
	ws := make([]*worker, 0, len(l.workers))
	for _, w := range l.workers {
		ws = append(ws, w)
	}
	return ws
}

// applyVersion hands the target version and flavor to Config.SetKongVersion and
// Config.SetRouterFlavor if they changed since the last translation, and returns them. Loop
// goroutine only.
func (l *Loop) applyVersion() (semver.Version, translator.RouterFlavor) {
	v, f := l.KongVersion(), l.RouterFlavor()
	if l.applied == nil || !l.applied.EQ(v) {
		if l.cfg.SetKongVersion != nil {
			l.cfg.SetKongVersion(v)
		}
		l.applied = &v
	}
	if e := l.KongEnterprise(); l.appliedEnterprise == nil || *l.appliedEnterprise != e {
		if l.cfg.SetKongEnterprise != nil {
			l.cfg.SetKongEnterprise(e)
		}
		l.appliedEnterprise = &e
	}
	if l.appliedFlavor != f {
		if l.cfg.SetRouterFlavor != nil {
			l.cfg.SetRouterFlavor(f)
		}
		l.appliedFlavor = f
	}
	return v, f
}

// version is the replica's Kong version, if read.
func (w *worker) version() (semver.Version, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kongVersion, w.versionKnown
}

// rootView is what the worker knows of its replica's GET /, for chooseRouter.
func (w *worker) rootView() rootView {
	w.mu.Lock()
	defer w.mu.Unlock()
	return rootView{Replica: w.rep.URL(), Tried: w.rootTried, Known: w.versionKnown, Version: w.kongVersion, Flavor: w.flavor,
		Enterprise: w.enterprise, Listeners: w.listeners}
}

// pushable reports whether p may be posted to the replica: its version is known and current,
// and p was translated for a version it has and for routes its flavor takes, once the loop has
// chosen a flavor, with every custom entity schema read; the desired payload only if translated for the loop's current choice (a new
// one is being translated for). Called with mu held.
func (w *worker) pushable(p *Payload) bool {
	if !w.versionKnown || w.needVersion || w.kongVersion.LT(p.kongVersion) || p.schemasPending {
		return false
	}
	c := w.loop.chosen.Load()
	if c == nil || !sameRoutes(w.flavor, c.Flavor) || !sameRoutes(w.flavor, p.routerFlavor) {
		return false
	}
	return p != w.desired || p.kongVersion.EQ(w.loop.KongVersion()) && p.routerFlavor == c.Flavor
}

// readVersion reads the replica's version and router flavor (GET /) and tells the loop when
// they changed, or when this was the replica's first answer (the loop chooses once every replica
// answered). A transport failure counts as a failed probe; a root that cannot be used (a version
// older than KIC v3 supports, unreadable, no or an unknown router_flavor, or an HTTP error) keeps
// pushes stopped, is logged and reported once per distinct error, and is read again at the next
// probe. It returns false on failure.
func (w *worker) readVersion(ctx context.Context) bool {
	root, err := w.rep.Root(ctx)
	if ctx.Err() != nil {
		return false
	}
	ev := Event{Type: EventVersion, Replica: w.rep.URL(), Err: err}
	if err == nil {
		ev.KongVersion, ev.RouterFlavor = root.Version.String(), string(root.RouterFlavor)
	}
	w.loop.observe(ev)
	w.mu.Lock()
	first := !w.rootTried
	w.rootTried = true
	changed := err == nil && (!w.versionKnown || !w.kongVersion.EQ(root.Version) || w.flavor != root.RouterFlavor ||
		w.enterprise != root.Enterprise || !slices.Equal(w.listeners, root.Listeners))
	if err == nil {
		w.enterprise, w.listeners = root.Enterprise, root.Listeners
		w.kongVersion, w.flavor, w.versionKnown, w.needVersion, w.lastVersionErr = root.Version, root.RouterFlavor, true, false, ""
	}
	w.mu.Unlock()
	if err != nil {
		w.versionFailed(err)
	} else if changed {
		w.log.Info("Kong version", "version", root.Version.String(), "routerFlavor", string(root.RouterFlavor))
	}
	if first || changed {
		w.loop.versionsChanged()
	}
	w.poke()
	return err == nil
}

// newTarget reports whether p was translated for another version or router flavor than the
// replica's previous POST: the loop chose again because some replica reports something new,
// which in a rolling change of Kong's settings this replica may report too, restarted since its
// last probe. Worker goroutine only.
func (w *worker) newTarget(p *Payload) bool {
	last := w.pushedFor
	return last != nil && (last.routerFlavor != p.routerFlavor || !last.kongVersion.EQ(p.kongVersion))
}

// rootMoved reads GET / again and reports whether the push must be decided again: GET / failed,
// or the replica reports another version or router flavor. It runs before a POST of a config
// translated for a new choice (newTarget) and before a 400 excludes objects: a Kong restarted
// with another router_flavor, and not probed since, would otherwise be sent routes it refuses
// (its 400 then blaming objects that are not at fault) or misroutes.
func (w *worker) rootMoved(ctx context.Context) bool {
	before := w.rootView()
	if !w.readVersion(ctx) {
		return true
	}
	after := w.rootView()
	return before.Flavor != after.Flavor || !before.Version.EQ(after.Version)
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
		w.log.Error(err, "cannot use this Kong's GET / (version, router flavor); nothing is posted to it until it reports usable ones")
		w.loop.cfg.Reporter.ReplicaFailed(w.rep.URL(), ResultFailed, err)
	}
}

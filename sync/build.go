package sync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

// built is one translation of a snapshot, encoded: what a build hands to the replicas.
type built struct {
	snap *store.Snapshot
	// broken are the rejected objects snap holds unchanged, sorted, and lastValid the snapshot
	// backfilled from: what the plan was made from.
	broken    []store.Ref
	lastValid *store.Snapshot
	plan      fallback.Plan
	fallback  bool          // a fallback configuration in KIC's sense (FallbackConfiguration)
	planTook  time.Duration // making the plan (KIC's fallback cache generation)
	res       translator.Result
	p         *Payload
	took      time.Duration // snapshot, plan, translation, encoding and (for ahead) md5
}

// build snapshots the store, translates it without the objects Kong rejected (and, with
// FallbackConfiguration, their dependants; docs/sync.md, "Fallback"), and hands the result to
// every replica. Without force, a snapshot at the version already built (and no change to the
// rejected set) is skipped: nothing to translate. A translation made ahead during the window
// (prepareAhead) is used as it is when neither the store, the rejected set nor the last valid
// snapshot moved since. changed is when the first change since the last build was notified
// (zero if none).
func (l *Loop) build(force bool, changed time.Time) {
	start := time.Now()
	b := l.ahead
	l.ahead = nil
	snap := l.cfg.Source.Snapshot()
	l.mu.Lock()
	released := l.releaseBroken(snap)
	if !force && !released && l.hasBuilt && snap.Version() == l.built {
		l.mu.Unlock()
		l.stats.skipped.Add(1)
		l.observe(Event{Type: EventSkip, Version: snap.Version()})
		return
	}
	broken := sortedRefs(l.broken)
	l.mu.Unlock()
	lastValid := l.lastValidSnapshot()
	v, f := l.applyVersion()
	gen := l.applySchemas(snap)
	if b != nil && b.snap.Version() == snap.Version() && slices.Equal(b.broken, broken) && b.lastValid == lastValid &&
		b.p.kongVersion.EQ(v) && b.p.routerFlavor == f && b.p.schemaGen == gen {
		l.stats.aheadUsed.Add(1)
	} else {
		if b != nil {
			l.stats.aheadWasted.Add(1)
		}
		var ok bool
		if b, ok = l.translateEncode(snap, broken, lastValid); !ok {
			return
		}
		b.took = time.Since(start)
	}
	if b.p.schemasPending {
		// A custom entity type's schema is still being read (schemas.go): this translation
		// lacks its entities, so it is handed to no replica and no status writer; the read's
		// end builds again.
		l.pendingChanged = cmp.Or(l.pendingChanged, changed)
		return
	}
	b.p.changed = cmp.Or(l.pendingChanged, changed)
	l.pendingChanged = time.Time{}
	l.publish(b)
}

// prepareAhead translates and hashes the store as it is now, while the window runs, so that a
// build finding the store unchanged at the window's end only hands the result over: the time
// from a lone change to its POST is then the window itself, not the window plus the
// translation. It changes no loop state but l.ahead (the rejected objects that changed are
// left in, as build would); the translator and encoder caches simply move on to this snapshot.
func (l *Loop) prepareAhead() {
	start := time.Now()
	snap := l.cfg.Source.Snapshot()
	l.mu.Lock()
	if l.hasBuilt && snap.Version() == l.built {
		l.mu.Unlock()
		return
	}
	broken := l.stillBroken(snap)
	l.mu.Unlock()
	lastValid := l.lastValidSnapshot()
	l.applyVersion()
	l.applySchemas(snap)
	b, ok := l.translateEncode(snap, broken, lastValid)
	if !ok {
		return // build will try again and report
	}
	b.p.Hash()
	b.took = time.Since(start)
	l.ahead = b
	l.observe(Event{Type: EventAhead, Hash: b.p.Hash(), Version: snap.Version()})
}

// translateEncode plans what to leave out of snap (plan), translates the rest and encodes the
// result, for the Kong version and router flavor last applied (applyVersion) and the custom
// entity schemas (applySchemas). A failure is logged and reported; Kong keeps its configuration.
func (l *Loop) translateEncode(snap *store.Snapshot, broken []store.Ref, lastValid *store.Snapshot) (*built, bool) {
	start := time.Now()
	plan, fb := l.plan(snap, broken, lastValid)
	planTook := time.Since(start)
	translated, err := plan.Apply(snap)
	var b translator.Built
	if err == nil {
		b, err = l.translate(translated)
	}
	if err != nil {
		l.log.Error(err, "translation failed; Kong keeps its current configuration")
		l.cfg.Reporter.ReplicaFailed("", ResultFailed, err)
		return nil, false
	}
	l.seq++
	p := &Payload{Config: b.Config, Empty: document.IsEmpty(b.Document), doc: b.Document, snap: snap, kongVersion: *l.applied,
		routerFlavor: l.appliedFlavor, translated: translated, plan: plan, fallback: fb, seq: l.seq,
		schemaGen: l.schemas.gen, schemasPending: schemasPending(l.schemas.applied)}
	return &built{snap: snap, broken: broken, lastValid: lastValid, plan: plan, fallback: fb, planTook: planTook,
		res: b.Result, p: p}, true
}

// publish makes b the desired config of every replica and reports it.
func (l *Loop) publish(b *built) {
	p := b.p
	l.nextExpiry = b.res.NextExpiry
	l.mu.Lock()
	prev := l.current
	l.current, l.built, l.builtSnap, l.hasBuilt = p, b.snap.Version(), b.snap, true
	ws := make([]*worker, 0, len(l.workers))
	for _, w := range l.workers {
		ws = append(ws, w)
	}
	l.mu.Unlock()
	// Workers get the payload before its md5 is known (document.JSONCache defers it for a
	// changed config): they start the push while this goroutine computes the hash.
	for _, w := range ws {
		w.setDesired(p)
	}
	hash := p.Hash()
	excluded := b.plan.ExcludedRefs()
	st := TranslationStats{Duration: b.took, Objects: countObjects(b.snap), Problems: len(b.res.Problems),
		BrokenObjects: brokenObjects(b.res.Problems), Excluded: len(excluded), Backfilled: len(b.plan.Backfilled),
		ConfigBytes: p.Config.Len(), Fallback: b.fallback, FallbackPlan: b.planTook}
	l.stats.builds.Add(1)
	l.cfg.Metrics.ObserveTranslation(st)
	l.cfg.Reporter.TranslationProblems(b.res.Problems)
	if l.cfg.Published != nil {
		l.cfg.Published(Published{Snapshot: b.snap, Excluded: excluded, Result: b.res, Hash: hash})
	}
	if prev == nil || prev.Hash() != hash {
		l.log.V(1).Info("configuration built", "hash", hash, "bytes", p.Config.Len(),
			"objects", st.Objects, "problems", st.Problems, "excluded", st.Excluded, "backfilled", st.Backfilled,
			"duration", st.Duration.String())
	}
	l.observe(Event{Type: EventBuild, Hash: hash, Build: &st, Version: b.snap.Version(),
		KongVersion: p.kongVersion.String(), RouterFlavor: string(p.routerFlavor)})
}

// translate calls the injected build, turning a panic into an error so that one bad object
// cannot take the controller down.
func (l *Loop) translate(snap *store.Snapshot) (b translator.Built, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errPanic(v)
		}
	}()
	if b, err = l.cfg.Build(snap); err != nil {
		return b, err
	}
	if b.Document == nil || b.Config == nil {
		return b, errors.New("translator returned no document")
	}
	return b, nil
}

// brokenObjects counts the distinct objects problems name (KIC's "broken resources").
func brokenObjects(problems []translator.Problem) int {
	if len(problems) == 0 {
		return 0
	}
	seen := make(map[store.Ref]struct{}, len(problems))
	for _, p := range problems {
		seen[p.Object] = struct{}{}
	}
	return len(seen)
}

func countObjects(snap *store.Snapshot) int {
	n := 0
	for _, k := range store.Kinds {
		n += snap.Len(k)
	}
	return n
}

// neverExcluded are kinds whose exclusion would take everything that uses them down (an
// IngressClass selects every Ingress of the class): reported, but never left out, unless
// FallbackConfiguration asks for KIC's rules (which leave out the class and its Ingresses).
var neverExcluded = map[store.Kind]bool{store.KindIngressClass: true}

// rejectionMsg carries a replica's 400 to the loop.
type rejectionMsg struct {
	replica string
	payload *Payload
	outcome Outcome
}

// rejected hands a 400 to the loop goroutine.
func (l *Loop) rejected(ctx context.Context, m rejectionMsg) {
	select {
	case l.rejections <- m:
	case <-ctx.Done():
	}
}

// handleRejection maps Kong's rejected entities to objects, reports them, and adds them to the
// excluded set. It returns true when a rebuild without them can help.
func (l *Loop) handleRejection(m rejectionMsg) bool {
	l.mu.Lock()
	stale := l.current == nil || l.current.Hash() != m.payload.Hash()
	l.mu.Unlock()
	if stale {
		return false // a newer config is already on its way
	}
	var rejections []Rejection
	var unmapped []string
	add := map[store.Ref]store.Object{}
	for _, ee := range m.outcome.Entities {
		ref, ok := ownerOf(ee, m.payload.doc)
		if !ok {
			unmapped = append(unmapped, ee.String())
			continue
		}
		rejections = append(rejections, Rejection{Object: ref, Replica: m.replica, Entity: ee})
		if obj, ok := m.payload.snap.Get(ref); ok && (l.cfg.FallbackConfiguration || !neverExcluded[ref.Kind]) {
			add[ref] = obj
		}
	}
	l.mu.Lock()
	added, now, kong := 0, l.cfg.Now(), kongKey(m.payload.kongVersion, m.payload.routerFlavor)
	for _, ref := range sortedRefs(add) {
		if _, dup := l.broken[ref]; !dup {
			l.broken[ref] = add[ref]
			l.noteRejected(ref, now, kong)
			added++
		}
	}
	l.pruneRetries(now)
	l.mu.Unlock()
	for _, r := range rejections {
		l.log.Error(errors.New(r.Entity.String()), "Kong rejected an object; leaving it out",
			"object", r.Object.String(), "replica", r.Replica)
	}
	if len(rejections) > 0 {
		l.stats.rejectedObjects.Add(int64(len(rejections)))
		l.cfg.Reporter.KongRejected(rejections)
	}
	if len(unmapped) > 0 || len(rejections) == 0 {
		err := fmt.Errorf("Kong rejected the configuration: %s", m.outcome.Message)
		if len(unmapped) > 0 {
			err = fmt.Errorf("Kong rejected entities that name no Kubernetes object: %s",
				strings.Join(unmapped, " | "))
		}
		l.log.Error(err, "configuration rejected", "replica", m.replica)
		l.cfg.Reporter.ReplicaFailed(m.replica, ResultRejected, err)
	}
	return added > 0
}

package sync

import (
	"time"

	"github.com/blang/semver/v4"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

// An object Kong rejected is left out of the builds that follow (handleRejection) until
// something that may cure the rejection changes. Kong names one object per rejected entity, but
// an entity is made of more than that object: the UDP service of a Service comes from a
// UDPIngress that routes to it, so a refusal of it may be cured by a change to the UDPIngress
// alone (the soak found a Service whose path annotation its UDP service carried, before the
// translator left it out there, kept out of Kong for good when only its own changes counted).
//
// A rejected object is given its chance again (included, Kong decides) when, since the last
// build, the object changed or went away, or any object of its namespace changed, or of a
// namespace it names (a route's backends and parents, a cluster plugin's Secrets), or any
// cluster-scoped object (an IngressClass, a KongClusterPlugin), or the Kong version or router
// flavor translated for (toRelease), each retry held as below. EndpointSlices count for the
// Services of their namespace only: they are the most frequent change, and only a Service's
// upstream targets are made of them. The cost of a change that cures nothing is one more 400
// from Kong, and that only for objects of the namespaces that changed: a tenant's churn never
// retries another tenant's objects (unless they name the tenant's namespace).

// kindsButSlices are the kinds whose changes retry the rejected objects of their namespace.
var kindsButSlices = func() []store.Kind {
	var out []store.Kind
	for _, k := range store.Kinds {
		if k != store.KindEndpointSlice {
			out = append(out, k)
		}
	}
	return out
}()

// releasable lists, in the order of refs (the keys of broken, sorted), the rejected objects
// (broken, as Kong rejected them) that a build of cur may include again, prev being the
// snapshot of the last build (nil: none).
func releasable(broken map[store.Ref]store.Object, refs []store.Ref, prev, cur *store.Snapshot) []store.Ref {
	var changed, slices map[string]bool
	var out []store.Ref
	for _, ref := range refs {
		obj, ok := cur.Get(ref)
		if !ok || changedObject(broken[ref], obj) {
			out = append(out, ref)
			continue
		}
		if changed == nil {
			changed = store.ChangedNamespaces(prev, cur, kindsButSlices)
		}
		cure := changed[""]
		for _, ns := range scope(cur, obj, ref) {
			cure = cure || changed[ns]
		}
		if !cure && ref.Kind == store.KindService {
			if slices == nil {
				slices = store.ChangedNamespaces(prev, cur, []store.Kind{store.KindEndpointSlice})
			}
			cure = slices[ref.Namespace]
		}
		if cure {
			out = append(out, ref)
		}
	}
	return out
}

// scope lists the namespaces whose changes may cure obj's rejection: its own, those of what it
// names by KIC's dependency rules and, for a Gateway API route, those of its parents. Duplicates
// are kept; the list is as long as obj's references.
func scope(snap *store.Snapshot, obj store.Object, ref store.Ref) []string {
	out := []string{ref.Namespace}
	for _, d := range fallback.References(snap, obj) {
		out = append(out, d.Namespace)
	}
	for _, p := range parentRefs(obj) {
		if p.Namespace != nil {
			out = append(out, string(*p.Namespace))
		}
	}
	return out
}

// parentRefs are a Gateway API route's parents (nil for any other object).
func parentRefs(obj store.Object) []gatewayv1.ParentReference {
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.GRPCRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.TCPRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.UDPRoute:
		return r.Spec.ParentRefs
	case *gatewayv1.TLSRoute:
		return r.Spec.ParentRefs
	}
	return nil
}

// Retries are paced per object, whatever changes meanwhile: the n-th consecutive rejection of
// an object holds it out for at least min(RetryRejectedMax, RetryRejectedBase·2^(n-1)). Without
// that, a rejected Service in a namespace whose EndpointSlices change faster than Kong answers
// would be included in every build, every POST refused, and Kong would get nothing new at all.
// A change that comes earlier marks the object pending, and the loop builds again when the hold
// ends (retryTimer), so a cure is never lost, even one that came before Kong's answer.

// The holds' defaults (Config.RetryRejectedBase, Config.RetryRejectedMax).
const (
	DefaultRetryRejectedBase = time.Second
	DefaultRetryRejectedMax  = 10 * time.Second
)

// retryState is an object's rejections: how many in a row, the last one's time, and until when
// it is held out; pending once a change may have cured it during the hold.
type retryState struct {
	n         int
	last      time.Time
	notBefore time.Time
	pending   bool
	kong      string // the Kong version and router flavor of the build Kong rejected (kongKey)
}

// kongKey names what a build was translated for: a rejection under one Kong version or router
// flavor may not hold under another (an upgrade accepts a field, the expressions router a match).
func kongKey(v semver.Version, f translator.RouterFlavor) string { return v.String() + "/" + string(f) }

// retryHold is the hold after the n-th consecutive rejection.
func retryHold(base, max time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// noteRejected starts the hold of an object Kong just rejected in a build for kong (kongKey).
// Called with mu held.
func (l *Loop) noteRejected(ref store.Ref, now time.Time, kong string) {
	st := l.retries[ref]
	if st == nil || now.Sub(st.last) > 2*l.cfg.RetryRejectedMax {
		st = &retryState{}
		l.retries[ref] = st
	}
	st.n++
	st.last, st.pending, st.kong = now, false, kong
	l.retryDirty = true
	st.notBefore = now.Add(retryHold(l.cfg.RetryRejectedBase, l.cfg.RetryRejectedMax, st.n))
}

// pruneRetries forgets the holds of objects no longer left out whose last rejection is long
// past, so that the holds kept are those of recent rejections. Called with mu held, once per
// rejection handled (not per object: a 400 may name thousands).
func (l *Loop) pruneRetries(now time.Time) {
	for r, o := range l.retries {
		if _, held := l.broken[r]; !held && now.Sub(o.last) > 2*l.cfg.RetryRejectedMax {
			delete(l.retries, r)
		}
	}
}

// toRelease lists, sorted, the rejected objects a build of snap at now includes again: those
// gone, and those releasable, rejected for another Kong than the loop translates for now, or
// pending, whose hold is over. Those releasable during their hold are marked pending when mark
// is set. Called with mu held.
func (l *Loop) toRelease(snap *store.Snapshot, now time.Time, mark bool) []store.Ref {
	refs := sortedRefs(l.broken)
	cands := releasable(l.broken, refs, l.builtSnap, snap)
	kong := kongKey(l.KongVersion(), l.RouterFlavor())
	var out []store.Ref
	for _, ref := range refs {
		st := l.retries[ref] // every rejected object has one (noteRejected; pruneRetries keeps it)
		cand := len(cands) > 0 && cands[0] == ref
		if cand {
			cands = cands[1:]
		}
		if _, ok := snap.Get(ref); !ok { // gone: nothing to hold out
			out = append(out, ref)
			continue
		}
		cand = cand || st.kong != kong
		switch {
		case (cand || st.pending) && !now.Before(st.notBefore):
			out = append(out, ref)
		case cand && mark:
			st.pending, l.retryDirty = true, true
		}
	}
	return out
}

// releaseBroken forgets the rejected objects a build of snap includes again (toRelease), so
// their current version gets a chance. Called with mu held; reports whether any was released.
func (l *Loop) releaseBroken(snap *store.Snapshot) bool {
	refs := l.toRelease(snap, l.cfg.Now(), true)
	l.retryDirty = l.retryDirty || len(refs) > 0
	for _, ref := range refs {
		delete(l.broken, ref)
		if st := l.retries[ref]; st != nil {
			st.pending = false
		}
		l.log.Info("object Kong rejected, or what it is built with, has changed; including it again", "object", ref.String())
	}
	return len(refs) > 0
}

// stillBroken lists, sorted, the rejected objects a build of snap leaves out: those
// releaseBroken would keep. Called with mu held; changes nothing.
func (l *Loop) stillBroken(snap *store.Snapshot) []store.Ref {
	release := l.toRelease(snap, l.cfg.Now(), false)
	out := make([]store.Ref, 0, len(l.broken))
	for _, ref := range sortedRefs(l.broken) {
		if len(release) > 0 && release[0] == ref {
			release = release[1:]
			continue
		}
		out = append(out, ref)
	}
	return out
}

// nextRetry is when the earliest pending hold ends (zero: none). Called without mu, on every
// turn of the loop: it is computed again only after the holds changed (retryDirty), so that
// a stream of events costs no walk over every rejected object each.
func (l *Loop) nextRetry() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.retryDirty {
		return l.retryAt
	}
	var at time.Time
	for ref, st := range l.retries {
		if _, held := l.broken[ref]; held && st.pending && (at.IsZero() || st.notBefore.Before(at)) {
			at = st.notBefore
		}
	}
	l.retryAt, l.retryDirty = at, false
	return at
}

// retryTimer is the Run goroutine's timer for nextRetry.
type retryTimer struct {
	deadline
	at time.Time // the instant scheduled (zero: none)
}

func newRetryTimer() *retryTimer { return &retryTimer{deadline: newDeadline()} }

// update schedules the timer for at (zero: none) if that changed.
func (r *retryTimer) update(at, now time.Time) {
	if at.Equal(r.at) {
		return
	}
	r.at = at
	r.schedule(max(at.Sub(now), 0), !at.IsZero())
}

// fired records that the timer's build runs now.
func (r *retryTimer) fired() { r.at, r.C = time.Time{}, nil }

// changedObject compares by resourceVersion; objects without one (manifests) by identity.
func changedObject(old, cur store.Object) bool {
	if old.GetResourceVersion() != "" || cur.GetResourceVersion() != "" {
		return old.GetResourceVersion() != cur.GetResourceVersion() || old.GetUID() != cur.GetUID()
	}
	return old != cur
}

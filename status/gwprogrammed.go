package status

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
)

// KIC v3.5.13's Programmed condition on a route's status.parents entries (its route
// controllers): Unknown/Unknown when the entry is made, True/ConfiguredInGateway once the
// configuration holding the route is in Kong, False/TranslationError when translating it failed.
const (
	routeReasonProgrammedUnknown = "Unknown"
	routeReasonConfigured        = "ConfiguredInGateway"
	routeReasonTranslationError  = "TranslationError"
)

// routeVerdict is what the configuration every Kong replica holds says of one route version.
type routeVerdict int

const (
	progPending    routeVerdict = iota // no configuration Kong holds was made from this version of the route
	progConfigured                     // an entity of it is in that configuration, and no problem names it
	progFailed                         // a problem names it (but its parentRefs'), or Kong rejected it
)

// routeProgrammed is the Programmed condition of one status.parents entry, and whether to set
// it. A parent that did not accept the route gets Unknown (the route is not served through it;
// KIC leaves its initial Unknown there). An accepted parent gets the route's verdict; while no
// configuration Kong holds has judged this version of the route, an existing condition is kept
// (as KIC, which never turns it back) and a new entry gets Unknown.
func routeProgrammed(accepted bool, v routeVerdict, cur []metav1.Condition, gen int64) (metav1.Condition, bool) {
	unknown := metav1.Condition{Type: ConditionProgrammed, Status: metav1.ConditionUnknown,
		Reason: routeReasonProgrammedUnknown, ObservedGeneration: gen}
	switch {
	case !accepted:
		return unknown, true
	case v == progConfigured:
		return cond(ConditionProgrammed, true, routeReasonConfigured, "", gen), true
	case v == progFailed:
		return cond(ConditionProgrammed, false, routeReasonTranslationError, "", gen), true
	case meta.FindStatusCondition(cur, ConditionProgrammed) != nil:
		return metav1.Condition{}, false
	}
	return unknown, true
}

// heldConfig is the newest published configuration every Kong replica was seen to hold, with
// what it says of the routes it was made from.
type heldConfig struct {
	p          *kongsync.Published
	configured map[store.Ref]bool
	failed     map[store.Ref]bool
}

// newHeldConfig judges p's routes: configured when an entity carries their tags, failed when
// a problem names them (refused parentRefs aside: those are the Accepted condition's) or Kong
// rejected them.
func newHeldConfig(p *kongsync.Published) *heldConfig {
	h := &heldConfig{p: p, configured: configuredRefs(p.Result.Document), failed: map[store.Ref]bool{}}
	for _, pr := range p.Result.Problems {
		if isRouteKind(pr.Object.Kind) && !strings.HasPrefix(pr.Field, "spec.parentRefs") {
			h.failed[pr.Object] = true
		}
	}
	for _, r := range p.Excluded {
		if isRouteKind(r.Kind) {
			h.failed[r] = true
		}
	}
	return h
}

// of is the verdict on obj, the version of route ref a translation saw: pending unless the
// held configuration was made from that very version.
func (h *heldConfig) of(ref store.Ref, obj store.Object) routeVerdict {
	if h == nil {
		return progPending
	}
	if cur, ok := h.p.Snapshot.Get(ref); !ok || cur != obj {
		return progPending
	}
	switch {
	case h.failed[ref]:
		return progFailed
	case h.configured[ref]:
		return progConfigured
	}
	return progPending
}

func isRouteKind(k store.Kind) bool { return slices.Contains(routeKinds, k) }

// OfferPublished hands the writer a configuration the sync loop published
// (sync.Config.Published); once every Kong replica holds it (Held), the routes it was made from
// get their Programmed condition. It never blocks.
func (w *GatewayWriter) OfferPublished(p kongsync.Published) {
	w.mu.Lock()
	if w.published == nil || w.published.Snapshot.Version() <= p.Snapshot.Version() {
		w.published = &p
	}
	w.mu.Unlock()
	w.Kick()
}

// Notify tells the writer a replica may now hold the latest configuration (a push or a
// probe): it asks for a pass only while that configuration is not known to be held, so that
// probes every second do not run passes. It never blocks.
func (w *GatewayWriter) Notify() {
	w.mu.Lock()
	p := w.published
	w.mu.Unlock()
	if p != nil && p != w.heldP.Load() {
		w.Kick()
	}
}

// Kick asks for a pass (Kong's listeners changed, or a configuration was offered). It never
// blocks.
func (w *GatewayWriter) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// promoteHeld makes the latest published configuration the held one once every replica holds
// it. Run's goroutine only.
func (w *GatewayWriter) promoteHeld() {
	w.mu.Lock()
	p := w.published
	w.mu.Unlock()
	if p == nil || (w.held != nil && w.held.p == p) || w.Held == nil || !w.Held(p.Hash) {
		return
	}
	w.held = newHeldConfig(p)
	w.heldP.Store(p)
}

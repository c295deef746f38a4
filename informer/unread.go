package informer

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kongsync/kongsync/store"
)

// UnreadFunc hears of a kind of KIC's that kongsync does not read (store.UnreadKinds): crd is
// its CustomResourceDefinition (metadata) when it appeared, nil when it went away. It is called
// once per change, from the CRD watcher's one worker.
type UnreadFunc func(kind store.UnreadKind, crd metav1.Object)

// gatedOut are the kinds the controller does not watch with these options: the GatewayAlpha
// kinds while that gate is off, KongServiceFacade and KongCustomEntity while their gates are
// off, as KIC's controllers.
func gatedOut(opts Options) []store.Kind {
	var out []store.Kind
	if !opts.GatewayAlpha {
		out = store.GatewayAlphaKinds()
	}
	if !opts.KongServiceFacade {
		out = append(out, store.KindKongServiceFacade)
	}
	if opts.DisableKongCustomEntity {
		out = append(out, store.KindKongCustomEntity)
	}
	return out
}

// readable is served without the resources of the kinds not watched.
func (s servedSet) readable(skip []store.Kind) servedSet {
	if len(skip) == 0 {
		return s
	}
	out := servedSet{}
	for gvr := range s {
		out[gvr] = true
	}
	for _, r := range crdResources {
		if slices.Contains(skip, r.kind) {
			for _, v := range r.versions {
				delete(out, schema.GroupVersionResource{Group: r.group, Version: v, Resource: r.resource})
			}
		}
	}
	return out
}

// unreadState tracks which unread kinds' CRDs were reported present; only the watcher's
// reconcile (one goroutine at a time) touches it.
type unreadState struct {
	kinds    []store.UnreadKind
	reported map[string]bool
	report   UnreadFunc
}

func newUnreadState(opts Options) unreadState {
	return unreadState{kinds: store.UnreadKinds(opts.GatewayAlpha, opts.KongServiceFacade, !opts.DisableKongCustomEntity), reported: map[string]bool{}, report: opts.Unread}
}

// reportUnread tells of every unread kind whose CRD appeared or went away since the last call.
func (w *crdWatcher) reportUnread() {
	u := &w.unread
	if u.report == nil {
		return
	}
	for _, k := range u.kinds {
		obj, exists, err := w.crds.GetIndexer().GetByKey(k.CRDName())
		if err != nil || exists == u.reported[k.Kind] {
			continue
		}
		u.reported[k.Kind] = exists
		var crd metav1.Object
		if exists {
			crd, _ = obj.(metav1.Object)
		}
		u.report(k, crd)
	}
}

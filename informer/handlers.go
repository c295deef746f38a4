package informer

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// secretFetchTimeout bounds the on-demand GET of a referenced Secret.
const secretFetchTimeout = 10 * time.Second

// handler applies one kind's informer events to the store.
type handler struct {
	c    *Controller
	kind store.Kind
	// gate is set for the informers of custom resources and Namespaces (crdwatch.go), which
	// start and stop while kongsync runs.
	gate *watchGate
}

func handlerFuncs(h *handler) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    h.upsert,
		UpdateFunc: func(_, obj any) { h.upsert(obj) },
		DeleteFunc: h.delete,
	}
}

func (h *handler) upsert(obj any) {
	if !h.enter() {
		return
	}
	defer h.leave()
	if u, ok := obj.(*undecodable); ok {
		h.c.log.Error(u.err, "cannot decode; left out", "kind", h.kind, "namespace", u.GetNamespace(), "name", u.GetName())
		h.notify(h.c.forget(store.Ref{Kind: h.kind, Namespace: u.GetNamespace(), Name: u.GetName()}))
		return
	}
	o, ok := obj.(store.Object)
	if !ok {
		h.c.log.Info("ignoring unexpected informer object", "kind", h.kind, "type", typeName(obj))
		return
	}
	switch h.kind {
	case store.KindIngress:
		h.c.trackRefs(o, ingressSecrets(o.(*networkingv1.Ingress)))
	case store.KindService:
		h.c.trackRefs(o, serviceSecrets(o.(*corev1.Service)))
	case store.KindKongPlugin:
		if p, ok := o.(*configurationv1.KongPlugin); ok {
			h.c.trackRefs(o, pluginSecrets(p))
		}
	case store.KindKongClusterPlugin:
		if p, ok := o.(*configurationv1.KongClusterPlugin); ok {
			h.c.trackRefs(o, clusterPluginSecrets(p))
		}
	}
	h.notify(h.c.stored(o))
}

func (h *handler) delete(obj any) {
	if !h.enter() {
		return
	}
	defer h.leave()
	var ns, name string
	switch o := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		// The watch missed the delete; the key is authoritative, the object may be stale.
		var err error
		if ns, name, err = cache.SplitMetaNamespaceKey(o.Key); err != nil {
			h.c.log.Error(err, "bad tombstone key", "kind", h.kind, "key", o.Key)
			return
		}
	case metav1.Object:
		ns, name = o.GetNamespace(), o.GetName()
	default:
		h.c.log.Info("ignoring unexpected deleted object", "kind", h.kind, "type", typeName(obj))
		return
	}
	h.notify(h.c.forget(store.Ref{Kind: h.kind, Namespace: ns, Name: name}))
}

// enter takes the gate, if any; false if its informer was stopped (an event still in flight).
func (h *handler) enter() bool {
	if h.gate == nil {
		return true
	}
	h.gate.mu.Lock()
	if h.gate.stopped {
		h.gate.mu.Unlock()
		return false
	}
	return true
}

func (h *handler) leave() {
	if h.gate != nil {
		h.gate.mu.Unlock()
	}
}

// notify tells the sync loop about a change, unless the gate holds notifications back (its
// informer's batch has not synced yet).
func (h *handler) notify(changed bool) {
	if changed && (h.gate == nil || !h.gate.quiet) {
		h.c.notifier.Notify()
	}
}

// forget removes an object from the store, with the Secret references it held, and reports
// whether the store changed.
func (c *Controller) forget(ref store.Ref) bool {
	switch ref.Kind {
	case store.KindIngress, store.KindService, store.KindKongPlugin, store.KindKongClusterPlugin:
		c.dropRefs(ref)
	}
	return c.store.Delete(ref)
}

// put upserts into the store and notifies on change.
func (c *Controller) put(o store.Object) {
	if c.stored(o) {
		c.notifier.Notify()
	}
}

// stored upserts into the store and reports whether it changed. The store keeps the informer's
// pointer: neither side mutates objects after this point.
func (c *Controller) stored(o store.Object) bool {
	changed, err := c.store.Upsert(o)
	if err != nil {
		c.log.Error(err, "store upsert", "namespace", o.GetNamespace(), "name", o.GetName())
		return false
	}
	return changed
}

func (c *Controller) remove(ref store.Ref) {
	if c.store.Delete(ref) {
		c.notifier.Notify()
	}
}

// trackRefs records the Secrets an object references and queues for reconciling those whose
// reference count went from or to zero: a newly referenced Secret may need a GET, one no longer
// referenced leaves the store unless its type or label keeps it.
func (c *Controller) trackRefs(owner store.Object, secrets []store.Ref) {
	ref, err := store.RefOf(owner)
	if err != nil {
		return
	}
	added, removed := c.refs.set(ref, secrets)
	c.reconcileSecrets(added)
	c.reconcileSecrets(removed)
}

func (c *Controller) dropRefs(owner store.Ref) {
	_, removed := c.refs.set(owner, nil)
	c.reconcileSecrets(removed)
}

func (c *Controller) reconcileSecrets(secrets []store.Ref) {
	for _, s := range secrets {
		c.enqueueSecret(s)
	}
}

func typeName(obj any) string {
	if obj == nil {
		return "nil"
	}
	return fmtType(obj)
}

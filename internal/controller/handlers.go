package controller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kongsync/kongsync/store"
)

// secretFetchTimeout bounds the on-demand GET of a newly referenced Secret.
const secretFetchTimeout = 10 * time.Second

// handler applies one kind's informer events to the store.
type handler struct {
	c    *Controller
	kind store.Kind
}

func (h *handler) upsert(obj any) {
	o, ok := obj.(store.Object)
	if !ok {
		h.c.log.Info("ignoring unexpected informer object", "kind", h.kind, "type", typeName(obj))
		return
	}
	switch h.kind {
	case store.KindSecret:
		h.c.upsertSecret(o.(*corev1.Secret))
		return
	case store.KindIngress:
		h.c.trackRefs(o, ingressSecrets(o.(*networkingv1.Ingress)))
	case store.KindService:
		h.c.trackRefs(o, serviceSecrets(o.(*corev1.Service)))
	}
	h.c.put(o)
}

func (h *handler) delete(obj any) {
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
	ref := store.Ref{Kind: h.kind, Namespace: ns, Name: name}
	if h.kind == store.KindIngress || h.kind == store.KindService {
		h.c.dropRefs(ref)
	}
	h.c.remove(ref)
}

// put upserts into the store and notifies on change. The store keeps the informer's pointer:
// neither side mutates objects after this point.
func (c *Controller) put(o store.Object) {
	changed, err := c.store.Upsert(o)
	if err != nil {
		c.log.Error(err, "store upsert", "namespace", o.GetNamespace(), "name", o.GetName())
		return
	}
	if changed {
		c.notifier.Notify()
	}
}

func (c *Controller) remove(ref store.Ref) {
	if c.store.Delete(ref) {
		c.notifier.Notify()
	}
}

// upsertSecret stores a Secret whose data is kept, fetches the full copy of one whose data was
// dropped but which is referenced by now, and keeps every other Secret out of the store.
func (c *Controller) upsertSecret(s *corev1.Secret) {
	ref := store.Ref{Kind: store.KindSecret, Namespace: s.Namespace, Name: s.Name}
	keep := alwaysKept(s) || c.refs.referenced(ref)
	switch {
	case keep && s.Annotations[dataDroppedAnnotation] == "true":
		c.fetchSecret(ref)
	case keep:
		c.put(s)
	default:
		c.remove(ref)
	}
}

// trackRefs records the Secrets an Ingress or Service references; a Secret that became
// referenced is fetched (its data may have been dropped), one no longer referenced leaves the
// store unless its type or label keeps it.
func (c *Controller) trackRefs(owner store.Object, secrets []store.Ref) {
	ref, err := store.RefOf(owner)
	if err != nil {
		return
	}
	added, removed := c.refs.set(ref, secrets)
	for _, s := range added {
		if _, ok := c.store.Get(s); !ok {
			c.fetchSecret(s)
		}
	}
	c.forget(removed)
}

func (c *Controller) dropRefs(owner store.Ref) {
	_, removed := c.refs.set(owner, nil)
	c.forget(removed)
}

func (c *Controller) forget(secrets []store.Ref) {
	for _, s := range secrets {
		if o, ok := c.store.Get(s); ok && !alwaysKept(o.(*corev1.Secret)) {
			c.remove(s)
		}
	}
}

// fetchSecret GETs one Secret and stores it. A missing Secret is not an error: the translator
// reports the dangling reference.
func (c *Controller) fetchSecret(ref store.Ref) {
	ctx, cancel := context.WithTimeout(context.Background(), secretFetchTimeout)
	defer cancel()
	s, err := c.client.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		c.log.Error(err, "fetching referenced Secret", "namespace", ref.Namespace, "name", ref.Name)
		return
	}
	if !c.watches(ref.Namespace) {
		return
	}
	trimMeta(&s.ObjectMeta)
	c.put(s)
}

// watches reports whether namespace is among the watched ones.
func (c *Controller) watches(namespace string) bool {
	if len(c.opts.Namespaces) == 0 {
		return true
	}
	for _, ns := range c.opts.Namespaces {
		if ns == "" || ns == namespace {
			return true
		}
	}
	return false
}

func typeName(obj any) string {
	if obj == nil {
		return "nil"
	}
	return fmtType(obj)
}

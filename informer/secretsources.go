package informer

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kongsync/kongsync/store"
)

// fullSecretSelectors are the server-side selectors of the Secret informers that list and watch
// full Secrets (data included): exactly the Secrets alwaysKept accepts, so the API server never
// sends the data of any other Secret.
func fullSecretSelectors() []metav1.ListOptions {
	return []metav1.ListOptions{
		{FieldSelector: "type=" + string(corev1.SecretTypeTLS)},
		{LabelSelector: CACertLabel + "=true"},
		{LabelSelector: CredentialLabel},
	}
}

// secretGVR is the resource the metadata-only informer watches.
func secretGVR() schema.GroupVersionResource {
	return corev1.SchemeGroupVersion.WithResource("secrets")
}

// secretSources are the Secret informers of one watched namespace ("" for all): full informers
// for the Secrets kept whatever references them, and a metadata-only informer that knows every
// Secret's name and resourceVersion, so a referenced Secret outside the full informers is GOT
// when it appears or changes, and dropped when it disappears.
type secretSources struct {
	full []cache.SharedIndexInformer
	meta cache.SharedIndexInformer
}

// watchSecrets creates namespace's Secret informers and registers them.
func (c *Controller) watchSecrets(namespace string) error {
	src := &secretSources{}
	for _, sel := range fullSecretSelectors() {
		sel := sel
		f := informers.NewSharedInformerFactoryWithOptions(c.client, c.opts.Resync, informers.WithNamespace(namespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector, o.LabelSelector = sel.FieldSelector, sel.LabelSelector
			}))
		c.factories = append(c.factories, f)
		inf := f.Core().V1().Secrets().Informer()
		if err := c.watchSecretInformer(inf, transformSecret); err != nil {
			return err
		}
		src.full = append(src.full, inf)
	}
	mf := metadatainformer.NewFilteredSharedInformerFactory(c.opts.Metadata, c.opts.Resync, namespace, nil)
	c.metaFactories = append(c.metaFactories, mf)
	src.meta = mf.ForResource(secretGVR()).Informer()
	if err := c.watchSecretInformer(src.meta, transformSecretMeta); err != nil {
		return err
	}
	c.secrets[namespace] = src
	return nil
}

// watchSecretInformer makes every event of a Secret informer reconcile that Secret.
func (c *Controller) watchSecretInformer(inf cache.SharedIndexInformer, transform cache.TransformFunc) error {
	if err := inf.SetTransform(transform); err != nil {
		return fmt.Errorf("controller: Secret transform: %w", err)
	}
	on := func(obj any) {
		if ref, ok := c.secretRef(obj); ok {
			c.enqueueSecret(ref)
		}
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: on, UpdateFunc: func(_, obj any) { on(obj) }, DeleteFunc: on,
	})
	if err != nil {
		return fmt.Errorf("controller: Secret handler: %w", err)
	}
	c.synced = append(c.synced, reg.HasSynced)
	c.secretSynced = append(c.secretSynced, inf.HasSynced)
	return nil
}

// secretRef names the Secret of an informer event, tombstones included.
func (c *Controller) secretRef(obj any) (store.Ref, bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		ns, name, err := cache.SplitMetaNamespaceKey(d.Key)
		if err != nil {
			c.log.Error(err, "bad tombstone key", "kind", store.KindSecret, "key", d.Key)
			return store.Ref{}, false
		}
		return store.Ref{Kind: store.KindSecret, Namespace: ns, Name: name}, true
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		c.log.Info("ignoring unexpected Secret informer object", "type", typeName(obj))
		return store.Ref{}, false
	}
	return store.Ref{Kind: store.KindSecret, Namespace: m.GetNamespace(), Name: m.GetName()}, true
}

// sources returns the informers that cover namespace, nil if it is not watched.
func (c *Controller) sources(namespace string) *secretSources {
	if s, ok := c.secrets[""]; ok {
		return s
	}
	return c.secrets[namespace]
}

// reconcileSecret brings the store's copy of one Secret in line with the informer caches and
// the references, whichever event prompted it, so the outcome does not depend on the order in
// which the informers deliver: a Secret a full informer holds is stored as that informer has it;
// otherwise a referenced Secret the metadata informer knows is stored as GOT from the API (again
// whenever its resourceVersion moves); every other Secret is out of the store. Only the Secret
// workers call it, never two at once for one Secret (the work queue guarantees it), and an
// event during a call queues the Secret again, so the last call sees the newest state. The
// error is that of a failed GET, to be retried.
func (c *Controller) reconcileSecret(ctx context.Context, ref store.Ref) error {
	src := c.sources(ref.Namespace)
	if src == nil {
		c.remove(ref)
		return nil
	}
	if s := src.fullSecret(ref); s != nil {
		c.put(s)
		return nil
	}
	if !c.refs.referenced(ref) {
		c.remove(ref)
		return nil
	}
	if !src.synced() {
		return nil // Start reconciles every reference once the Secret caches are complete
	}
	rv, exists := src.metaVersion(ref)
	if !exists {
		c.remove(ref)
		return nil
	}
	if o, ok := c.store.Get(ref); ok && o.GetResourceVersion() == rv {
		return nil
	}
	return c.fetchSecret(ctx, ref)
}

// fullSecret returns the Secret as a full informer holds it, nil if none does. A Secret whose
// labels change may briefly sit in two of them at different versions: the newest wins.
func (s *secretSources) fullSecret(ref store.Ref) *corev1.Secret {
	key := ref.Namespace + "/" + ref.Name
	var best *corev1.Secret
	for _, inf := range s.full {
		o, ok, err := inf.GetIndexer().GetByKey(key)
		if err != nil || !ok {
			continue
		}
		sec, ok := o.(*corev1.Secret)
		// The selectors already guarantee alwaysKept on a real API server; checking again keeps
		// the label value rule (a credential label must be non-empty) and clients that ignore
		// selectors honest.
		if !ok || !alwaysKept(sec) {
			continue
		}
		if best == nil || newer(sec.ResourceVersion, best.ResourceVersion) {
			best = sec
		}
	}
	return best
}

// newer reports whether resourceVersion a is later than b. Versions are opaque strings in the
// API contract but etcd revisions in practice; unparsable ones keep the first found.
func newer(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x > y
}

// metaVersion reports the resourceVersion the metadata informer holds for ref.
func (s *secretSources) metaVersion(ref store.Ref) (string, bool) {
	o, ok, err := s.meta.GetIndexer().GetByKey(ref.Namespace + "/" + ref.Name)
	if err != nil || !ok {
		return "", false
	}
	m, ok := o.(metav1.Object)
	if !ok {
		return "", false
	}
	return m.GetResourceVersion(), true
}

func (s *secretSources) synced() bool {
	for _, inf := range s.full {
		if !inf.HasSynced() {
			return false
		}
	}
	return s.meta.HasSynced()
}

// fetchSecret GETs one Secret and stores it; a Secret gone meanwhile leaves the store (the
// translator reports the dangling reference). Any other failure is returned for the worker to
// retry with backoff.
func (c *Controller) fetchSecret(ctx context.Context, ref store.Ref) error {
	ctx, cancel := context.WithTimeout(ctx, secretFetchTimeout)
	defer cancel()
	s, err := c.getSecret(ctx, ref)
	if apierrors.IsNotFound(err) {
		c.remove(ref)
		return nil
	}
	if err != nil {
		return err
	}
	trimMeta(&s.ObjectMeta)
	c.put(s)
	return nil
}

// getSecretFromAPI is the production getSecret: one GET through the typed client.
func (c *Controller) getSecretFromAPI(ctx context.Context, ref store.Ref) (*corev1.Secret, error) {
	return c.client.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
}

// transformSecret trims the metadata of a Secret a full informer keeps.
func transformSecret(obj any) (any, error) {
	if s, ok := obj.(*corev1.Secret); ok {
		trimMeta(&s.ObjectMeta)
	}
	return obj, nil
}

// transformSecretMeta keeps what reconcileSecret reads of the metadata-only copies: the key
// and the resourceVersion.
func transformSecretMeta(obj any) (any, error) {
	if p, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return &metav1.PartialObjectMetadata{TypeMeta: p.TypeMeta, ObjectMeta: metav1.ObjectMeta{
			Namespace: p.Namespace, Name: p.Name, ResourceVersion: p.ResourceVersion, UID: p.UID}}, nil
	}
	return obj, nil
}

// reconcileReferencedSecrets runs once the Secret caches are complete: references recorded
// before that could not yet tell a missing Secret from one not listed yet.
func (c *Controller) reconcileReferencedSecrets() {
	for _, ref := range c.refs.all() {
		c.enqueueSecret(ref)
	}
}

// Package informer feeds the store from the Kubernetes API: client-go shared informers for
// every kind the translator reads, with transforms that keep only what it reads, handlers that
// upsert and delete into store.Store and then notify the sync loop. Secrets go through a work
// queue instead (secretqueue.go), as some of them must be GOT from the API. The custom resources
// (Kong's and the Gateway API's) are watched while their CRDs are served, whenever they are
// installed or removed (crdwatch.go).
package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	networkinginformers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kongsync/kongsync/store"
)

// Notifier is told that the store changed; the sync loop coalesces these calls, so they must be
// cheap and never block.
type Notifier interface {
	Notify()
}

// Options configure which objects the controller watches.
type Options struct {
	// Namespaces limits namespaced kinds to these namespaces; empty watches all of them.
	// IngressClasses are cluster-scoped and always watched cluster-wide.
	Namespaces []string
	// Resync is the informers' resync period; 0 disables resyncs (the store ignores them anyway).
	Resync time.Duration
	// CustomResources, if set, lists and watches the custom resources (Kong's and the Gateway
	// API's, crdResources) while their CRDs are installed (NewRESTCustomResources); without it
	// none is watched.
	CustomResources CustomResources
	// Metadata lists and watches Secrets as metadata only (PartialObjectMetadata), so that the
	// data of Secrets the translator never reads is never transferred. Required.
	Metadata metadata.Interface
	// SecretRetryBase is the delay before the first retry of a failed GET of a referenced
	// Secret; each further failure of the same Secret doubles it, up to SecretRetryMax. 0 means
	// 500 ms: an API server hiccup heals within a second, a lasting outage is not hammered.
	SecretRetryBase time.Duration
	// GatewayAlpha is KIC's gate of that name: TCPRoutes, UDPRoutes and TLSRoutes are watched
	// only with it on, as KIC's controllers.
	GatewayAlpha bool
	// KongServiceFacade is KIC's gate of that name: KongServiceFacades are watched only with it
	// on, as KIC's controllers.
	KongServiceFacade bool
	// DisableKongCustomEntity is KIC's KongCustomEntity gate turned off (it is on by default):
	// KongCustomEntities are then not watched, as KIC's controllers.
	DisableKongCustomEntity bool
	// Unread, if set, hears of the kinds of KIC's the cluster serves and kongsync does not read
	// (store.UnreadKinds), at start and whenever their CRDs appear or go (with CustomResources only).
	Unread UnreadFunc
	// SecretRetryMax caps the retry delay of one Secret; 0 means 5 min. The Secret's next change
	// is fetched at once whatever the delay.
	SecretRetryMax time.Duration
}

// Controller owns the informers. Create it with New, then call Start once.
type Controller struct {
	client   kubernetes.Interface
	store    *store.Store
	notifier Notifier
	log      logr.Logger
	opts     Options
	refs     *secretRefs

	factories     []informers.SharedInformerFactory
	metaFactories []metadatainformer.SharedInformerFactory
	synced        []cache.InformerSynced
	// crds runs the informers of the custom resources and Namespaces; nil without
	// Options.CustomResources.
	crds *crdWatcher

	// secrets holds the Secret informers per watched namespace ("" for all); secretSynced
	// their caches' sync state.
	secrets      map[string]*secretSources
	secretSynced []cache.InformerSynced
	// queue carries the Secrets to reconcile from the informer handlers to the workers (see
	// secretqueue.go); pending tracks those not yet reconciled since their last enqueue.
	queue   workqueue.TypedRateLimitingInterface[store.Ref]
	pending *pendingSet
	// workers are the queue's worker goroutines; stopQueue detaches the queue's shutdown from
	// the ctx given to Start.
	workers   sync.WaitGroup
	stopQueue func() bool
	// getSecret GETs one Secret for fetchSecret: getSecretFromAPI; tests wrap it to make a GET
	// slow without holding the fake clientset's lock.
	getSecret func(ctx context.Context, ref store.Ref) (*corev1.Secret, error)
}

// New wires informers for Ingress, IngressClass, Service, EndpointSlice and Secret (see
// secretsources.go), and with Options.CustomResources the CRD watcher, to st. Nothing runs until Start.
func New(client kubernetes.Interface, st *store.Store, n Notifier, log logr.Logger, opts Options) (*Controller, error) {
	if opts.SecretRetryBase <= 0 {
		opts.SecretRetryBase = defaultSecretRetryBase
	}
	if opts.SecretRetryMax <= 0 {
		opts.SecretRetryMax = defaultSecretRetryMax
	}
	opts.SecretRetryMax = max(opts.SecretRetryMax, opts.SecretRetryBase)
	if opts.Metadata == nil {
		return nil, errors.New("controller: Options.Metadata is required (Secrets are watched as metadata)")
	}
	c := &Controller{client: client, store: st, notifier: n, log: log, opts: opts, refs: newSecretRefs(),
		secrets: map[string]*secretSources{}, queue: newSecretQueue(opts), pending: newPendingSet()}
	c.getSecret = c.getSecretFromAPI
	cluster := informers.NewSharedInformerFactoryWithOptions(client, opts.Resync)
	c.factories = append(c.factories, cluster)
	if err := c.watch(cluster.Networking().V1().IngressClasses().Informer(), store.KindIngressClass, transformIngressClass); err != nil {
		return nil, err
	}
	namespaces := opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{""} // one cluster-wide factory; "" is metav1.NamespaceAll
	}
	for _, ns := range dedupe(namespaces) {
		f := cluster
		if ns != "" {
			f = informers.NewSharedInformerFactoryWithOptions(client, opts.Resync, informers.WithNamespace(ns))
			c.factories = append(c.factories, f)
		}
		if err := c.watchNamespaced(f, ns); err != nil {
			return nil, err
		}
	}
	if opts.CustomResources != nil {
		w, err := newCRDWatcher(c, client.Discovery(), dedupe(namespaces))
		if err != nil {
			return nil, err
		}
		c.crds = w
	}
	return c, nil
}

// The informers of the large kinds carry no index: the store answers every lookup, and
// client-go's default namespace index costs ~130 B per object (4 MB of live heap at 10k
// routes with their Services and EndpointSlices).
func (c *Controller) watchNamespaced(f informers.SharedInformerFactory, ns string) error {
	ing := f.InformerFor(&networkingv1.Ingress{}, func(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return networkinginformers.NewFilteredIngressInformer(cs, ns, resync, cache.Indexers{}, nil)
	})
	if err := c.watch(ing, store.KindIngress, transformIngress); err != nil {
		return err
	}
	svc := f.InformerFor(&corev1.Service{}, func(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return coreinformers.NewFilteredServiceInformer(cs, ns, resync, cache.Indexers{}, nil)
	})
	if err := c.watch(svc, store.KindService, transformService); err != nil {
		return err
	}
	eps := f.InformerFor(&discoveryv1.EndpointSlice{}, func(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return discoveryinformers.NewFilteredEndpointSliceInformer(cs, ns, resync, cache.Indexers{}, nil)
	})
	if err := c.watch(eps, store.KindEndpointSlice, transformEndpointSlice); err != nil {
		return err
	}
	if err := c.watchCACertConfigMaps(ns); err != nil {
		return err
	}
	return c.watchSecrets(ns)
}

// watchCACertConfigMaps lists and watches only the ConfigMaps labelled konghq.com/ca-cert:
// "true" (server-side label selector), so no other ConfigMap's data reaches kongsync; one whose
// label goes away leaves the watch as a delete, and so the store.
func (c *Controller) watchCACertConfigMaps(ns string) error {
	f := informers.NewSharedInformerFactoryWithOptions(c.client, c.opts.Resync, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = caCertConfigMapSelector }))
	c.factories = append(c.factories, f)
	return c.watch(f.Core().V1().ConfigMaps().Informer(), store.KindConfigMap, transformConfigMap)
}

// watch installs the transform and the store handler on one informer.
func (c *Controller) watch(inf cache.SharedIndexInformer, kind store.Kind, transform cache.TransformFunc) error {
	if err := inf.SetTransform(transform); err != nil {
		return fmt.Errorf("controller: %s transform: %w", kind, err)
	}
	reg, err := inf.AddEventHandler(handlerFuncs(&handler{c: c, kind: kind}))
	if err != nil {
		return fmt.Errorf("controller: %s handler: %w", kind, err)
	}
	// The registration reports synced once the handler (not just the cache) has seen the
	// initial list, so the store is complete when Start returns.
	c.synced = append(c.synced, reg.HasSynced)
	return nil
}

// Start runs the informers and the Secret workers until ctx ends and blocks until every
// handler has processed the initial list — those of the custom resources whose CRDs are served
// now included — and every Secret then known has been reconciled once (stored, or its GET failed
// and is queued for a retry), so the first push sees the whole cluster. Custom resources whose
// CRDs appear later are watched from then on.
func (c *Controller) Start(ctx context.Context) error {
	c.stopQueue = context.AfterFunc(ctx, c.queue.ShutDown)
	for _, f := range c.factories {
		f.Start(ctx.Done())
	}
	for _, f := range c.metaFactories {
		f.Start(ctx.Done())
	}
	if !waitSynced(ctx, c.secretSynced) {
		return errors.New("controller: Secret caches did not sync before shutdown")
	}
	c.startSecretWorkers(ctx)
	if c.crds != nil {
		if err := c.crds.start(ctx); err != nil {
			return err
		}
	}
	c.reconcileReferencedSecrets()
	if !waitSynced(ctx, c.synced) {
		return errors.New("controller: informer caches did not sync before shutdown")
	}
	if !c.pending.wait(ctx) {
		return errors.New("controller: referenced Secrets were not reconciled before shutdown")
	}
	c.log.V(1).Info("informer caches synced", "version", c.store.Version())
	return nil
}

// syncPoll is how often Start checks the informers' sync state: client-go's
// WaitForCacheSync polls every 100 ms, a tenth of a second lost twice on every start.
const syncPoll = 5 * time.Millisecond

// waitSynced waits until every fn reports synced; false if ctx ends first.
func waitSynced(ctx context.Context, fns []cache.InformerSynced) bool {
	t := time.NewTicker(syncPoll)
	defer t.Stop()
	for {
		done := true
		for _, fn := range fns {
			if !fn() {
				done = false
				break
			}
		}
		if done {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

// HasSynced reports whether every handler has processed its initial list, those of the custom
// resources watched now included.
func (c *Controller) HasSynced() bool {
	for _, s := range c.synced {
		if !s() {
			return false
		}
	}
	return c.crds == nil || c.crds.hasSynced()
}

// Shutdown waits for the informer goroutines to exit after ctx passed to Start has ended. The
// Secret workers stop even if it has not: a GET in flight ends within its timeout.
func (c *Controller) Shutdown() {
	if c.stopQueue != nil {
		c.stopQueue()
	}
	c.queue.ShutDown()
	c.workers.Wait()
	for _, f := range c.factories {
		f.Shutdown()
	}
	for _, f := range c.metaFactories {
		f.Shutdown()
	}
	if c.crds != nil {
		c.crds.wg.Wait()
	}
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func fmtType(obj any) string { return fmt.Sprintf("%T", obj) }

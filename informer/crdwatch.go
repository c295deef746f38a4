package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kongsync/kongsync/store"
)

// crdGVR is what the watcher lists and watches, as metadata only: a CRD's schema can weigh
// hundreds of kilobytes, and its name is all the watcher needs to hear.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// Backoff of a discovery that disagrees with the CRDs (the API server serves a new CRD a moment
// after creating it, and stops serving a deleted one a moment after) or failed.
const (
	crdRetryBase = 20 * time.Millisecond
	crdRetryMax  = 2 * time.Minute
)

// settleWait is how long the informers started together wait for each other before those that
// synced notify without the rest: an informer that never syncs (its RBAC is missing, say) must
// not silence the others for good.
const settleWait = 30 * time.Second

// crdKey is the watcher queue's only key: every CRD event asks for one reconcile of all of them.
const crdKey = "crds"

// crdWatcher runs the informers of the custom resources (crdResources) whose CRDs are served, and
// of the Namespaces while a Gateway API kind is: it watches the CRDs' metadata and, whenever one
// of ours appears, changes or disappears, asks discovery which versions are served and starts,
// switches or stops informers to match. Informers started after Start hold back their store
// notifications until every informer started with them has synced, then notify once; a stopped
// informer's objects leave the store (all of them when its CRD went away, those the replacing
// informer does not list when it was replaced at another version).
type crdWatcher struct {
	c          *Controller
	disc       resourceLister
	namespaces []string
	crds       cache.SharedIndexInformer
	queue      workqueue.TypedRateLimitingInterface[string]
	wanted     map[string]bool // our CRDs' names, and those of the unread kinds
	skip       []store.Kind    // kinds not watched (gatedOut)
	unread     unreadState

	// reconciled, if set, hears the outcome of every reconcile of the worker (tests).
	reconciled func(retry bool)

	mu      sync.Mutex
	running map[watchSpec]*dynWatch
	// wg counts the informer, worker and settling goroutines, for Shutdown.
	wg sync.WaitGroup
}

// dynWatch is one running informer of the watcher.
type dynWatch struct {
	spec   watchSpec
	inf    cache.SharedIndexInformer
	synced cache.InformerSynced
	gate   *watchGate
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// watchGate sits between a watcher's informer and the store. Its lock serialises the informer's
// handler with a purge of the same scope; stopped drops events delivered after the informer was
// stopped; quiet holds back notifications until the informer's batch has synced.
type watchGate struct {
	mu      sync.Mutex
	stopped bool
	quiet   bool
}

func newCRDWatcher(c *Controller, disc resourceLister, namespaces []string) (*crdWatcher, error) {
	w := &crdWatcher{c: c, disc: disc, namespaces: namespaces, running: map[watchSpec]*dynWatch{},
		wanted: map[string]bool{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](crdRetryBase, crdRetryMax),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "kongsync-crds"})}
	for _, r := range crdResources {
		w.wanted[r.crdName()] = true
	}
	w.skip, w.unread = gatedOut(c.opts), newUnreadState(c.opts)
	for _, u := range w.unread.kinds {
		w.wanted[u.CRDName()] = true
	}
	w.crds = metadatainformer.NewFilteredMetadataInformer(c.opts.Metadata, crdGVR, "", c.opts.Resync, cache.Indexers{}, nil).Informer()
	if err := w.crds.SetTransform(transformCRD); err != nil {
		return nil, fmt.Errorf("controller: CRD transform: %w", err)
	}
	on := func(obj any) {
		if m, ok := obj.(metav1.Object); ok && !w.wanted[m.GetName()] {
			return
		}
		w.queue.Add(crdKey) // tombstones too: a reconcile costs a few discovery requests
	}
	if _, err := w.crds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: on, UpdateFunc: func(_, obj any) { on(obj) }, DeleteFunc: on,
	}); err != nil {
		return nil, fmt.Errorf("controller: CRD handler: %w", err)
	}
	return w, nil
}

// start runs the CRD informer, starts the informers of the resources served now and waits for
// their caches (so that the first push sees them), then follows CRD changes until ctx ends.
func (w *crdWatcher) start(ctx context.Context) error {
	w.wg.Go(func() { w.crds.RunWithContext(ctx) })
	context.AfterFunc(ctx, w.queue.ShutDown)
	if !waitSynced(ctx, []cache.InformerSynced{w.crds.HasSynced}) {
		return errors.New("controller: CRD cache did not sync before shutdown")
	}
	started, retry, err := w.reconcile(ctx, false)
	if err != nil {
		return err
	}
	if retry {
		w.queue.AddRateLimited(crdKey)
	}
	if !waitSynced(ctx, syncedOf(started)) {
		return errors.New("controller: custom resource caches did not sync before shutdown")
	}
	w.wg.Go(func() {
		for w.processNext(ctx) {
		}
	})
	return nil
}

// processNext reconciles once per dequeued event; a failed or inconsistent discovery is retried
// with backoff, and a success resets it.
func (w *crdWatcher) processNext(ctx context.Context) bool {
	key, shutdown := w.queue.Get()
	if shutdown {
		return false
	}
	defer w.queue.Done(key)
	_, retry, err := w.reconcile(ctx, true)
	if err != nil {
		w.c.log.Error(err, "discovering custom resources; retrying")
	}
	if w.reconciled != nil {
		w.reconciled(retry)
	}
	if err != nil || retry {
		w.queue.AddRateLimited(key)
		return true
	}
	w.queue.Forget(key)
	return true
}

// reconcile makes the running informers those discovery asks for. It returns the informers it
// started, and whether discovery disagrees with the CRDs the informer knows (a CRD of ours that
// is not served at a version kongsync reads, or one served without a CRD): then the caller tries
// again later. Informers started with late set are quiet until settled.
func (w *crdWatcher) reconcile(ctx context.Context, late bool) ([]*dynWatch, bool, error) {
	served, err := discoverServed(w.disc)
	if err != nil {
		return nil, false, err
	}
	retry := w.disagrees(served)
	w.reportUnread()
	stop, started, err := w.swap(ctx, desiredWatches(served.readable(w.skip), w.namespaces), late)
	w.stopAll(stop, started)
	if len(started) > 0 && late {
		w.wg.Go(func() { w.settle(ctx, started, stop) })
	}
	return started, retry, err
}

// swap updates the running set to desired: it starts the informers missing and returns them,
// and the ones no longer desired, for the caller to stop.
func (w *crdWatcher) swap(ctx context.Context, desired []watchSpec, quiet bool) (stop, started []*dynWatch, err error) {
	want := map[watchSpec]bool{}
	for _, s := range desired {
		want[s] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for s, dw := range w.running {
		if !want[s] {
			stop = append(stop, dw)
			delete(w.running, s)
		}
	}
	for _, s := range desired {
		if w.running[s] != nil {
			continue
		}
		dw, err := w.startWatch(ctx, s, quiet)
		if err != nil {
			return stop, started, err
		}
		w.running[s] = dw
		started = append(started, dw)
	}
	return stop, started, nil
}

// disagrees reports whether discovery and the CRD informer tell different stories about one of
// our resources.
func (w *crdWatcher) disagrees(served servedSet) bool {
	for _, r := range crdResources {
		_, isServed := served.version(r)
		_, exists, err := w.crds.GetIndexer().GetByKey(r.crdName())
		if err == nil && exists != isServed {
			w.c.log.V(1).Info("CRD and discovery disagree; retrying", "crd", r.crdName(), "exists", exists, "served", isServed)
			return true
		}
	}
	return false
}

// startWatch creates, registers and runs one informer.
func (w *crdWatcher) startWatch(ctx context.Context, s watchSpec, quiet bool) (*dynWatch, error) {
	var inf cache.SharedIndexInformer
	if s.kind == store.KindNamespace {
		inf = metadatainformer.NewFilteredMetadataInformer(w.c.opts.Metadata, s.gvr, "", w.c.opts.Resync,
			cache.Indexers{}, nameSelector(s.name)).Informer()
		if err := inf.SetTransform(transformNamespace); err != nil {
			return nil, fmt.Errorf("controller: %s transform: %w", s.kind, err)
		}
	} else {
		r, ok := crdResourceOf(s.kind)
		if !ok {
			return nil, fmt.Errorf("controller: no custom resource of kind %s", s.kind)
		}
		lw := w.c.opts.CustomResources.ListerWatcher(s.gvr, s.namespace, func(raw []byte) runtime.Object { return decodeCustom(r, raw) })
		// No example object: the reflector would drop what is not of its type, and an object
		// that does not decode must reach the handler (as undecodable) to leave the store.
		inf = cache.NewSharedIndexInformer(lw, nil, w.c.opts.Resync, cache.Indexers{}) // no index: the store answers lookups
	}
	gate := &watchGate{quiet: quiet}
	reg, err := inf.AddEventHandler(handlerFuncs(&handler{c: w.c, kind: s.kind, gate: gate}))
	if err != nil {
		return nil, fmt.Errorf("controller: %s handler: %w", s.kind, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	dw := &dynWatch{spec: s, inf: inf, synced: reg.HasSynced, gate: gate, ctx: wctx, cancel: cancel, done: make(chan struct{})}
	w.wg.Go(func() {
		defer close(dw.done)
		inf.RunWithContext(wctx)
	})
	w.c.log.Info("watching", "kind", s.kind, "version", s.gvr.Version, "namespace", s.namespace, "name", s.name)
	return dw, nil
}

// nameSelector limits a Namespace informer to one Namespace; "" lists them all.
func nameSelector(name string) func(*metav1.ListOptions) {
	if name == "" {
		return nil
	}
	return func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + name }
}

// stopAll stops informers and waits until their handlers have returned; the objects of a scope
// no new informer takes over leave the store at once (a replaced scope is purged when its
// replacement has synced, in settle).
func (w *crdWatcher) stopAll(stop, started []*dynWatch) {
	replaced := map[scope]bool{}
	for _, dw := range started {
		replaced[dw.spec.scope()] = true
	}
	changed := false
	for _, dw := range stop {
		dw.cancel()
		<-dw.done
		dw.gate.mu.Lock()
		dw.gate.stopped = true
		dw.gate.mu.Unlock()
		w.c.log.Info("stopped watching", "kind", dw.spec.kind, "version", dw.spec.gvr.Version, "namespace", dw.spec.namespace, "name", dw.spec.name)
		if !replaced[dw.spec.scope()] {
			changed = w.c.purge(dw.spec.scope(), nil) || changed
		}
	}
	if changed {
		w.c.notifier.Notify()
	}
}

// settle waits for the informers started together to sync (or stop), then purges the scopes
// they replaced of what they do not list, lets them notify, and notifies once. One still
// unsynced after settleWait no longer holds back the others; it follows when it syncs.
func (w *crdWatcher) settle(ctx context.Context, started, stopped []*dynWatch) {
	replaced := map[scope]bool{}
	for _, dw := range stopped {
		replaced[dw.spec.scope()] = true
	}
	deadline := time.Now().Add(settleWait)
	t := time.NewTicker(syncPoll)
	defer t.Stop()
	for {
		late := time.Now().After(deadline)
		if late || allSynced(started) {
			var rest []*dynWatch
			for _, dw := range started {
				if !watchSynced(dw) {
					rest = append(rest, dw)
					continue
				}
				w.open(dw, replaced[dw.spec.scope()])
			}
			if len(rest) < len(started) {
				w.c.notifier.Notify()
			}
			if started = rest; len(started) == 0 {
				return
			}
			if late {
				t.Reset(time.Second) // a stuck informer is polled slowly
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// open ends a synced watch's quiet time; if it replaced a watch of the same scope, the objects
// it does not list leave the store first (under its gate, so that none of its events is undone).
func (w *crdWatcher) open(dw *dynWatch, replaced bool) {
	dw.gate.mu.Lock()
	defer dw.gate.mu.Unlock()
	if replaced && !dw.gate.stopped {
		w.c.purge(dw.spec.scope(), func(ns, name string) bool {
			_, ok, err := dw.inf.GetIndexer().GetByKey(cacheKey(ns, name))
			return ok || err != nil
		})
	}
	dw.gate.quiet = false
}

func watchSynced(dw *dynWatch) bool { return dw.synced() || dw.ctx.Err() != nil }

func allSynced(ws []*dynWatch) bool {
	for _, dw := range ws {
		if !watchSynced(dw) {
			return false
		}
	}
	return true
}

// syncedOf is the sync state of each watch: synced, or stopped (a stopped watch never syncs, and
// nothing waits for it).
func syncedOf(ws []*dynWatch) []cache.InformerSynced {
	out := make([]cache.InformerSynced, len(ws))
	for i, dw := range ws {
		out[i] = func() bool { return watchSynced(dw) }
	}
	return out
}

// hasSynced reports whether every running watch has synced.
func (w *crdWatcher) hasSynced() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.crds.HasSynced() {
		return false
	}
	for _, dw := range w.running {
		if !dw.synced() {
			return false
		}
	}
	return true
}

// cacheKey is the informer cache's key of an object.
func cacheKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// purge drops from the store every object of scope s that keep (nil: none) does not keep, and
// reports whether the store changed. It runs when no informer writes the scope any more, or
// under the gate of the one that does.
func (c *Controller) purge(s scope, keep func(ns, name string) bool) bool {
	changed := false
	for _, o := range c.store.Snapshot().Objects(s.kind) {
		ns, name := o.GetNamespace(), o.GetName()
		if !s.covers(ns, name) || (keep != nil && keep(ns, name)) {
			continue
		}
		changed = c.forget(store.Ref{Kind: s.kind, Namespace: ns, Name: name}) || changed
	}
	return changed
}

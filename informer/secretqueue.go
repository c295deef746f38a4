package informer

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"github.com/kongsync/kongsync/store"
)

// The Secret informers' handlers only queue the Secret's key; secretWorkers goroutines
// reconcile it (secretsources.go), so a slow GET of one Secret delays neither the informer that
// delivered the event nor the other Secrets. The queue deduplicates: a Secret queued many times
// before a worker takes it is reconciled once, with the state of that moment.
const (
	// secretWorkers is how many Secrets are reconciled at once. The GETs share the client's
	// rate limit (--apiserver-qps, 100/s by default), so more workers would only queue there.
	secretWorkers = 4
	// defaultSecretRetryBase and defaultSecretRetryMax bound the per-Secret exponential backoff
	// of failed GETs (Options.SecretRetryBase and SecretRetryMax).
	defaultSecretRetryBase = 500 * time.Millisecond
	defaultSecretRetryMax  = 5 * time.Minute
	// secretRetryQPS and secretRetryBurst cap the retries of all Secrets together, so that an
	// API outage with thousands of referenced Secrets does not use the client's whole budget.
	secretRetryQPS   = 10
	secretRetryBurst = 100
)

// secretQueueName names the Secret work queue in the workqueue_* metrics (metrics.KubeClient).
const secretQueueName = "kongsync-secrets"

// newSecretQueue builds the Secret work queue, retrying with newSecretRateLimiter.
func newSecretQueue(opts Options) workqueue.TypedRateLimitingInterface[store.Ref] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(newSecretRateLimiter(opts),
		workqueue.TypedRateLimitingQueueConfig[store.Ref]{Name: secretQueueName})
}

// newSecretRateLimiter delays retries: each failure of one Secret doubles its delay from
// opts.SecretRetryBase up to opts.SecretRetryMax, and all retries together are limited to
// secretRetryQPS.
func newSecretRateLimiter(opts Options) workqueue.TypedRateLimiter[store.Ref] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[store.Ref](opts.SecretRetryBase, opts.SecretRetryMax),
		&workqueue.TypedBucketRateLimiter[store.Ref]{Limiter: rate.NewLimiter(secretRetryQPS, secretRetryBurst)},
	)
}

// enqueueSecret queues ref for a worker. It never blocks.
func (c *Controller) enqueueSecret(ref store.Ref) {
	c.pending.add(ref)
	c.queue.Add(ref)
}

// startSecretWorkers starts the workers; they run until the queue shuts down (ctx ends, or
// Shutdown).
func (c *Controller) startSecretWorkers(ctx context.Context) {
	for range secretWorkers {
		c.workers.Go(func() {
			for c.processNextSecret(ctx) {
			}
		})
	}
}

// processNextSecret reconciles the next queued Secret; false once the queue has shut down. A
// failed GET is queued again after the Secret's backoff; success resets the backoff.
func (c *Controller) processNextSecret(ctx context.Context) bool {
	ref, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(ref)
	gen := c.pending.begin(ref)
	defer c.pending.end(ref, gen)
	if err := c.reconcileSecret(ctx, ref); err != nil {
		if ctx.Err() != nil {
			return true // shutting down: the queue refuses new work anyway
		}
		attempt := c.queue.NumRequeues(ref) + 1
		c.log.Error(err, "fetching referenced Secret; will retry with backoff", "namespace", ref.Namespace,
			"name", ref.Name, "attempt", attempt)
		c.queue.AddRateLimited(ref)
		return true
	}
	c.queue.Forget(ref)
	return true
}

// pendingSet tracks the Secrets queued and not yet reconciled since, so Start can wait until
// every Secret known at startup has been stored or failed once. A retry queued after a failure
// is not pending: startup does not wait for the backoff. Each key carries a generation, bumped
// by every enqueue, so an enqueue during a reconcile keeps the key pending until the reconcile
// that follows it.
type pendingSet struct {
	mu  sync.Mutex
	gen map[store.Ref]uint64
	// emptied is closed (and replaced) whenever the set becomes empty.
	emptied chan struct{}
}

func newPendingSet() *pendingSet {
	return &pendingSet{gen: map[store.Ref]uint64{}, emptied: make(chan struct{})}
}

func (p *pendingSet) add(ref store.Ref) {
	p.mu.Lock()
	p.gen[ref]++
	p.mu.Unlock()
}

// begin returns ref's generation as a worker takes it (0 if not pending: a retry).
func (p *pendingSet) begin(ref store.Ref) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen[ref]
}

// end clears ref unless it was queued again since begin.
func (p *pendingSet) end(ref store.Ref, gen uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen == 0 || p.gen[ref] != gen {
		return
	}
	delete(p.gen, ref)
	if len(p.gen) == 0 {
		close(p.emptied)
		p.emptied = make(chan struct{})
	}
}

// empty reports whether no Secret is waiting for its first reconcile.
func (p *pendingSet) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.gen) == 0
}

// wait blocks until the set is empty; false if ctx ends first.
func (p *pendingSet) wait(ctx context.Context) bool {
	for {
		p.mu.Lock()
		n, emptied := len(p.gen), p.emptied
		p.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-emptied:
		case <-ctx.Done():
			return false
		}
	}
}

package status

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// GatewayOptions configure a GatewayWriter.
type GatewayOptions struct {
	// ControllerName is kongsync's GatewayClass controllerName (the translator's
	// GatewayControllerName); empty means translator.DefaultGatewayControllerName.
	ControllerName string
	// PublishService and StaticAddresses give the Gateways' status.addresses, as for Ingresses.
	PublishService  string
	StaticAddresses []string

	// Resync re-runs a pass at this period without a new translation (default 30 s): the
	// publish Service may live in an unwatched namespace.
	Resync time.Duration
	// RetryBase and RetryMax bound the per-object exponential backoff after a failed write
	// (defaults 500 ms and 5 min).
	RetryBase, RetryMax time.Duration
	// GatewayToReconcile is --gateway-to-reconcile ("namespace/name", "" for every Gateway of
	// our classes): route status.parents entries of ours naming another Gateway belong to the
	// instance reconciling it, and are left alone.
	GatewayToReconcile string
}

// Mapper finds the resource the API server serves a kind at; a discovery RESTMapper is one
// (a meta.ResettableRESTMapper is reset when a kind is not found: its CRD may be new).
type Mapper interface {
	RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error)
}

// GatewayPass sums up one pass of a GatewayWriter over a translation.
type GatewayPass struct {
	Version  uint64 // the store version the translation was made from
	Checked  int    // objects whose status was compared: our classes, our Gateways, routes with a parent of ours
	Writes   int    // statuses written
	InFlight int    // statuses written earlier whose new version the store does not hold yet
	Failed   int    // writes that failed; retried with backoff
}

// GatewayWriter writes the Gateway API statuses of a translation: GatewayClass Accepted,
// Gateway conditions, listeners and addresses, and route status.parents entries. The sync loop
// hands it every translation (Offer); the writer keeps only the latest and reconciles on its
// own goroutine, so the loop never waits for the API server. It writes only what differs from
// the object the translation saw, as a merge patch of the status subresource carrying that
// object's resourceVersion: a newer object makes the patch fail with a conflict, and that newer
// object's translation follows. Only the elected leader runs it.
type GatewayWriter struct {
	client kubernetes.Interface
	dyn    dynamic.Interface
	mapper Mapper
	opts   GatewayOptions
	log    logr.Logger
	now    func() time.Time // conditions' lastTransitionTime, retry deadlines
	kick   chan struct{}

	mu        sync.Mutex
	latest    *offer
	published *kongsync.Published // the latest configuration the sync loop published (OfferPublished)

	// Run's goroutine only.
	inflight map[store.Ref]string // the resourceVersion a write replaced, until the store moves past it
	limiter  workqueue.TypedRateLimiter[store.Ref]
	failed   map[store.Ref]time.Time     // failed writes: not retried before then
	synced   map[store.Object]*routeMemo // route versions found in sync, by pointer (a new version is a new pointer)
	passes   uint64
	held     *heldConfig                        // the newest published configuration every replica holds
	heldP    atomic.Pointer[kongsync.Published] // held's configuration, for Notify

	// Held reports whether every Kong replica holds the configuration of that hash (routes'
	// Programmed condition); the controller sets it from the sync loop. Nil: never held.
	Held func(hash string) bool
	// KongListeners, if set, gives the ports every Kong replica listens on, once known (the
	// sync loop's KongListeners): with the publish Service's ports, a Gateway listener whose
	// protocol and port Kong does not serve is not Accepted (PortUnavailable,
	// UnsupportedProtocol), as KIC decides. Unset or unknown: listener ports are not checked.
	KongListeners func() ([]kongsync.KongListener, bool)

	// Updated, if set, is called after each status write (tests count them).
	Updated func(store.Ref)
	// Passed, if set, is called after each pass.
	Passed func(GatewayPass)
}

// offer is one translation's Gateway API verdicts with the snapshot they were made from.
type offer struct {
	snap     *store.Snapshot
	parents  []translator.ParentStatus
	gateways []translator.GatewayStatus
	problems []translator.Problem
	byRoute  map[store.Ref][]translator.ParentStatus // only if parents are not in visiting order (routeWalk)
	refProbs refProblems                             // built by the first pass over it
	ordered  bool
}

// NewGatewayWriter returns a writer; nothing is written until Run.
func NewGatewayWriter(client kubernetes.Interface, dyn dynamic.Interface, mapper Mapper, log logr.Logger, opts GatewayOptions) *GatewayWriter {
	if opts.ControllerName == "" {
		opts.ControllerName = translator.DefaultGatewayControllerName
	}
	if opts.Resync <= 0 {
		opts.Resync = 30 * time.Second
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 500 * time.Millisecond
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 5 * time.Minute
	}
	return &GatewayWriter{client: client, dyn: dyn, mapper: mapper, opts: opts, log: log.WithName("gateway-status"),
		now: time.Now, kick: make(chan struct{}, 1),
		inflight: map[store.Ref]string{}, failed: map[store.Ref]time.Time{}, synced: map[store.Object]*routeMemo{},
		limiter: workqueue.NewTypedItemExponentialFailureRateLimiter[store.Ref](opts.RetryBase, opts.RetryMax)}
}

// Offer hands the writer a translation of snap. It never blocks: the writer keeps the latest
// (by store version) and reconciles it when it gets to it.
func (w *GatewayWriter) Offer(snap *store.Snapshot, res translator.Result) {
	w.mu.Lock()
	if w.latest == nil || w.latest.snap.Version() <= snap.Version() {
		w.latest = &offer{snap: snap, parents: res.Parents, gateways: res.Gateways, problems: res.Problems}
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Offering wraps a build function so that every translation it makes is offered to w.
func (w *GatewayWriter) Offering(build func(*store.Snapshot) (translator.Built, error)) func(*store.Snapshot) (translator.Built, error) {
	return func(snap *store.Snapshot) (translator.Built, error) {
		b, err := build(snap)
		if err == nil {
			w.Offer(snap, b.Result)
		}
		return b, err
	}
}

// Run reconciles the latest translation on every Offer, every Resync and after a failed write's
// backoff, until ctx ends. Call it only while leading.
func (w *GatewayWriter) Run(ctx context.Context) {
	runPasses(ctx, w.opts.Resync, w.kick, w.pass)
}

func (w *GatewayWriter) current() *offer {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest
}

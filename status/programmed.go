package status

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/workqueue"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// ProgrammedOptions configure a ProgrammedWriter.
type ProgrammedOptions struct {
	// IngressClass is the class served (the translator's rule for classed kinds).
	IngressClass string
	// ControllerName is the Gateway controller name (the translator's GatewayControllerName;
	// empty: translator.DefaultGatewayControllerName): KongUpstreamPolicy ancestor entries carry
	// it, as KIC's do.
	ControllerName string
	// ElectionID is --election-id: KongLicense status entries are KIC's
	// "konghq.com/kong-ingress-controller/<election id>".
	ElectionID string
	// Resync re-runs a pass at this period without a new configuration (default 30 s).
	Resync time.Duration
	// RetryBase and RetryMax bound the per-object backoff after a failed write (defaults 500 ms
	// and 5 min).
	RetryBase, RetryMax time.Duration
}

// ProgrammedPass sums up one pass of a ProgrammedWriter.
type ProgrammedPass struct {
	Hash     string // the configuration judged
	Held     bool   // every Kong replica held it; nothing is written otherwise
	Checked  int    // objects whose condition was compared
	Writes   int    // statuses written
	InFlight int    // statuses written earlier whose new version the store does not hold yet
	Failed   int    // writes that failed; retried with backoff
}

// ProgrammedWriter keeps KIC's Programmed condition on the Kong kinds of programmedKinds: True
// once a configuration holding an entity of the object is in every Kong replica, False/Invalid
// when the translator reported a problem on it or Kong rejected it, False/Pending when no
// configuration says anything of it and it has no Programmed condition yet. The sync loop hands
// it every configuration it publishes (Offer); a pass runs when every replica holds the latest
// (Notify on pushes and probes) and writes only conditions that differ, as resourceVersion-
// guarded merge patches of the status subresource, like GatewayWriter. From the same
// configuration it writes KongUpstreamPolicy ancestors (upstreampolicy.go) and KongLicense
// controller statuses (license.go), as KIC does. Only the leader runs it.
type ProgrammedWriter struct {
	dyn    dynamic.Interface
	mapper Mapper
	opts   ProgrammedOptions
	log    logr.Logger
	now    func() time.Time
	kick   chan struct{}

	mu     sync.Mutex
	latest *kongsync.Published
	judged *verdicts // of latest, made by the first pass over it

	// Run's goroutine only.
	inflight map[store.Ref]string
	failed   map[store.Ref]time.Time
	limiter  workqueue.TypedRateLimiter[store.Ref]

	// Held reports whether every Kong replica holds the configuration of that hash; the
	// controller sets it from the sync loop's replica states. Nil: never held.
	Held func(hash string) bool
	// Updated, if set, is called after each status write; Passed after each pass (tests).
	Updated func(store.Ref)
	Passed  func(ProgrammedPass)
}

// NewProgrammedWriter returns a writer; nothing is written until Run.
func NewProgrammedWriter(dyn dynamic.Interface, mapper Mapper, log logr.Logger, opts ProgrammedOptions) *ProgrammedWriter {
	if opts.Resync <= 0 {
		opts.Resync = 30 * time.Second
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 500 * time.Millisecond
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 5 * time.Minute
	}
	if opts.ControllerName == "" {
		opts.ControllerName = translator.DefaultGatewayControllerName
	}
	return &ProgrammedWriter{dyn: dyn, mapper: mapper, opts: opts, log: log.WithName("programmed-status"),
		now: time.Now, kick: make(chan struct{}, 1), inflight: map[store.Ref]string{}, failed: map[store.Ref]time.Time{},
		limiter: workqueue.NewTypedItemExponentialFailureRateLimiter[store.Ref](opts.RetryBase, opts.RetryMax)}
}

// Offer hands the writer a published configuration (sync.Config.Published). It never blocks.
func (w *ProgrammedWriter) Offer(p kongsync.Published) {
	w.mu.Lock()
	if w.latest == nil || w.latest.Snapshot.Version() <= p.Snapshot.Version() {
		w.latest, w.judged = &p, nil
	}
	w.mu.Unlock()
	w.Notify()
}

// Notify asks for a pass (a replica may now hold the latest configuration). It never blocks.
func (w *ProgrammedWriter) Notify() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run passes on every Offer, Notify and Resync, and after a failed write's backoff, until ctx
// ends. Call it only while leading.
func (w *ProgrammedWriter) Run(ctx context.Context) {
	runPasses(ctx, w.opts.Resync, w.kick, w.pass)
}

// current returns the latest configuration and its verdicts, judging it once.
func (w *ProgrammedWriter) current() (*kongsync.Published, *verdicts) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.latest == nil {
		return nil, nil
	}
	if w.judged == nil {
		v := newVerdicts(w.latest.Result.Document, w.latest.Result.Problems, w.latest.Excluded)
		w.judged = &v
	}
	return w.latest, w.judged
}

// pass writes the conditions the latest configuration calls for, if every replica holds it. It
// returns when to retry failed writes (0: none failed).
func (w *ProgrammedWriter) pass(ctx context.Context) time.Duration {
	p, v := w.current()
	if p == nil {
		return 0
	}
	sum := ProgrammedPass{Hash: p.Hash, Held: w.Held != nil && w.Held(p.Hash)}
	if !sum.Held {
		w.passed(ctx, sum)
		return 0
	}
	pp := &progPass{sum: &sum, wall: w.now(), inflight: map[store.Ref]string{}, failed: map[store.Ref]time.Time{}}
	pp.now = metav1.NewTime(pp.wall)
	snap := p.Snapshot
	isDefault := snap.IsDefaultClass(w.opts.IngressClass)
	for _, k := range programmedKinds {
		for _, obj := range snap.Objects(k.kind) {
			if (k.classed && !servesByAnnotation(obj, w.opts.IngressClass, isDefault)) || !servedByKIC(obj) {
				continue
			}
			sum.Checked++
			ref := store.Ref{Kind: k.kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
			conds, changed := ensureProgrammed(v.of(ref), obj.GetGeneration(), k.conditions(obj), pp.now)
			if changed {
				w.apply(ctx, pp, ref, obj, map[string]any{"conditions": conds})
			}
		}
	}
	w.policies(ctx, pp, p, v)
	w.licenses(ctx, pp, p)
	var retry time.Duration
	for ref := range w.failed {
		if _, ok := pp.failed[ref]; !ok {
			w.limiter.Forget(ref)
		}
	}
	for _, at := range pp.failed {
		if d := max(at.Sub(pp.wall), time.Millisecond); retry == 0 || d < retry {
			retry = d
		}
	}
	w.inflight, w.failed = pp.inflight, pp.failed
	w.passed(ctx, sum)
	return retry
}

// progPass is the state of one pass of a ProgrammedWriter.
type progPass struct {
	sum      *ProgrammedPass
	wall     time.Time
	now      metav1.Time // wall, as conditions carry it
	inflight map[store.Ref]string
	failed   map[store.Ref]time.Time
}

func (w *ProgrammedWriter) passed(ctx context.Context, sum ProgrammedPass) {
	if ctx.Err() == nil && w.Passed != nil {
		w.Passed(sum)
	}
}

// apply writes status fields of obj unless a write of the same object version is on its way
// to the store or the object backs off after a failure. Gone objects and conflicts are left to
// the next configuration, which sees the newer version or its absence.
func (w *ProgrammedWriter) apply(ctx context.Context, pp *progPass, ref store.Ref, obj store.Object, fields map[string]any) {
	if ctx.Err() != nil {
		return
	}
	rv := obj.GetResourceVersion()
	if at, ok := w.failed[ref]; ok && pp.wall.Before(at) {
		pp.failed[ref] = at
		pp.sum.Failed++
		return
	}
	if prev, ok := w.inflight[ref]; ok && prev == rv {
		pp.inflight[ref] = rv
		pp.sum.InFlight++
		return
	}
	newRV, err := patchStatus(ctx, w.dyn, w.mapper, ref.Kind.GVK().Group, ref, rv, fields)
	switch {
	case err == nil:
		pp.sum.Writes++
		if newRV != rv {
			pp.inflight[ref] = rv
		}
		w.log.V(1).Info("status updated", "object", ref.String())
		if w.Updated != nil {
			w.Updated(ref)
		}
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		if apierrors.IsNotFound(err) {
			resetMapper(w.mapper)
		}
		w.log.V(1).Info("status not written; a newer version follows", "object", ref.String(), "error", err.Error())
	default:
		if ctx.Err() == nil {
			w.log.Error(err, "status update failed; retrying with backoff", "object", ref.String())
		}
		pp.failed[ref] = pp.wall.Add(w.limiter.When(ref))
		pp.sum.Failed++
	}
}

// classServed is a kind whose class is not (only) the annotation: KongCustomEntity's is its
// spec.controllerName.
type classServed interface {
	ServedByClass(class string, isDefault bool) bool
}

// servesByAnnotation is KIC's class rule for its Kong kinds: the kubernetes.io/ingress.class
// annotation names our class, or is absent and our class is the cluster default (a classServed
// kind applies its own).
func servesByAnnotation(obj store.Object, class string, isDefault bool) bool {
	if o, ok := obj.(classServed); ok {
		return o.ServedByClass(class, isDefault)
	}
	c := obj.GetAnnotations()[classAnnotation]
	return c == class || (c == "" && isDefault)
}

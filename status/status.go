// Package status writes the statuses of the objects kongsync serves: Ingress (and TCPIngress,
// UDPIngress) status.loadBalancer (Writer: the addresses clients reach Kong at, taken from the publish
// Service or given statically), and the Gateway API statuses of each translation
// (GatewayWriter: GatewayClass, Gateway and route conditions, listeners, addresses). Only the
// elected leader runs them, so replicas never fight over the fields.
package status

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kongsync/kongsync/store"
)

// classAnnotation is the legacy class annotation; when set it decides over spec.ingressClassName.
const classAnnotation = "kubernetes.io/ingress.class"

// Snapshotter hands out store snapshots; *store.Store is one.
type Snapshotter interface {
	Snapshot() *store.Snapshot
}

// Options configure a Writer.
type Options struct {
	// IngressClass is the class served (same rule as the translator's).
	IngressClass string
	// PublishService is "namespace/name" of the Service fronting Kong; its load-balancer
	// ingress (or cluster IPs) become the Ingress addresses.
	PublishService string
	// StaticAddresses, if set, replace the publish Service's addresses (IPs or hostnames).
	StaticAddresses []string
	// Dynamic, if set, is the client TCPIngress and UDPIngress statuses are written with
	// (streamingress.go); without it only Ingresses get a status.
	Dynamic dynamic.Interface
	// Resync re-checks every Ingress at this period even without events (default 30 s): the
	// publish Service may live in an unwatched namespace.
	Resync time.Duration
}

// Writer reconciles Ingress statuses with the publish addresses.
type Writer struct {
	client kubernetes.Interface
	source Snapshotter
	opts   Options
	log    logr.Logger
	kick   chan struct{}
	// Updated, if set, is called after each status update (tests wait on it).
	Updated func(ing store.Ref, ingress []networkingv1.IngressLoadBalancerIngress)
}

// New returns a Writer; nothing happens until Run.
func New(client kubernetes.Interface, source Snapshotter, log logr.Logger, opts Options) *Writer {
	if opts.Resync <= 0 {
		opts.Resync = 30 * time.Second
	}
	return &Writer{client: client, source: source, opts: opts, log: log.WithName("status"), kick: make(chan struct{}, 1)}
}

// Notify asks for a reconcile; it never blocks (same contract as the sync loop's Notify).
func (w *Writer) Notify() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run reconciles on every Notify and every Resync until ctx ends. Call it only while leading.
func (w *Writer) Run(ctx context.Context) {
	t := time.NewTicker(w.opts.Resync)
	defer t.Stop()
	for {
		if err := w.reconcile(ctx); err != nil && ctx.Err() == nil {
			w.log.Error(err, "updating Ingress status")
		}
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
		case <-t.C:
		}
	}
}

func (w *Writer) reconcile(ctx context.Context) error {
	snap := w.source.Snapshot()
	want, err := w.addresses(ctx, snap)
	if err != nil {
		return err
	}
	isDefault := snap.IsDefaultClass(w.opts.IngressClass)
	var errs []error
	for _, ing := range snap.Ingresses() {
		cur := ing.Status.LoadBalancer.Ingress
		var next []networkingv1.IngressLoadBalancerIngress
		switch {
		case w.serves(ing, isDefault):
			next = want
		case overlaps(cur, want):
			next = nil // left our class: take our addresses back
		default:
			continue
		}
		if equal(cur, next) {
			continue
		}
		if err := w.update(ctx, ing, next); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, w.reconcileStreams(ctx, snap, want, isDefault)...)
	if len(errs) > 0 {
		return fmt.Errorf("%d status updates failed, first: %w", len(errs), errs[0])
	}
	return nil
}

// serves mirrors the translator's class rule: annotation, else ingressClassName, else default.
func (w *Writer) serves(ing *networkingv1.Ingress, isDefault bool) bool {
	if c := ing.Annotations[classAnnotation]; c != "" {
		return c == w.opts.IngressClass
	}
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName == w.opts.IngressClass
	}
	return isDefault
}

// update writes the status on a copy: store objects are shared and immutable.
func (w *Writer) update(ctx context.Context, ing *networkingv1.Ingress, lb []networkingv1.IngressLoadBalancerIngress) error {
	cp := ing.DeepCopy()
	cp.Status.LoadBalancer.Ingress = lb
	_, err := w.client.NetworkingV1().Ingresses(cp.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or a newer version is on its way to the store and triggers a retry
	}
	if err != nil {
		return fmt.Errorf("Ingress %s/%s: %w", ing.Namespace, ing.Name, err)
	}
	w.log.V(1).Info("Ingress status updated", "ingress", ing.Namespace+"/"+ing.Name, "addresses", len(lb))
	if w.Updated != nil {
		w.Updated(store.Ref{Kind: store.KindIngress, Namespace: ing.Namespace, Name: ing.Name}, lb)
	}
	return nil
}

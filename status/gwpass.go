package status

import (
	"context"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
)

// routeKinds are the route kinds whose status.parents a pass visits, in this order.
var routeKinds = []store.Kind{store.KindHTTPRoute, store.KindGRPCRoute, store.KindTCPRoute, store.KindUDPRoute, store.KindTLSRoute}

// passRun is the state of one pass.
type passRun struct {
	o        *offer
	wall     time.Time
	now      metav1.Time // wall, as conditions carry it
	sum      GatewayPass
	inflight map[store.Ref]string
	failed   map[store.Ref]time.Time
}

// pass reconciles the latest translation: GatewayClasses, then Gateways, then routes. It
// returns when to retry failed writes (0: none failed).
func (w *GatewayWriter) pass(ctx context.Context) time.Duration {
	w.promoteHeld()
	o := w.current()
	if o == nil {
		return 0
	}
	wall := w.now()
	r := &passRun{o: o, wall: wall, now: metav1.NewTime(wall), sum: GatewayPass{Version: o.snap.Version()},
		inflight: map[store.Ref]string{}, failed: map[store.Ref]time.Time{}}
	w.classes(ctx, r)
	w.gateways(ctx, r)
	w.routes(ctx, r)
	var retry time.Duration
	for ref := range w.failed {
		if _, ok := r.failed[ref]; !ok {
			w.limiter.Forget(ref) // written, or nothing left to write
		}
	}
	for _, at := range r.failed {
		if d := max(at.Sub(wall), time.Millisecond); retry == 0 || d < retry {
			retry = d
		}
	}
	w.inflight, w.failed = r.inflight, r.failed
	if ctx.Err() == nil && w.Passed != nil {
		w.Passed(r.sum)
	}
	return retry
}

func (w *GatewayWriter) classes(ctx context.Context, r *passRun) {
	for _, obj := range r.o.snap.Objects(store.KindGatewayClass) {
		gc := obj.(*gatewayv1.GatewayClass)
		if string(gc.Spec.ControllerName) != w.opts.ControllerName {
			continue
		}
		r.sum.Checked++
		if conds, changed := classConditions(gc, r.now); changed {
			w.apply(ctx, r, store.Ref{Kind: store.KindGatewayClass, Name: gc.Name}, obj, map[string]any{"conditions": conds})
		}
	}
}

func (w *GatewayWriter) gateways(ctx context.Context, r *passRun) {
	if len(r.o.gateways) == 0 {
		return
	}
	addrRef := store.Ref{Kind: store.KindGateway} // stands for the publish address lookup
	if w.backingOff(r, addrRef) {
		return
	}
	addrs, listens, err := w.publishView(ctx, r.o.snap)
	if err != nil {
		w.log.Error(err, "Gateway addresses; Gateway statuses wait for them")
		w.failedNow(r, addrRef)
		return
	}
	for _, gs := range r.o.gateways {
		obj, ok := r.o.snap.Get(gs.Gateway)
		if !ok {
			continue
		}
		r.sum.Checked++
		st, changed := gatewayStatus(obj.(*gatewayv1.Gateway), gs, addrs, listens, r.now)
		if changed {
			w.apply(ctx, r, gs.Gateway, obj, map[string]any{"conditions": st.Conditions, "listeners": st.Listeners,
				"addresses": st.Addresses})
		}
	}
}

// publishView is what the Gateways' statuses take from the publish Service and Kong: their
// addresses (static ones if given, else the Service's) and the listener ports Kong serves (nil
// when unknown: no Service, or no Kong replica answered GET / yet).
func (w *GatewayWriter) publishView(ctx context.Context, snap *store.Snapshot) ([]gatewayv1.GatewayStatusAddress, kongListens, error) {
	kong, known := []kongsync.KongListener(nil), false
	if w.KongListeners != nil {
		kong, known = w.KongListeners()
	}
	static := w.opts.StaticAddresses
	if len(static) > 0 && !known {
		return gatewayAddresses(static), nil, nil
	}
	svc, err := publishService(ctx, w.client, snap, w.opts.PublishService)
	var raw []string
	switch {
	case len(static) > 0:
		raw = static
		if err != nil { // only the listener ports needed the Service: they go unchecked
			w.log.V(1).Info("publish Service not found; Gateway listener ports are not checked against Kong's", "error", err.Error())
			svc = nil
		}
	case err != nil:
		return nil, nil, err
	case svc != nil:
		raw = serviceAddresses(svc)
	}
	var listens kongListens
	if known && svc != nil {
		listens = listensOf(svc, kong)
	}
	return gatewayAddresses(raw), listens, nil
}

func (w *GatewayWriter) hasOurs(ps []gatewayv1.RouteParentStatus) bool {
	return slices.ContainsFunc(ps, func(p gatewayv1.RouteParentStatus) bool { return string(p.ControllerName) == w.opts.ControllerName })
}

// apply writes status fields of obj unless a write of the same object version is already on
// its way to the store. Gone objects and conflicts are left to the next translation, which
// sees the object's newer version or its absence.
func (w *GatewayWriter) apply(ctx context.Context, r *passRun, ref store.Ref, obj store.Object, fields map[string]any) {
	if ctx.Err() != nil {
		return
	}
	rv := obj.GetResourceVersion()
	if w.backingOff(r, ref) {
		return
	}
	if prev, ok := w.inflight[ref]; ok && prev == rv {
		r.inflight[ref] = rv
		r.sum.InFlight++
		return
	}
	newRV, err := w.patch(ctx, ref, rv, fields)
	switch {
	case err == nil:
		r.sum.Writes++
		if newRV != rv {
			r.inflight[ref] = rv
		}
		w.log.V(1).Info("status updated", "object", ref.String())
		if w.Updated != nil {
			w.Updated(ref)
		}
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		if apierrors.IsNotFound(err) {
			w.resetMapper() // the object is gone, or its resource moved to another version
		}
		w.log.V(1).Info("status not written; a newer version follows", "object", ref.String(), "error", err.Error())
	default:
		if ctx.Err() == nil {
			w.log.Error(err, "status update failed; retrying with backoff", "object", ref.String())
		}
		w.failedNow(r, ref)
	}
}

// backingOff reports whether ref failed recently and waits for its backoff to retry; it stays
// failed meanwhile.
func (w *GatewayWriter) backingOff(r *passRun, ref store.Ref) bool {
	at, ok := w.failed[ref]
	if !ok || !r.wall.Before(at) {
		return false
	}
	r.failed[ref] = at
	r.sum.Failed++
	return true
}

// failedNow records a failure of ref: its next attempt waits for the rate limiter's backoff.
func (w *GatewayWriter) failedNow(r *passRun, ref store.Ref) {
	r.failed[ref] = r.wall.Add(w.limiter.When(ref))
	r.sum.Failed++
}

// patch writes status fields of a Gateway API object (patchStatus).
func (w *GatewayWriter) patch(ctx context.Context, ref store.Ref, rv string, fields map[string]any) (string, error) {
	return patchStatus(ctx, w.dyn, w.mapper, store.GatewayGroup, ref, rv, fields)
}

// resetMapper makes the discovery mapper ask the API server again.
func (w *GatewayWriter) resetMapper() { resetMapper(w.mapper) }

//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	"k8s.io/client-go/rest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	gatewayv1client "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/typed/apis/v1"

	"github.com/kongsync/kongsync/internal/workload"
)

// liveKind is the kind of route object the live-loop benchmarks load and write:
// KONGSYNC_BENCH_KIND=ingress (the default) or httproute (issue 12: genworkload -httproutes N,
// the Gateway API CRDs of the standard channel installed first). Every benchmark writes through
// it, so one harness times both.
type liveKind interface {
	// configure sets c to n objects of the kind, each with its Service and EndpointSlice.
	configure(c *workload.Config, n int)
	// prepare readies the cluster before the workload is loaded.
	prepare() error
	// prefix names object i and its Service ("prefix-00042", as internal/workload pads it).
	prefix() string
	// pathWriter reads object name, so that the timed write is the Update alone.
	pathWriter(ctx context.Context, name string) (pathWriter, error)
	// pathWriters lists the kind's objects in name order, one writer each.
	pathWriters(ctx context.Context) ([]pathWriter, error)
	// watchFromNow watches the kind's objects from the current resourceVersion on.
	watchFromNow(ctx context.Context) (watch.Interface, error)
}

// pathWriter writes one object read before back with path as its one path match, and returns
// the resourceVersion written.
type pathWriter func(ctx context.Context, path string) (string, error)

// newLiveKind is the kind KONGSYNC_BENCH_KIND names, writing through rc.
func newLiveKind(rc *rest.Config) (liveKind, error) {
	switch k := os.Getenv("KONGSYNC_BENCH_KIND"); k {
	case "", "ingress":
		return newIngressKind(kubernetes.NewForConfigOrDie(rc).NetworkingV1().Ingresses("default")), nil
	case "httproute":
		return newHTTPRouteKind(gatewayclient.NewForConfigOrDie(rc).GatewayV1().HTTPRoutes("default")), nil
	default:
		return nil, fmt.Errorf("KONGSYNC_BENCH_KIND=%s: want ingress or httproute", k)
	}
}

// typedObjects is what the benchmarks do with one kind's typed client: read, list in name
// order, write a new path and watch. client is the typed client of T, items lists a List's
// objects and setPath puts a path in an object's one path match.
type typedObjects[T metav1.Object, L any] struct {
	client interface {
		Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
		List(ctx context.Context, opts metav1.ListOptions) (L, error)
		Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
		Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	}
	items   func(L) []T
	setPath func(T, string)
}

func (k typedObjects[T, L]) writer(o T) pathWriter {
	return func(ctx context.Context, path string) (string, error) {
		k.setPath(o, path)
		up, err := k.client.Update(ctx, o, metav1.UpdateOptions{})
		if err != nil {
			return "", err
		}
		return up.GetResourceVersion(), nil
	}
}

func (k typedObjects[T, L]) pathWriter(ctx context.Context, name string) (pathWriter, error) {
	o, err := k.client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return k.writer(o), nil
}

func (k typedObjects[T, L]) pathWriters(ctx context.Context) ([]pathWriter, error) {
	list, err := k.client.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	objs := k.items(list)
	sort.Slice(objs, func(i, j int) bool { return objs[i].GetName() < objs[j].GetName() })
	out := make([]pathWriter, len(objs))
	for i, o := range objs {
		out[i] = k.writer(o)
	}
	return out, nil
}

func (k typedObjects[T, L]) watchFromNow(ctx context.Context) (watch.Interface, error) {
	list, err := k.client.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	lm, ok := any(list).(metav1.ListInterface)
	if !ok {
		return nil, fmt.Errorf("%T has no list metadata", list)
	}
	return k.client.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.GetResourceVersion()})
}

// ingressKind: Ingresses with one rule and one path each (workload.Defaults).
type ingressKind struct {
	typedObjects[*networkingv1.Ingress, *networkingv1.IngressList]
}

func newIngressKind(c networkingv1client.IngressInterface) ingressKind {
	return ingressKind{typedObjects[*networkingv1.Ingress, *networkingv1.IngressList]{client: c,
		items:   func(l *networkingv1.IngressList) []*networkingv1.Ingress { return pointers(l.Items) },
		setPath: func(o *networkingv1.Ingress, p string) { o.Spec.Rules[0].HTTP.Paths[0].Path = p }}}
}

func (ingressKind) configure(c *workload.Config, n int) { c.Ingresses = n }
func (ingressKind) prepare() error                      { return nil }
func (ingressKind) prefix() string                      { return "app" }

// httpRouteKind: HTTPRoutes with one rule and one PathPrefix match each, on one Gateway
// (workload.Config.HTTPRoutes), written through gateway-api's own clientset.
type httpRouteKind struct {
	typedObjects[*gatewayv1.HTTPRoute, *gatewayv1.HTTPRouteList]
}

func newHTTPRouteKind(c gatewayv1client.HTTPRouteInterface) httpRouteKind {
	return httpRouteKind{typedObjects[*gatewayv1.HTTPRoute, *gatewayv1.HTTPRouteList]{client: c,
		items:   func(l *gatewayv1.HTTPRouteList) []*gatewayv1.HTTPRoute { return pointers(l.Items) },
		setPath: func(o *gatewayv1.HTTPRoute, p string) { o.Spec.Rules[0].Matches[0].Path.Value = &p }}}
}

func (httpRouteKind) configure(c *workload.Config, n int) { c.HTTPRoutes = n }
func (httpRouteKind) prepare() error                      { return applyGatewayCRDs("standard") }
func (httpRouteKind) prefix() string                      { return "route" }

// pointers are pointers to a list's items.
func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

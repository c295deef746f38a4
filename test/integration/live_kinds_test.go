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
		return ingressKind{kubernetes.NewForConfigOrDie(rc).NetworkingV1().Ingresses("default")}, nil
	case "httproute":
		return httpRouteKind{gatewayclient.NewForConfigOrDie(rc).GatewayV1().HTTPRoutes("default")}, nil
	default:
		return nil, fmt.Errorf("KONGSYNC_BENCH_KIND=%s: want ingress or httproute", k)
	}
}

// ingressKind: Ingresses with one rule and one path each (workload.Defaults).
type ingressKind struct {
	ings networkingv1client.IngressInterface
}

func (ingressKind) configure(c *workload.Config, n int) { c.Ingresses = n }
func (ingressKind) prepare() error                      { return nil }
func (ingressKind) prefix() string                      { return "app" }

func (k ingressKind) writer(ing *networkingv1.Ingress) pathWriter {
	return func(ctx context.Context, path string) (string, error) {
		ing.Spec.Rules[0].HTTP.Paths[0].Path = path
		up, err := k.ings.Update(ctx, ing, metav1.UpdateOptions{})
		if err != nil {
			return "", err
		}
		return up.ResourceVersion, nil
	}
}

func (k ingressKind) pathWriter(ctx context.Context, name string) (pathWriter, error) {
	ing, err := k.ings.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return k.writer(ing), nil
}

func (k ingressKind) pathWriters(ctx context.Context) ([]pathWriter, error) {
	list, err := k.ings.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	out := make([]pathWriter, len(list.Items))
	for i := range list.Items {
		out[i] = k.writer(&list.Items[i])
	}
	return out, nil
}

func (k ingressKind) watchFromNow(ctx context.Context) (watch.Interface, error) {
	list, err := k.ings.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	return k.ings.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
}

// httpRouteKind: HTTPRoutes with one rule and one PathPrefix match each, on one Gateway
// (workload.Config.HTTPRoutes), written through gateway-api's own clientset.
type httpRouteKind struct {
	routes gatewayv1client.HTTPRouteInterface
}

func (httpRouteKind) configure(c *workload.Config, n int) { c.HTTPRoutes = n }
func (httpRouteKind) prepare() error                      { return applyGatewayCRDs("standard") }
func (httpRouteKind) prefix() string                      { return "route" }

func (k httpRouteKind) writer(r *gatewayv1.HTTPRoute) pathWriter {
	return func(ctx context.Context, path string) (string, error) {
		r.Spec.Rules[0].Matches[0].Path.Value = &path
		up, err := k.routes.Update(ctx, r, metav1.UpdateOptions{})
		if err != nil {
			return "", err
		}
		return up.ResourceVersion, nil
	}
}

func (k httpRouteKind) pathWriter(ctx context.Context, name string) (pathWriter, error) {
	r, err := k.routes.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return k.writer(r), nil
}

func (k httpRouteKind) pathWriters(ctx context.Context) ([]pathWriter, error) {
	list, err := k.routes.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	out := make([]pathWriter, len(list.Items))
	for i := range list.Items {
		out[i] = k.writer(&list.Items[i])
	}
	return out, nil
}

func (k httpRouteKind) watchFromNow(ctx context.Context) (watch.Interface, error) {
	list, err := k.routes.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	return k.routes.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
}

// Package discovery finds every Kong admin API endpoint behind a Service (KIC's
// --kong-admin-svc) from its EndpointSlices, so the sync loop pushes to each Kong replica.
package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// DefaultPortNames are KIC's default admin port names, in preference order.
var DefaultPortNames = []string{"admin-tls", "kong-admin-tls"}

// Sink receives the full, sorted list of admin URLs whenever it changes; the sync loop's
// SetReplicas is one.
type Sink func(urls []string) error

// Discoverer watches one Service's EndpointSlices.
type Discoverer struct {
	client    kubernetes.Interface
	namespace string
	service   string
	portNames []string
	sink      Sink
	log       logr.Logger
	informer  cache.SharedIndexInformer

	mu   sync.Mutex // refresh runs from informer handlers and from Start
	last string
}

// New parses "namespace/name" and prepares a Discoverer; nothing runs until Start.
func New(client kubernetes.Interface, svc string, portNames []string, sink Sink, log logr.Logger) (*Discoverer, error) {
	ns, name, ok := strings.Cut(svc, "/")
	if !ok || ns == "" || name == "" {
		return nil, fmt.Errorf("admin service %q is not namespace/name", svc)
	}
	if len(portNames) == 0 {
		portNames = DefaultPortNames
	}
	d := &Discoverer{client: client, namespace: ns, service: name, portNames: portNames, sink: sink,
		log: log.WithName("admin-discovery")}
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = discoveryv1.LabelServiceName + "=" + name
		}))
	d.informer = f.Discovery().V1().EndpointSlices().Informer()
	_, err := d.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { d.refresh() },
		UpdateFunc: func(any, any) { d.refresh() },
		DeleteFunc: func(any) { d.refresh() },
	})
	return d, err
}

// Start runs the informer until ctx ends and returns once it has synced and the first list of
// URLs was handed to the sink.
func (d *Discoverer) Start(ctx context.Context) error {
	go d.informer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), d.informer.HasSynced) {
		return errors.New("admin discovery: EndpointSlice cache did not sync")
	}
	d.refresh()
	return nil
}

// refresh recomputes the URLs from the cache and hands them on if they changed. The lock keeps
// the sink calls in order when Start and a handler refresh at the same time.
func (d *Discoverer) refresh() {
	d.mu.Lock()
	defer d.mu.Unlock()
	var slices []*discoveryv1.EndpointSlice
	for _, o := range d.informer.GetStore().List() {
		if es, ok := o.(*discoveryv1.EndpointSlice); ok {
			slices = append(slices, es)
		}
	}
	urls := URLs(slices, d.portNames)
	joined := strings.Join(urls, ",")
	if joined == d.last {
		return
	}
	d.last = joined
	d.log.Info("Kong admin endpoints changed", "service", d.namespace+"/"+d.service, "count", len(urls))
	if err := d.sink(urls); err != nil {
		d.log.Error(err, "some admin URLs were rejected")
	}
}

// URLs lists the admin URL of every ready, non-terminating endpoint of slices on the first port
// whose name is in portNames (earlier names preferred), sorted and deduplicated. A port whose
// name ends in "tls" or whose appProtocol is https is reached over https.
func URLs(slices []*discoveryv1.EndpointSlice, portNames []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, es := range slices {
		port, scheme, ok := pickPort(es.Ports, portNames)
		if !ok {
			continue
		}
		for _, ep := range es.Endpoints {
			if !usable(ep) || len(ep.Addresses) == 0 {
				continue
			}
			u := scheme + "://" + net.JoinHostPort(ep.Addresses[0], strconv.Itoa(port))
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	sort.Strings(out)
	return out
}

func pickPort(ports []discoveryv1.EndpointPort, names []string) (int, string, bool) {
	for _, want := range names {
		for _, p := range ports {
			if p.Name == nil || *p.Name != want || p.Port == nil {
				continue
			}
			scheme := "http"
			if strings.HasSuffix(want, "tls") || (p.AppProtocol != nil && *p.AppProtocol == "https") {
				scheme = "https"
			}
			return int(*p.Port), scheme, true
		}
	}
	return 0, "", false
}

// usable: ready (nil counts as ready, per the EndpointSlice API) and not terminating.
func usable(ep discoveryv1.Endpoint) bool {
	c := ep.Conditions
	if c.Terminating != nil && *c.Terminating {
		return false
	}
	return c.Ready == nil || *c.Ready
}

//go:build integration

package integration

import (
	"net"
	"strconv"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// hostIP is a non-loopback IPv4 address of this machine: EndpointSlice validation rejects
// loopback addresses, so a double reachable through a slice must listen on another one.
func hostIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address: a Kong double cannot be named in an EndpointSlice")
	return ""
}

// --kong-admin-svc: every ready endpoint of the admin Service's EndpointSlices gets the config;
// a replica added later is discovered and pushed to.
func TestAdminServiceDiscovery(t *testing.T) {
	ip := hostIP(t)
	ns := newNamespace(t)
	k1 := kongdouble.New(kongdouble.Options{Addr: ip + ":0"})
	t.Cleanup(k1.Close)
	k2 := kongdouble.New(kongdouble.Options{Addr: ip + ":0"})
	t.Cleanup(k2.Close)
	ctx := ctxT(t)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kong-admin"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "admin", Port: 8001}}}}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	slice := func(name string, k *kongdouble.Server) *discoveryv1.EndpointSlice {
		_, p, _ := net.SplitHostPort(k.URL()[len("http://"):])
		port, _ := strconv.Atoi(p)
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: "kong-admin"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
			Ports:       []discoveryv1.EndpointPort{{Name: ptr("admin"), Port: ptr(int32(port))}},
		}
	}
	if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice("kong-admin-1", k1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	metricsAddr := freeAddr(t)
	removed := make(chan struct{})
	var once gosync.Once
	log := funcr.New(func(_, args string) {
		if strings.Contains(args, "Kong replica removed") {
			once.Do(func() { close(removed) })
		}
	}, funcr.Options{})
	startKongsyncWithLogger(t, "discovery", ns, nil, func(c *runner.Config) {
		c.KongAdminSvc = ns + "/kong-admin"
		c.KongAdminSvcPortNames = []string{"admin"}
		c.MetricsBindAddress = metricsAddr
	}, log)
	app{ns: ns, name: "web", host: "discovered.example.com"}.create(t)
	waitDouble(t, k1, "config on the first discovered replica", func() bool { return hasHost(k1, "discovered.example.com") })
	if len(k2.Requests()) != 0 {
		t.Fatal("the second double was contacted before it was in any EndpointSlice")
	}
	if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice("kong-admin-2", k2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, k2, "config on the replica added later", func() bool { return hasHost(k2, "discovered.example.com") })
	if k1.Hash() != k2.Hash() {
		t.Errorf("replicas differ: %s vs %s", k1.Hash(), k2.Hash())
	}

	// The second replica goes away: its series go with it (no stuck gauges), the first's stay.
	if err := admin.DiscoveryV1().EndpointSlices(ns).Delete(ctx, "kong-admin-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-removed:
	case <-time.After(waitTimeout):
		t.Fatal("the replica whose EndpointSlice was deleted was never removed")
	}
	_, body := get(t, "http://"+metricsAddr+"/metrics")
	if strings.Contains(body, `"`+k2.URL()+`"`) {
		t.Errorf("/metrics still has series of the removed replica %s", k2.URL())
	}
	for _, want := range []string{`kongsync_replica_in_sync{replica="` + k1.URL() + `"}`,
		`ingress_controller_configuration_push_last_successful{dataplane="` + k1.URL() + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

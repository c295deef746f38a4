//go:build integration

package integration

import (
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

func statusConfig(c *runner.Config) {
	c.UpdateStatus = true
	c.PublishStatusAddress = []string{"127.0.0.2", "kong.example.net"}
	c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 3*time.Second, 2*time.Second, 200*time.Millisecond
}

// Two replicas: only the Lease holder writes Ingress status; after it stops, the other takes
// over and clears the status of an Ingress that left our class.
func TestStatusWrittenByLeaderOnly(t *testing.T) {
	ns := newNamespace(t)
	a := startKongsync(t, "leader-a", ns, []*kongdouble.Server{newDouble(t)}, statusConfig)
	expectLeading(t, a, true)
	b := startKongsync(t, "follower-b", ns, []*kongdouble.Server{newDouble(t)}, statusConfig)

	web := app{ns: ns, name: "web", host: "status.example.com"}
	web.create(t)
	waitStatus(t, a, ns+"/web")
	ing := getIngress(t, ns, "web")
	want := []networkingv1.IngressLoadBalancerIngress{{IP: "127.0.0.2"}, {Hostname: "kong.example.net"}}
	if !sameLB(ing.Status.LoadBalancer.Ingress, want) {
		t.Fatalf("status = %+v, want %+v", ing.Status.LoadBalancer.Ingress, want)
	}
	select {
	case s := <-b.status:
		t.Fatalf("the follower wrote status of %s", s)
	case l := <-b.leading:
		t.Fatalf("the follower reported leading=%v while the leader runs", l)
	default:
	}

	a.stop()
	expectLeading(t, b, true)
	ing = getIngress(t, ns, "web")
	ing.Spec.IngressClassName = ptr("other")
	if _, err := admin.NetworkingV1().Ingresses(ns).Update(ctxT(t), ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, b, ns+"/web")
	if got := getIngress(t, ns, "web").Status.LoadBalancer.Ingress; len(got) != 0 {
		t.Errorf("status of an Ingress that left our class = %+v, want cleared", got)
	}
}

func expectLeading(t *testing.T, in *instance, want bool) {
	t.Helper()
	select {
	case got := <-in.leading:
		if got != want {
			t.Fatalf("%s leading = %v, want %v", in.name, got, want)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("%s: no leadership change to %v", in.name, want)
	}
}

func waitStatus(t *testing.T, in *instance, key string) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case got := <-in.status:
			if got == key {
				return
			}
		case <-deadline:
			t.Fatalf("%s never wrote the status of %s", in.name, key)
		}
	}
}

func getIngress(t *testing.T, ns, name string) *networkingv1.Ingress {
	t.Helper()
	ing, err := admin.NetworkingV1().Ingresses(ns).Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ing
}

func sameLB(a, b []networkingv1.IngressLoadBalancerIngress) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].IP != b[i].IP || a[i].Hostname != b[i].Hostname {
			return false
		}
	}
	return true
}

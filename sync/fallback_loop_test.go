package sync_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

func fbService(name, version, path string) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, UID: types.UID("uid-" + name),
		ResourceVersion: version}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	if path != "" {
		s.Annotations = map[string]string{"konghq.com/path": path}
	}
	return s
}

func fbIngress(name, version, service string) *networkingv1.Ingress {
	class := "kong"
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, UID: types.UID("uid-" + name),
		ResourceVersion: version}, Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{
		Host: name + ".example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
}

func upsert(t *testing.T, lv *live, objs ...store.Object) {
	t.Helper()
	for _, o := range objs {
		if _, err := lv.st.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	lv.loop.Notify()
}

// routeHosts lists the hosts of the routes Kong holds, sorted.
func routeHosts(k *kongdouble.Server) []string {
	var out []string
	svcs, _ := k.Document()["services"].([]any)
	for _, s := range svcs {
		routes, _ := s.(map[string]any)["routes"].([]any)
		for _, r := range routes {
			for _, h := range r.(map[string]any)["hosts"].([]any) {
				out = append(out, h.(string))
			}
		}
	}
	sort.Strings(out)
	return out
}

func taggedService(name string) kongdouble.TaggedObject {
	return kongdouble.TaggedObject{Name: name, Namespace: "a", Kind: "Service", Version: "v1", UID: "uid-" + name}
}

var svcRef = store.Ref{Kind: store.KindService, Namespace: "a", Name: "svc"}

// With FallbackConfiguration, a rejected Service takes the Ingresses routing to it out, on every
// build while it stays rejected (an Ingress added meanwhile too, after the Service's retry), and
// all come back when the Service changes. The builds are fallback ones, with their plan's time, for KIC's metrics.
func TestFallbackFollowsTheStore(t *testing.T) {
	st := store.New()
	lv := startLive(t, st, translator.DefaultOptions(), kongdouble.Options{}, func(k *kongdouble.Server) { k.RejectObjects(1, taggedService("svc")) },
		func(c *kongsync.Config) { c.FallbackConfiguration = true })
	upsert(t, lv, fbService("svc", "1", ""), fbService("ok", "1", ""), fbIngress("i", "1", "svc"), fbIngress("k", "1", "ok"))
	lv.waitFor("the rejection", func() bool { return len(lv.loop.Fallback().Broken) == 1 })
	lv.synced()
	if got := routeHosts(lv.kong); !slices.Equal(got, []string{"k.example.com"}) {
		t.Fatalf("Kong routes %v, want only k's", got)
	}
	// The build's stats are recorded after its payload is handed to the replicas: wait for them.
	lv.waitFor("the fallback build's stats", func() bool { return lv.lastBuild().Fallback })
	plan := lv.loop.Fallback()
	if got, want := fmt.Sprint(plan.ExcludedRefs()), "[Ingress a/i Service a/svc]"; got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
	if b := lv.lastBuild(); !b.Fallback || b.Excluded != 2 || b.FallbackPlan <= 0 {
		t.Errorf("last build %+v: want a fallback build leaving 2 objects out, with its plan's time", b)
	}

	// A change in the Service's namespace gives it one more chance (release.go), which Kong
	// refuses again: the rebuild leaves out the Ingress added meanwhile too.
	rejected := lv.loop.Stats().Rejected
	lv.kong.RejectObjects(1, taggedService("svc"))
	upsert(t, lv, fbIngress("j", "1", "svc"), fbIngress("m", "1", "ok"))
	lv.waitFor("m's route", func() bool { return slices.Contains(routeHosts(lv.kong), "m.example.com") })
	if n := lv.loop.Stats().Rejected - rejected; n != 1 {
		t.Errorf("%d rejections after j was added, want 1 (the Service's retry)", n)
	}
	if got := fmt.Sprint(lv.loop.Fallback().ExcludedRefs()); got != "[Ingress a/i Ingress a/j Service a/svc]" {
		t.Errorf("after j was added, left out %s", got)
	}
	if got := routeHosts(lv.kong); !slices.Equal(got, []string{"k.example.com", "m.example.com"}) {
		t.Errorf("Kong routes %v", got)
	}

	// Its new version must translate to other bytes: the config of the retry, which Kong
	// refused, is never posted again as it is.
	upsert(t, lv, fbService("svc", "2", "/v2"))
	lv.waitFor("every route back", func() bool { return len(routeHosts(lv.kong)) == 4 && !lv.lastBuild().Fallback })
	if p := lv.loop.Fallback(); len(p.Broken) != 0 || len(p.Excluded) != 0 || lv.lastBuild().Fallback {
		t.Errorf("after the Service changed: %+v, last build %+v", p, lv.lastBuild())
	}
}

// With --use-last-valid-config-for-fallback, a Service Kong rejects after a change is put back
// in the version every replica last took, with the Ingress that depended on it then: Kong keeps
// routing to it as before (the configuration is the last valid one, byte for byte). An Ingress
// added since depends on the broken Service and has no valid version: it is left out. Without
// backfilling, the Service and its Ingresses are left out.
func TestFallbackBackfillsLastValid(t *testing.T) {
	for _, lastGood := range []bool{true, false} {
		t.Run(fmt.Sprint("last-valid=", lastGood), func(t *testing.T) {
			lv := startLive(t, store.New(), translator.DefaultOptions(), kongdouble.Options{}, nil, func(c *kongsync.Config) {
				c.FallbackConfiguration, c.UseLastValidConfigForFallback = true, lastGood
			})
			upsert(t, lv, fbService("svc", "1", "/v1"), fbService("ok", "1", ""), fbIngress("i", "1", "svc"), fbIngress("k", "1", "ok"))
			valid := lv.synced()
			lv.kong.RejectObjects(1, taggedService("svc"))
			upsert(t, lv, fbService("svc", "2", "/v2"), fbIngress("j", "1", "svc"))
			lv.waitFor("the rejection", func() bool { return len(lv.loop.Fallback().Broken) == 1 })
			got := lv.synced()
			plan := lv.loop.Fallback()
			if ex := fmt.Sprint(plan.ExcludedRefs()); ex != "[Ingress a/i Ingress a/j Service a/svc]" {
				t.Errorf("left out %s", ex)
			}
			if !lastGood {
				if hosts := routeHosts(lv.kong); !slices.Equal(hosts, []string{"k.example.com"}) || len(plan.Backfilled) != 0 {
					t.Errorf("without backfilling: Kong routes %v, backfilled %v", hosts, plan.BackfilledRefs())
				}
				return
			}
			if bf := fmt.Sprint(plan.BackfilledRefs()); bf != "[Ingress a/i Service a/svc]" {
				t.Errorf("backfilled %s, want the Service and i in their last valid versions", bf)
			}
			for _, a := range plan.Backfilled {
				if a.Object.GetResourceVersion() != "1" {
					t.Errorf("backfilled %s at resourceVersion %s, want 1", a.Ref, a.Object.GetResourceVersion())
				}
			}
			if got != valid {
				t.Errorf("configuration %s, want the last valid one %s", got, valid)
			}
		})
	}
}

// The plan of a live build equals the pure function's on the same snapshot.
func TestFallbackPlanIsThePureFunctions(t *testing.T) {
	st := store.New()
	lv := startLive(t, st, translator.DefaultOptions(), kongdouble.Options{}, func(k *kongdouble.Server) { k.RejectObjects(1, taggedService("svc")) },
		func(c *kongsync.Config) { c.FallbackConfiguration = true })
	upsert(t, lv, fbService("svc", "1", ""), fbIngress("i", "1", "svc"), fbIngress("k", "1", "svc"))
	lv.waitFor("the rejection", func() bool { return len(lv.loop.Fallback().Broken) == 1 })
	lv.synced()
	want := fallback.Exclude(fallback.NewGraph(st.Snapshot()), []store.Ref{svcRef})
	if got := lv.loop.Fallback(); fmt.Sprint(got.ExcludedRefs()) != fmt.Sprint(want.ExcludedRefs()) {
		t.Errorf("loop left out %v, Exclude %v", got.ExcludedRefs(), want.ExcludedRefs())
	}
}

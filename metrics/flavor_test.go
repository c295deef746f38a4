package metrics

import (
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/record"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// flavorSeries lists the router-flavor series as "name replica flavor value".
func flavorSeries(t *testing.T, p *Prometheus) []string {
	var out []string
	for name, mf := range families(t, p) {
		if name != "kongsync_replica_router_flavor" && name != "kongsync_replica_router_flavor_mismatch" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out = append(out, name+" "+labelValue(m, "replica")+" "+labelValue(m, "flavor")+" "+
				map[bool]string{true: "1", false: "0"}[m.GetGauge().GetValue() == 1])
		}
	}
	slices.Sort(out)
	return out
}

// One series per replica for its flavor (a new flavor replaces the old one), a mismatch gauge
// beside it, and neither left once the replica is forgotten.
func TestRouterFlavorMetrics(t *testing.T) {
	p := NewForInstance("i")
	const a, b = "http://a:8001", "http://b:8001"
	p.ObserveRouterFlavor(a, translator.RouterExpressions, true)
	p.ObserveRouterFlavor(b, translator.RouterTraditional, false)
	p.ObserveRouterFlavor(a, translator.RouterTraditionalCompatible, false)
	want := []string{
		"kongsync_replica_router_flavor " + a + " traditional_compatible 1",
		"kongsync_replica_router_flavor " + b + " traditional 1",
		"kongsync_replica_router_flavor_mismatch " + a + "  0",
		"kongsync_replica_router_flavor_mismatch " + b + "  0",
	}
	if got := flavorSeries(t, p); !slices.Equal(got, want) {
		t.Errorf("series %q, want %q", got, want)
	}
	p.ObserveRouterFlavor(b, translator.RouterTraditional, true)
	p.ForgetReplica(a)
	want = []string{
		"kongsync_replica_router_flavor " + b + " traditional 1",
		"kongsync_replica_router_flavor_mismatch " + b + "  1",
	}
	if got := flavorSeries(t, p); !slices.Equal(got, want) {
		t.Errorf("after the mismatch and forgetting %s: %q, want %q", a, got, want)
	}
}

// The mismatch Event goes on kongsync's own Pod, once the Pod is known.
func TestRouterFlavorMismatchEvent(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	r := NewReporter(rec, store.New(), logr.Discard())
	r.RouterFlavorMismatch("http://kong:8001", translator.RouterExpressions, translator.RouterTraditional)
	r.SetPod("kong", "kongsync-7d9f")
	r.RouterFlavorMismatch("http://kong:8001", translator.RouterExpressions, translator.RouterTraditional)
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	want := "Warning KongRouterFlavorMismatch Kong http://kong:8001 reports router_flavor expressions, but most Kong " +
		"replicas report traditional, which the configuration is translated for: nothing is posted to it until its router_flavor matches"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("events %q, want only %q", got, want)
	}
}

package store

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func withSvc(ns, name, rv string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

func withSlice(ns, name, svc string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{discoveryv1.LabelServiceName: svc}}}
}

// With equals a snapshot built from scratch with the objects replaced or added, indexes
// included, and leaves the snapshot it came from unchanged.
func TestSnapshotWith(t *testing.T) {
	base := []Object{withSvc("a", "x", "1"), withSvc("b", "y", "1"), withSlice("a", "x-1", "x")}
	snap, err := NewSnapshot(base...)
	if err != nil {
		t.Fatal(err)
	}
	changed := []Object{withSvc("a", "x", "2"), withSvc("a", "new", "1"), withSlice("a", "x-2", "x")}
	got, err := snap.With(changed...)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := NewSnapshot(append(append([]Object(nil), base...), changed...)...)
	for _, k := range []Kind{KindService, KindEndpointSlice, KindIngress} {
		if !slices.Equal(got.Objects(k), want.Objects(k)) {
			t.Errorf("%s: With gives %v, want %v", k, refNames(got.Objects(k)), refNames(want.Objects(k)))
		}
	}
	if n := len(got.EndpointSlicesFor("a", "x")); n != 2 {
		t.Errorf("the slice index after With has %d slices for a/x, want 2", n)
	}
	if s, _ := got.Service("a", "x"); s.ResourceVersion != "2" {
		t.Errorf("Service lookup after With: %v", s.ResourceVersion)
	}
	if s, _ := snap.Service("a", "x"); s.ResourceVersion != "1" || snap.Len(KindService) != 2 || len(snap.EndpointSlicesFor("a", "x")) != 1 {
		t.Error("With changed the original snapshot")
	}
	if _, err := snap.With(&corev1.Pod{}); err == nil {
		t.Error("With accepted a kind the store does not hold")
	}
}

func refNames(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetNamespace()+"/"+o.GetName()+"@"+o.GetResourceVersion())
	}
	return out
}

package store

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func svc(ns, name, rv string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

func slice(ns, name, svcName string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{discoveryv1.LabelServiceName: svcName}}}
}

func TestUpsertIgnoresUnchangedResourceVersion(t *testing.T) {
	s := New()
	if changed, _ := s.Upsert(svc("a", "x", "1")); !changed {
		t.Fatal("first upsert must change the store")
	}
	if changed, _ := s.Upsert(svc("a", "x", "1")); changed {
		t.Fatal("resync with the same resourceVersion must not change the store")
	}
	if changed, _ := s.Upsert(svc("a", "x", "2")); !changed {
		t.Fatal("new resourceVersion must change the store")
	}
	if changed, _ := s.Upsert(svc("a", "y", "")); !changed {
		t.Fatal("manifest objects without resourceVersion always change the store")
	}
	if _, err := s.Upsert(&corev1.Pod{}); err == nil {
		t.Fatal("unsupported type must be an error")
	}
}

func TestSnapshotIsImmutableAndShared(t *testing.T) {
	s := New()
	s.Upsert(svc("b", "x", "1"))
	s.Upsert(svc("a", "x", "1"))
	s.Upsert(slice("a", "x-1", "x"))
	one := s.Snapshot()
	if s.Snapshot() != one {
		t.Fatal("unchanged store must return the same snapshot")
	}
	s.Upsert(svc("a", "z", "1"))
	s.Delete(Ref{Kind: KindService, Namespace: "b", Name: "x"})
	two := s.Snapshot()
	if got := names(one.Objects(KindService)); got != "a/x b/x" {
		t.Fatalf("old snapshot changed: %s", got)
	}
	if got := names(two.Objects(KindService)); got != "a/x a/z" {
		t.Fatalf("new snapshot: %s", got)
	}
	if one.views[KindEndpointSlice] != two.views[KindEndpointSlice] {
		t.Fatal("an unchanged kind must share its view between snapshots")
	}
	if _, ok := two.Service("b", "x"); ok {
		t.Fatal("deleted service still visible")
	}
}

func TestEndpointSliceIndex(t *testing.T) {
	snap, err := NewSnapshot(slice("a", "x-2", "x"), slice("a", "x-1", "x"), slice("b", "x-1", "x"), slice("a", "y-1", "y"),
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "orphan"}})
	if err != nil {
		t.Fatal(err)
	}
	got := snap.EndpointSlicesFor("a", "x")
	if len(got) != 2 || got[0].Name != "x-1" || got[1].Name != "x-2" {
		t.Fatalf("EndpointSlicesFor(a, x) = %v", got)
	}
	if len(snap.EndpointSlicesFor("c", "x")) != 0 {
		t.Fatal("unknown service must have no slices")
	}
}

func TestWithout(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "i"}}
	snap, _ := NewSnapshot(ing, svc("a", "x", ""), svc("a", "y", ""))
	less := snap.Without(Ref{Kind: KindService, Namespace: "a", Name: "x"}, Ref{Kind: KindSecret, Namespace: "a", Name: "none"})
	if got := names(less.Objects(KindService)); got != "a/y" {
		t.Fatalf("Without: %s", got)
	}
	if got := names(snap.Objects(KindService)); got != "a/x a/y" {
		t.Fatalf("Without changed the original: %s", got)
	}
	if len(less.Ingresses()) != 1 || snap.Without() != snap {
		t.Fatal("untouched kinds must survive and an empty Without must return the snapshot itself")
	}
}

func TestDefaultClass(t *testing.T) {
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kong",
		Annotations: map[string]string{DefaultClassAnnotation: "true"}}}
	snap, _ := NewSnapshot(ic, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	if !snap.IsDefaultClass("kong") || snap.IsDefaultClass("other") || snap.IsDefaultClass("missing") {
		t.Fatal("IsDefaultClass wrong")
	}
}

func names(objs []Object) string {
	out := ""
	for i, o := range objs {
		if i > 0 {
			out += " "
		}
		out += o.GetNamespace() + "/" + o.GetName()
	}
	return out
}

func TestSnapshotKongUpstreamPolicy(t *testing.T) {
	objs, notes, err := DecodeManifests("in.yaml", strings.NewReader(
		"apiVersion: configuration.konghq.com/v1beta1\nkind: KongUpstreamPolicy\nmetadata: {name: p, namespace: ns1}\nspec: {algorithm: latency}\n"))
	if err != nil || len(notes) != 0 || len(objs) != 1 {
		t.Fatalf("decode: %v %v %v", objs, notes, err)
	}
	snap, err := NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := snap.KongUpstreamPolicy("ns1", "p")
	if !ok || *p.Spec.Algorithm != "latency" {
		t.Fatalf("lookup = %v, %v", p, ok)
	}
	if _, ok := snap.KongUpstreamPolicy("default", "p"); ok {
		t.Fatal("policy found in the wrong namespace")
	}
	if g := KindKongUpstreamPolicy.GVK(); g.Version != "v1beta1" || g.Group != "configuration.konghq.com" {
		t.Fatalf("GVK = %v", g)
	}
}

package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ChangedNamespaces names the namespaces of the objects added, removed or replaced between two
// snapshots of one store ("" for cluster-scoped ones), of the kinds asked only.
func TestChangedNamespaces(t *testing.T) {
	class := func(rv string) *networkingv1.IngressClass {
		return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kong", ResourceVersion: rv}}
	}
	s := New()
	for _, o := range []Object{withSvc("a", "x", "1"), withSvc("b", "y", "1"), withSvc("c", "z", "1"),
		withSlice("d", "w-1", "w"), class("1")} {
		if _, err := s.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	prev := s.Snapshot()
	for _, step := range []func() (bool, error){
		func() (bool, error) { return s.Upsert(withSvc("a", "x", "2")) },   // replaced
		func() (bool, error) { return s.Upsert(withSvc("e", "new", "1")) }, // added
		func() (bool, error) { return s.Delete(Ref{Kind: KindService, Namespace: "c", Name: "z"}), nil },
		func() (bool, error) { return s.Upsert(withSlice("d", "w-2", "w")) },
		func() (bool, error) { return s.Upsert(class("2")) },
	} {
		if _, err := step(); err != nil {
			t.Fatal(err)
		}
	}
	cur := s.Snapshot()
	for _, tc := range []struct {
		kinds []Kind
		want  string
	}{
		{[]Kind{KindService}, "a,c,e"},
		{[]Kind{KindEndpointSlice}, "d"},
		{[]Kind{KindIngressClass}, ""},
		{[]Kind{KindIngress, KindSecret}, "-"},
		{Kinds, ",a,c,d,e"},
	} {
		got := slices.Sorted(maps.Keys(ChangedNamespaces(prev, cur, tc.kinds)))
		want := strings.Split(tc.want, ",")
		if tc.want == "-" {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("kinds %v: changed %q, want %q", tc.kinds, got, want)
		}
	}
	if got := ChangedNamespaces(cur, cur, Kinds); len(got) != 0 {
		t.Errorf("a snapshot against itself: %v", got)
	}
	if got := slices.Sorted(maps.Keys(ChangedNamespaces(nil, prev, []Kind{KindService}))); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("against nothing: %v", got)
	}
}

// The sync loop compares each build's snapshot with the last while Kong has rejected objects:
// one Service changed among n, Services and Ingresses (the Ingresses' list is shared).
func BenchmarkChangedNamespaces(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := New()
			for i := range n {
				ns := fmt.Sprintf("ns-%d", i%100)
				for _, o := range []Object{withSvc(ns, fmt.Sprintf("svc-%d", i), "1"),
					&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("ing-%d", i)}}} {
					if _, err := s.Upsert(o); err != nil {
						b.Fatal(err)
					}
				}
			}
			prev := s.Snapshot()
			if _, err := s.Upsert(withSvc("ns-7", "svc-7", "2")); err != nil {
				b.Fatal(err)
			}
			cur := s.Snapshot()
			b.ResetTimer()
			for b.Loop() {
				if got := ChangedNamespaces(prev, cur, Kinds); len(got) != 1 {
					b.Fatal(got)
				}
			}
		})
	}
}

package store

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// cowMapOf returns a cowMap holding m's entries (for tests).
func cowMapOf[V any](m map[nsName]V) *cowMap[V] {
	c := newCowMap[V](cowDeltaLimit)
	for k, v := range m {
		c.put(k, v)
	}
	return c
}

// TestCowMap: entries put, replaced and deleted read back, and a frozen or copied map never
// sees the writes made to the other one after.
func TestCowMap(t *testing.T) {
	m := newCowMap[int](cowDeltaLimit)
	for i := range 1000 {
		m.put(nsName{fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("obj-%d", i)}, i)
	}
	m.put(nsName{"ns-0", "obj-0"}, -1) // replaced, not added
	m.del(nsName{"ns-1", "obj-1"})
	m.del(nsName{"ns-1", "absent"})
	if m.size() != 999 {
		t.Fatalf("size %d, want 999", m.size())
	}
	if v, ok := m.get(nsName{"ns-0", "obj-0"}); !ok || v != -1 {
		t.Fatalf("replaced entry reads %d, %v", v, ok)
	}
	if _, ok := m.get(nsName{"ns-1", "obj-1"}); ok {
		t.Fatal("deleted entry still there")
	}
	frozen := m.frozen()
	m.put(nsName{"ns-2", "obj-2"}, -2)
	m.put(nsName{"ns-9", "new"}, 1)
	m.del(nsName{"ns-3", "obj-3"})
	for _, c := range []struct {
		key  nsName
		want int
		ok   bool
	}{{nsName{"ns-2", "obj-2"}, 2, true}, {nsName{"ns-9", "new"}, 0, false}, {nsName{"ns-3", "obj-3"}, 3, true}} {
		if v, ok := frozen.get(c.key); v != c.want || ok != c.ok {
			t.Errorf("frozen %v reads %d, %v; want %d, %v", c.key, v, ok, c.want, c.ok)
		}
	}
	if frozen.size() != 999 || m.size() != 999 {
		t.Errorf("sizes %d (frozen) and %d, want 999 and 999", frozen.size(), m.size())
	}
	patched := frozen.copied()
	patched.del(nsName{"ns-4", "obj-4"})
	if _, ok := frozen.get(nsName{"ns-4", "obj-4"}); !ok || frozen.size() != 999 {
		t.Error("writing a copy changed the frozen map")
	}
	n := 0
	patched.all(func(nsName, int) { n++ })
	if n != 998 || patched.size() != 998 {
		t.Errorf("copy holds %d entries (size %d), want 998", n, patched.size())
	}
}

// TestSnapshotCopiesLittle: a change after a snapshot leaves the kind's map shared with the
// snapshot before it and puts the change in a delta of its own — the cost of a change does not
// grow with the kind (issue 21) — and each snapshot sees its own version.
func TestSnapshotCopiesLittle(t *testing.T) {
	st := New()
	for i := range 2000 {
		svc := &corev1.Service{}
		svc.Namespace, svc.Name, svc.ResourceVersion = "default", fmt.Sprintf("svc-%04d", i), "1"
		if _, err := st.Upsert(svc); err != nil {
			t.Fatal(err)
		}
	}
	before := st.Snapshot()
	svc := &corev1.Service{}
	svc.Namespace, svc.Name, svc.ResourceVersion = "default", "svc-0042", "2"
	if _, err := st.Upsert(svc); err != nil {
		t.Fatal(err)
	}
	after := st.Snapshot()
	a, b := before.views[KindService].objs, after.views[KindService].objs
	if reflect.ValueOf(a.base).UnsafePointer() != reflect.ValueOf(b.base).UnsafePointer() || len(b.delta) != 1 {
		t.Errorf("after one change: base shared %v, delta of %d entries; want true and 1",
			reflect.ValueOf(a.base).UnsafePointer() == reflect.ValueOf(b.base).UnsafePointer(), len(b.delta))
	}
	if o, _ := before.Get(Ref{Kind: KindService, Namespace: "default", Name: "svc-0042"}); o.GetResourceVersion() != "1" {
		t.Error("the earlier snapshot sees the later change")
	}
	if o, _ := after.Get(Ref{Kind: KindService, Namespace: "default", Name: "svc-0042"}); o.GetResourceVersion() != "2" {
		t.Error("the later snapshot misses the change")
	}
}

// TestCowMapFolds: past cowDeltaLimit writes after a snapshot the delta folds into a new base,
// so that a long run of changes never copies a large delta; every snapshot along the way reads
// what a plain map does.
func TestCowMapFolds(t *testing.T) {
	m := newCowMap[int](cowDeltaLimit)
	want := map[nsName]int{}
	for i := range 5000 {
		k := nsName{"ns", fmt.Sprintf("o-%d", i)}
		m.put(k, i)
		want[k] = i
	}
	maxDelta := 0
	for i := range 3000 {
		k := nsName{"ns", fmt.Sprintf("o-%d", (i*7919)%6000)}
		old, had := m.get(k)
		snap := m.frozen()
		if i%3 == 0 {
			m.del(k)
			delete(want, k)
		} else {
			m.put(k, -i)
			want[k] = -i
		}
		maxDelta = max(maxDelta, len(m.delta))
		if v, ok := snap.get(k); v != old || ok != had {
			t.Fatalf("change %d: the frozen copy reads %d, %v for %v; want %d, %v", i, v, ok, k, old, had)
		}
		if i%500 == 0 || i == 2999 {
			got := map[nsName]int{}
			m.all(func(k nsName, v int) { got[k] = v })
			if !maps.Equal(got, want) || m.size() != len(want) {
				t.Fatalf("after %d changes: %d entries (size %d), want %d", i+1, len(got), m.size(), len(want))
			}
		}
	}
	if maxDelta > cowDeltaLimit {
		t.Errorf("delta grew to %d entries, past %d", maxDelta, cowDeltaLimit)
	}
}

// BenchmarkChangeSnapshot is one change to a store of 10,000 Services followed by a snapshot:
// the same Service changed again and again (its delta stays one entry) or a different Service
// each time (the delta fills and folds every cowDeltaLimit changes; B/op is the fold's cost
// spread over them, where copying the whole map on every change cost ~870 KB).
func BenchmarkChangeSnapshot(b *testing.B) {
	for _, tc := range []struct {
		name string
		key  func(i int) int
	}{{"same", func(int) int { return 42 }}, {"distinct", func(i int) int { return (i * 7919) % 10000 }}} {
		b.Run(tc.name, func(b *testing.B) {
			st := New()
			for i := range 10000 {
				if _, err := st.Upsert(benchService(i, 0)); err != nil {
					b.Fatal(err)
				}
			}
			st.Snapshot()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, err := st.Upsert(benchService(tc.key(i), i)); err != nil {
					b.Fatal(err)
				}
				st.Snapshot()
			}
		})
	}
}

func benchService(i, version int) *corev1.Service {
	svc := &corev1.Service{}
	svc.Namespace, svc.Name, svc.ResourceVersion = "default", fmt.Sprintf("svc-%05d", i), fmt.Sprint(version)
	return svc
}

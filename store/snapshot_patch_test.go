package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPatchedSnapshotEqualsRebuilt makes random upserts (new objects, new versions, relabelled
// EndpointSlices) and deletes, snapshotting after a random number of them: every snapshot's
// sorted lists and EndpointSlice index must equal a snapshot built from scratch.
func TestPatchedSnapshotEqualsRebuilt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	st := New()
	model := map[Ref]Object{} // what the store must hold
	upsert := func(o Object) {
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
		ref, _ := RefOf(o)
		model[ref] = o
	}
	del := func(ref Ref) {
		st.Delete(ref)
		delete(model, ref)
	}
	for step := range 400 {
		for range 1 + r.IntN(5) {
			ns, name := fmt.Sprintf("ns%d", r.IntN(3)), fmt.Sprintf("o%02d", r.IntN(40))
			switch r.IntN(5) {
			case 0:
				del(Ref{Kind: KindEndpointSlice, Namespace: ns, Name: name})
			case 1:
				del(Ref{Kind: KindService, Namespace: ns, Name: name})
			case 2:
				upsert(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
			default:
				labels := map[string]string{discoveryv1.LabelServiceName: fmt.Sprintf("s%d", r.IntN(4))}
				if r.IntN(6) == 0 {
					labels = nil
				}
				es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
				upsert(es)
			}
		}
		if r.IntN(3) == 0 {
			continue
		}
		snap := st.Snapshot()
		var all []Object
		for _, o := range model {
			all = append(all, o)
		}
		want, err := NewSnapshot(all...)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range Kinds {
			if !slices.Equal(snap.Objects(k), want.Objects(k)) {
				t.Fatalf("step %d: %s list differs from a rebuilt snapshot", step, k)
			}
		}
		for i := range 3 {
			for j := range 4 {
				ns, svc := fmt.Sprintf("ns%d", i), fmt.Sprintf("s%d", j)
				if !slices.Equal(snap.EndpointSlicesFor(ns, svc), want.EndpointSlicesFor(ns, svc)) {
					t.Fatalf("step %d: EndpointSlices of %s/%s differ from a rebuilt snapshot", step, ns, svc)
				}
			}
		}
	}
}

package perf_test

import (
	"bytes"
	"fmt"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// BenchmarkIncremental is issue 4's single-change cost at N = 10k: from "store changed" (one
// object replaced by a new version) to "new document hashed", with the translator.Engine
// warm. Each op alternates between two versions of the object so every op
// is a real change. The target is ≤ 20 ms.
func BenchmarkIncremental(b *testing.B) {
	const n = 10000
	changes := map[string]func(st *store.Store, i int) store.Object{
		"ingress": func(st *store.Store, i int) store.Object {
			o, _ := st.Get(store.Ref{Kind: store.KindIngress, Namespace: "default", Name: "app-05000"})
			ing := o.(*networkingv1.Ingress).DeepCopy()
			ing.Spec.Rules[0].HTTP.Paths[0].Path = fmt.Sprintf("/v%d", i%2)
			return ing
		},
		"endpointslice": func(st *store.Store, i int) store.Object {
			o, _ := st.Get(store.Ref{Kind: store.KindEndpointSlice, Namespace: "default", Name: "app-05000-1"})
			es := o.(*discoveryv1.EndpointSlice).DeepCopy()
			es.Endpoints[1].Addresses[0] = fmt.Sprintf("10.200.0.%d", 2+i%2)
			return es
		},
	}
	for _, kind := range []string{"ingress", "endpointslice"} {
		b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
			runIncremental(b, loaded(b, n), changes[kind])
		})
	}
}

// runIncremental times change (the i-th version of one object) followed by a warm Build of the
// store st and the hash of its config, then checks the Engine against a cold build.
func runIncremental(b *testing.B, st *store.Store, change func(st *store.Store, i int) store.Object) {
	eng := translator.NewEngine(benchOptions)
	if _, err := eng.Build(st.Snapshot()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	loopCPU(b, func() {
		if _, err := st.Upsert(change(st, i)); err != nil {
			b.Fatal(err)
		}
		i++
		built, err := eng.Build(st.Snapshot())
		if err != nil {
			b.Fatal(err)
		}
		built.Hash() // "new document hashed": the engine defers the md5 of a changed config
	})
	checkIncrementalEqualsFull(b, st, eng)
}

// checkIncrementalEqualsFull guards the benchmark: the warm engine must produce the bytes and
// hash of a cold build of the same snapshot.
func checkIncrementalEqualsFull(b *testing.B, st *store.Store, eng *translator.Engine) {
	b.Helper()
	snap := st.Snapshot()
	got, err := eng.Build(snap)
	if err != nil {
		b.Fatal(err)
	}
	want := mustBuild(b, snap, benchOptions)
	if !bytes.Equal(got.Config.Bytes(), want.Config.Bytes()) || got.Hash() != want.Hash() ||
		got.Hash() != document.Hash(want.Config.Bytes()) {
		b.Fatal("incremental build differs from a full build")
	}
}

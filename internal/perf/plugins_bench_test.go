package perf_test

import (
	"fmt"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// BenchmarkPlugins is the 10k workload with genworkload's -plugins 10: every Ingress references
// one of 10 KongPlugins, so the config holds 10k route plugins. translate, encode and
// incremental-ingress compare with BenchmarkTranslate/n=10000, BenchmarkEncodeJSON/n=10000 and
// BenchmarkIncremental/n=10000/ingress (the same workload without plugins).
func BenchmarkPlugins(b *testing.B) {
	c := workload.Defaults(10000)
	c.Plugins = 10
	objs := workloadObjects(b, c)
	st, notes := store.Load(objs)
	if len(notes) != 0 {
		b.Fatal(notes)
	}
	snap := st.Snapshot()
	opts := translator.DefaultOptions()
	b.Run("translate", func(b *testing.B) {
		b.ReportAllocs()
		loopCPU(b, func() { mustBuild(b, snap, opts) })
	})
	doc := mustBuild(b, snap, opts).Document
	if len(doc.Plugins) != 10000 {
		b.Fatalf("%d plugins, want 10000", len(doc.Plugins))
	}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		loopCPU(b, func() {
			if _, err := document.JSON(doc); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("incremental-ingress", func(b *testing.B) {
		eng := translator.NewEngine(opts)
		if _, err := eng.Build(st.Snapshot()); err != nil {
			b.Fatal(err)
		}
		ref := store.Ref{Kind: store.KindIngress, Namespace: "default", Name: "app-05000"}
		b.ReportAllocs()
		i := 0
		loopCPU(b, func() {
			o, _ := st.Get(ref)
			ing := o.(*networkingv1.Ingress).DeepCopy()
			ing.Spec.Rules[0].HTTP.Paths[0].Path = fmt.Sprintf("/v%d", i%2)
			if _, err := st.Upsert(ing); err != nil {
				b.Fatal(err)
			}
			i++
			built, err := eng.Build(st.Snapshot())
			if err != nil {
				b.Fatal(err)
			}
			built.Hash()
		})
		checkIncrementalEqualsFull(b, st, eng)
	})
}

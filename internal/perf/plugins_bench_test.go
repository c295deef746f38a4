package perf_test

import (
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// BenchmarkPlugins is the 10k workload with genworkload's -plugins 10: every Ingress references
// one of 10 KongPlugins, so the config holds 10k route plugins. translate and encode compare
// with BenchmarkTranslate/n=10000 and BenchmarkEncodeJSON/n=10000 (the same workload without).
func BenchmarkPlugins(b *testing.B) {
	c := workload.Defaults(10000)
	c.Plugins = 10
	raw, err := workload.Objects(c)
	if err != nil {
		b.Fatal(err)
	}
	objs := make([]store.Object, len(raw))
	for i, o := range raw {
		objs[i] = o.(store.Object)
	}
	st, notes := store.Load(objs)
	if len(notes) != 0 {
		b.Fatal(notes)
	}
	snap := st.Snapshot()
	opts := translator.DefaultOptions()
	b.Run("translate", func(b *testing.B) {
		b.ReportAllocs()
		loopCPU(b, func() { translator.Translate(snap, opts) })
	})
	doc := translator.Translate(snap, opts).Document
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
}

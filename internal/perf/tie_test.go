package perf_test

import (
	"bytes"
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// TestTieMoveWarmEqualsCold is BenchmarkGatewayFlavors' worst case at 2,000 HTTPRoutes as a
// test: under expressions, route-00010 moves into and out of the tie of all the others, whose
// services the warm engine re-prioritises and the encoder writes from their previous bytes
// (document/reprice.go) while hashing (fragmentpipe.go). Every build must be a cold build's
// bytes and hash.
func TestTieMoveWarmEqualsCold(t *testing.T) {
	objs := workloadObjects(t, workload.Config{HTTPRoutes: 2000, Namespaces: 1, UIDs: true})
	st, _ := store.Load(objs)
	opts := translator.DefaultOptions()
	opts.RouterFlavor = translator.RouterExpressions
	eng := translator.NewEngine(opts)
	move := pathChange("route-00010-move")
	for i := range 6 {
		if i > 0 {
			if _, err := st.Upsert(move(st, i)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := eng.Build(st.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		want := mustBuild(t, st.Snapshot(), opts)
		if !bytes.Equal(got.Config.Bytes(), want.Config.Bytes()) || got.Hash() != want.Hash() ||
			got.Hash() != document.Hash(want.Config.Bytes()) {
			t.Fatalf("step %d: the warm build differs from a cold one", i)
		}
	}
}

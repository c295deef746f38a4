package perf_test

import (
	"bytes"
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// BenchmarkDump is what `kongsync dump -f` does with the genworkload file of 10k Ingresses, in
// process: decode the 30k manifests, load the store, translate and encode YAML. The whole-process
// figure (wall time, max RSS) comes from hack/bench-dump.sh.
func BenchmarkDump(b *testing.B) {
	var buf bytes.Buffer
	if err := workload.Write(&buf, workload.Defaults(10000), "yaml"); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	loopCPU(b, func() {
		objs, notes, err := store.DecodeManifests("w10k.yaml", bytes.NewReader(buf.Bytes()))
		if err != nil || len(notes) != 0 {
			b.Fatal(err, notes)
		}
		st, _ := store.Load(objs)
		res := mustBuild(b, st.Snapshot(), translator.DefaultOptions())
		if _, err := document.YAML(res.Document); err != nil {
			b.Fatal(err)
		}
	})
}

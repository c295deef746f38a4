package store_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

// BenchmarkDecode reads the genworkload manifest of n Ingresses (3n + 1 documents), in the YAML
// genworkload writes by default and in its one-JSON-object-per-document form. n=10000 is the
// file `kongsync dump` must handle in ≤ 3 s including everything else.
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, format := range []string{"yaml", "json"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, format), func(b *testing.B) {
				var buf bytes.Buffer
				if err := workload.Write(&buf, workload.Defaults(n), format); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(buf.Len()))
				b.ReportAllocs()
				for b.Loop() {
					objs, notes, err := store.DecodeManifests("bench", bytes.NewReader(buf.Bytes()))
					if err != nil || len(notes) != 0 || len(objs) != 3*n+1 {
						b.Fatalf("%d objects, notes %v, err %v", len(objs), notes, err)
					}
				}
			})
		}
	}
}

package store

import (
	"bytes"
	"testing"

	"github.com/kongsync/kongsync/internal/workload"
)

// BenchmarkCheck is the API-server checks of the manifest reader on the genworkload objects of
// 10,000 Ingresses (30,001 objects), one goroutine: what ReadPaths adds to DecodeManifests.
func BenchmarkCheck(b *testing.B) {
	var buf bytes.Buffer
	if err := workload.Write(&buf, workload.Defaults(10000), "yaml"); err != nil {
		b.Fatal(err)
	}
	objs, _, err := DecodeManifests("bench", &buf)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cache := &metaCache{}
		for _, o := range objs {
			if r, _ := check(o, cache); len(r) > 0 {
				b.Fatal(r)
			}
		}
	}
}

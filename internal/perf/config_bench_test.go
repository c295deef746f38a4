package perf_test

import (
	"testing"

	"github.com/kongsync/kongsync/document"
)

// BenchmarkEncodeConfig is document.EncodeConfig: the config as posted (pieces, not joined) and
// its md5, FullBuild's encode stage.
func BenchmarkEncodeConfig(b *testing.B) { benchEncode(b, document.EncodeConfig) }

// BenchmarkEncodeColdCache is a first JSONCache.EncodeConfig: what the sync loop pays for its
// first build, when every item is a miss and gets cached.
func BenchmarkEncodeColdCache(b *testing.B) {
	benchEncode(b, func(d *document.Document) (*document.Config, error) {
		return document.NewJSONCache().EncodeConfig(d)
	})
}

func benchEncode(b *testing.B, encode func(*document.Document) (*document.Config, error)) {
	eachSize(b, func(b *testing.B, n int) {
		doc := translated(b, n)
		b.ReportAllocs()
		loopCPU(b, func() {
			if _, err := encode(doc); err != nil {
				b.Fatal(err)
			}
		})
	})
}

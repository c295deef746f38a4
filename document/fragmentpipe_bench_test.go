package document

import (
	"testing"

	"github.com/kong/go-kong/kong"
)

// BenchmarkJSONCacheMove is the encoder's share of a route moved into or out of a large tie:
// 4,000 of 10,000 services replaced near the start of the list, then the hash.
func BenchmarkJSONCacheMove(b *testing.B) {
	c := NewJSONCache()
	d := bigDoc(10000)
	if _, err := c.EncodeConfig(d); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		for j := 10; j < 4010; j++ {
			s := *d.Services[j]
			s.Port = kong.Int(80 + i%2)
			d.Services[j] = &s
		}
		cfg, err := c.EncodeConfig(d)
		if err != nil {
			b.Fatal(err)
		}
		cfg.Hash()
	}
}

package document

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/internal/jsonstr"
)

// bigDoc has enough services and upstreams that the hash crosses many md5 marks and the
// misses are encoded by several workers.
func bigDoc(n int) *Document {
	d := sample()
	for i := range n {
		name := fmt.Sprintf("ns.svc-%05d.80", n-i)
		d.Services = append(d.Services, &Service{Service: kong.Service{Name: kong.String(name), Port: kong.Int(80)},
			Routes: []*Route{{Route: kong.Route{Name: kong.String(name + ".r"), Paths: []*string{kong.String("/" + name)}}}}})
		d.Upstreams = append(d.Upstreams, &Upstream{Upstream: kong.Upstream{Name: kong.String(name + ".svc")},
			Targets: []*kong.Target{{Target: kong.String("10.0.0.1:80")}}})
	}
	return d
}

func checkEncode(t *testing.T, c *JSONCache, d *Document, what string) {
	t.Helper()
	want, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.EncodeConfig(d)
	if err != nil {
		t.Fatal(err)
	}
	got, hash := cfg.Bytes(), cfg.Hash()
	if cfg.Len() != len(want) || cfg.EscapedLen() != len(jsonstr.AppendContent(nil, want)) {
		t.Fatalf("%s: Len %d EscapedLen %d, want %d and %d", what, cfg.Len(), cfg.EscapedLen(),
			len(want), len(jsonstr.AppendContent(nil, want)))
	}
	plain, err := EncodeConfig(d)
	if err != nil || !bytes.Equal(plain.Bytes(), want) || plain.Hash() != Hash(want) || plain.EscapedLen() != cfg.EscapedLen() {
		t.Fatalf("%s: EncodeConfig differs from JSON (%v)", what, err)
	}
	var w bytes.Buffer
	if n, err := cfg.WriteTo(&w); err != nil || n != int64(len(want)) || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("%s: WriteTo wrote %d bytes (%v), not the config", what, n, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: JSONCache bytes differ from JSON\n--- got:\n%.2000s\n--- want:\n%.2000s", what, got, want)
	}
	if hash != Hash(want) {
		t.Fatalf("%s: hash %s, want %s", what, hash, Hash(want))
	}
}

// TestJSONCacheEqualsJSON encodes a sequence of documents sharing most items, replacing,
// removing and adding items at the start, middle and end, and an empty document: the bytes and
// hash must always be JSON's and Hash's.
func TestJSONCacheEqualsJSON(t *testing.T) {
	c := NewJSONCache()
	d := bigDoc(3000)
	checkEncode(t, c, d, "cold")
	checkEncode(t, c, d, "same")
	for _, i := range []int{0, 1500, len(d.Services) - 1} {
		s := *d.Services[i]
		s.Port = kong.Int(8080)
		d.Services[i] = &s
		checkEncode(t, c, d, fmt.Sprintf("service %d replaced", i))
	}
	u := *d.Upstreams[len(d.Upstreams)-1]
	u.Targets = nil
	d.Upstreams[len(d.Upstreams)-1] = &u
	checkEncode(t, c, d, "last upstream replaced")
	d.Services = d.Services[:2000]
	checkEncode(t, c, d, "shorter")
	d.Services = append(d.Services, &Service{Service: kong.Service{Name: kong.String("a")}})
	checkEncode(t, c, d, "appended")
	d.Upstreams = append([]*Upstream{nil}, d.Upstreams...)
	checkEncode(t, c, d, "nil item")
	checkEncode(t, c, New(), "empty")
	checkEncode(t, c, sample(), "sample")
	checkEncode(t, c, d, "back")
}

// A changed config's md5 is computed behind EncodeConfig; Hash and a later EncodeConfig wait for
// it (the marks it resumes from depend on it), so hashes stay right whoever asks, and when.
func TestJSONCacheDeferredHash(t *testing.T) {
	c := NewJSONCache()
	d := bigDoc(2000)
	first, err := c.EncodeConfig(d)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := first.HashReady(); ok && h != Hash(first.Bytes()) {
		t.Errorf("a first config's hash %q is ready and wrong", h)
	}
	s := *d.Services[1000]
	s.Port = kong.Int(9)
	d.Services[1000] = &s
	second, err := c.EncodeConfig(d) // first's hash was never asked for
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := first.HashReady(); !ok || h != Hash(first.Bytes()) {
		t.Errorf("first config's hash %q (ready %v) not completed by the next EncodeConfig", h, ok)
	}
	if second.Hash() != Hash(second.Bytes()) {
		t.Error("second config's deferred hash is wrong")
	}
	same, err := c.EncodeConfig(d)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := same.HashReady(); !ok || h != second.Hash() {
		t.Errorf("an unchanged config's hash is not ready at once: %q %v", h, ok)
	}
}

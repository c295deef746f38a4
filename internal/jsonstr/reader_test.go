package jsonstr

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// readerWant is what a Reader must yield: the prefix, the joined pieces escaped, the suffix.
func readerWant(prefix string, pieces [][]byte, suffix string) []byte {
	return append(AppendContent([]byte(prefix), bytes.Join(pieces, nil)), suffix...)
}

// randomPieces cuts a random string rich in bytes that need escaping into random pieces,
// empty ones included.
func randomPieces(rng *rand.Rand) [][]byte {
	alphabet := []byte("ab{}[],:\"\\\n\t\r\x00\x1f\x7fé")
	var pieces [][]byte
	for range rng.IntN(12) {
		p := make([]byte, rng.IntN(40))
		for i := range p {
			p[i] = alphabet[rng.IntN(len(alphabet))]
		}
		pieces = append(pieces, p)
	}
	return pieces
}

func TestReaderEqualsAppendContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for i := range 2000 {
		pieces := randomPieces(rng)
		want := readerWant(`{"config":"`, pieces, `"}`)
		if got := Len(`{"config":"`, pieces, `"}`); got != int64(len(want)) {
			t.Fatalf("case %d: Len %d, want %d", i, got, len(want))
		}
		// Reads of every size from 1 byte up cut escape sequences at every position.
		size := 1 + rng.IntN(16)
		got, err := io.ReadAll(io.LimitReader(readerOfSize(NewReader(`{"config":"`, pieces, `"}`), size), 1<<20))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("case %d (reads of %d): got %q (%v), want %q", i, size, got, err, want)
		}
		var body struct{ Config string }
		if !utf8.Valid(bytes.Join(pieces, nil)) {
			continue // JSON would replace the invalid bytes
		}
		if err := json.Unmarshal(got, &body); err != nil || body.Config != string(bytes.Join(pieces, nil)) {
			t.Fatalf("case %d: body does not decode to the pieces: %q (%v)", i, body.Config, err)
		}
	}
}

// readerOfSize reads from r into buffers of exactly size bytes.
func readerOfSize(r io.Reader, size int) io.Reader {
	return &sizedReader{r: r, size: size}
}

type sizedReader struct {
	r    io.Reader
	size int
}

func (s *sizedReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.size)]) }

func TestReaderContract(t *testing.T) {
	pieces := [][]byte{[]byte(`{"a":"x\"y"}`), nil, []byte("\n\x01"), []byte(`[1,2]`)}
	want := readerWant("P", pieces, "S")
	if err := iotest.TestReader(NewReader("P", pieces, "S"), want); err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(NewReader("", nil, ""), nil); err != nil {
		t.Fatal(err)
	}
}

func TestExtra(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "line\nfeed\r\ttab", "\x00\x01\x1f\x7f", "héllo"} {
		if got, want := len(s)+Extra(s), len(AppendContent(nil, s)); got != want {
			t.Errorf("len+Extra(%q) = %d, want %d", s, got, want)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	piece := bytes.Repeat([]byte(`{"name":"default.app-01234.80","port":80,"protocol":"http"},`), 1100)
	pieces := make([][]byte, 180) // ≈ 11.5 MB, a 10k-Ingress config
	for i := range pieces {
		pieces[i] = piece
	}
	b.SetBytes(int64(len(piece) * len(pieces)))
	buf := make([]byte, 32<<10)
	for b.Loop() {
		r := NewReader(`{"config":"`, pieces, `"}`)
		for {
			if _, err := r.Read(buf); err == io.EOF {
				break
			}
		}
	}
}

func BenchmarkAppendContent(b *testing.B) {
	piece := bytes.Repeat([]byte(`{"name":"default.app-01234.80","port":80,"protocol":"http"},`), 1100)
	whole := bytes.Repeat(piece, 180)
	b.SetBytes(int64(len(whole)))
	var out []byte
	for b.Loop() {
		out = AppendContent(out[:0], whole)
	}
}

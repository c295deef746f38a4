package atc

import (
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// gen builds a random tree from fuzz bytes, only of what Parse can read back: fields of the
// grammar, valid UTF-8 strings, ints Kong can hold, masked networks.
type gen struct {
	b     []byte
	depth int
}

func (g *gen) byte() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *gen) matcher() Matcher {
	kind := g.byte() % 8
	if g.depth >= 6 || kind < 4 {
		return g.predicate()
	}
	g.depth++
	defer func() { g.depth-- }()
	if kind == 4 {
		return Not(g.matcher())
	}
	ms := make([]Matcher, 1+int(g.byte()%4))
	for i := range ms {
		ms[i] = g.matcher()
	}
	if kind == 5 || kind == 6 {
		return And(ms...)
	}
	return Or(ms...)
}

func (g *gen) predicate() Matcher {
	fields := [...]Field{FieldHTTPPath, FieldHTTPHost, HeaderField("X-Foo"), QueryField("q"),
		Lower(FieldHTTPMethod), Any(Lower("http.headers.a_b")), FieldTLSSNI}
	ops := [...]Op{OpEqual, OpNotEqual, OpRegexMatch, OpPrefixMatch, OpSuffixMatch, OpContains}
	switch k := g.byte(); k % 5 {
	case 0:
		return Predicate{FieldNetDstPort, [...]Op{OpEqual, OpLess, OpGreaterEqual}[k/5%3], IntValue(int64(g.byte())<<56>>int(g.byte()%64) - 1<<20)}
	case 1:
		var a [16]byte
		copy(a[:], g.take(16))
		return Predicate{FieldNetSrcIP, OpEqual, IPValue(netip.AddrFrom16(a).Unmap())}
	case 2:
		var a [4]byte
		copy(a[:], g.take(4))
		p, _ := netip.AddrFrom4(a).Prefix(int(g.byte() % 33))
		return Predicate{FieldNetDstIP, [...]Op{OpIn, OpNotIn}[k/5%2], CIDRValue(p)}
	case 3:
		return Predicate{Field: fields[k/5%7], Op: ops[k/35%6], Value: StringValue("")}
	}
	s := strings.ToValidUTF8(string(g.take(int(g.byte()%12))), "?")
	return Predicate{Field: fields[g.byte()%7], Op: ops[g.byte()%6], Value: StringValue(s)}
}

func (g *gen) take(n int) []byte {
	n = min(n, len(g.b))
	out := g.b[:n]
	g.b = g.b[n:]
	return out
}

// FuzzRoundTrip: a random tree, rendered, parses back to the same tree and the same text.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("\x05\x02\x04abc\x00\x01\x07\x06\x03\x09"))
	f.Add([]byte("\x07\x03\x04\x04\x00\x02\x05\x05\x01\x16\x02\x00\x00"))
	f.Add([]byte("\x04\x06\x02\x01\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x01\x02\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m := (&gen{b: b}).matcher()
		text := m.Expression()
		got, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("tree of %q differs after the round trip:\n got %#v\nwant %#v", text, got, m)
		}
		if again := got.Expression(); again != text {
			t.Fatalf("rendered %q, then %q", text, again)
		}
	})
}

// FuzzParse: Parse never panics, and what it accepts renders to text that parses to the same
// tree (the canonical form is a fixed point), unless rendering's parentheses nest too deep.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`(http.host == "example.com") && (http.path ~ "^/foo/\\d{3}")`,
		`a == 1 || b in 10.0.0.0/8 && !(lower(c) =^ r#"x"#)`,
		`net.src.ip not in fd00::/8`, `x == 0x1f`, `x == "\t\"\\"`, `((((`, `x == ::ffff:102:304`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T", s, err)
			}
			return
		}
		_ = Check(m)
		_ = CheckIn(SchemaStream, m)
		text := m.Expression()
		again, err := Parse(text)
		if err != nil {
			if strings.Contains(err.Error(), "nested deeper") {
				return
			}
			t.Fatalf("Parse(%q) accepted, its rendering %q not: %v", s, text, err)
		}
		if !reflect.DeepEqual(again, m) || again.Expression() != text {
			t.Fatalf("Parse(%q) rendered %q, which parses to %q", s, text, again.Expression())
		}
	})
}

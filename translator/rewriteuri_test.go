package translator

import "testing"

func TestRewriteURIConfig(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "", want: "/"},
		{in: "/new", want: "/new"},
		{in: "/new/$1", want: "/new/$(uri_captures[1])"},
		{in: "/$1$2", want: "/$(uri_captures[1])$(uri_captures[2])"},
		{in: "/$12/x", want: "/$(uri_captures[12])/x"},
		{in: `/a\$b`, want: "/a$b"},
		{in: `/$1\$`, want: "/$(uri_captures[1])$"},
		{in: "/ü/$1", want: "/ü/$(uri_captures[1])"},
		{in: "/$x", err: "unexpected x at pos 2"},
		{in: `/\x`, err: "unexpected x at pos 2"},
		{in: "/ü$x", err: "unexpected x at pos 4"}, // byte positions, as KIC's
		{in: "/$", err: "unexpected end of string"},
		{in: `/\`, err: "unexpected end of string"},
	} {
		got, err := rewriteURIConfig(c.in)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

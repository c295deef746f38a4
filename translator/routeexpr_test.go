package translator

import (
	"math/rand/v2"
	"testing"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/translator/atc"
)

// TestMatchExprRendersAsATC builds random trees with matchExpr and checks that its direct
// rendering equals translator/atc's rendering of the same tree, and that the text parses back
// to that tree.
func TestMatchExprRendersAsATC(t *testing.T) {
	vals := []string{"/", "/foo", `a"b`, `back\slash`, "tab\there", "", "*.x", "~*re"}
	for seed := range uint64(2000) {
		r := rand.New(rand.NewPCG(seed, 7))
		var m matchExpr
		var grow func(depth int)
		grow = func(depth int) {
			if depth > 3 || r.IntN(3) == 0 {
				if r.IntN(4) == 0 {
					m.num(atc.FieldNetDstPort, atc.OpEqual, r.IntN(65536))
				} else {
					m.str(atc.FieldHTTPPath, []atc.Op{atc.OpEqual, atc.OpPrefixMatch, atc.OpRegexMatch}[r.IntN(3)], vals[r.IntN(len(vals))])
				}
				return
			}
			if r.IntN(2) == 0 {
				m.and()
			} else {
				m.or()
			}
			for range r.IntN(4) {
				grow(depth + 1)
			}
			m.end()
		}
		m.and()
		for range r.IntN(4) {
			grow(1)
		}
		m.end()
		got := string(m.appendTo(nil))
		want := m.matcher().Expression()
		if got != want {
			t.Fatalf("seed %d: matchExpr renders\n%s\natc renders\n%s", seed, got, want)
		}
		if got == "" {
			continue
		}
		back, err := atc.Parse(got)
		if err != nil {
			t.Fatalf("seed %d: %s does not parse: %v", seed, got, err)
		}
		if back.Expression() != got {
			t.Fatalf("seed %d: %s parses back as %s", seed, got, back.Expression())
		}
	}
}

func TestMatchExprSharedMatchers(t *testing.T) {
	var m matchExpr
	m.and()
	m.hosts("example.com", "*.example.net", "xn--bad.com", "a.*")
	m.annotationHeaders(map[string][]string{"X-B": {"1", "~*^v[0-9]$"}, "x-a": {"q"}, "Host": {"h"}})
	m.methods(kong.StringSlice("GET", "POST"))
	m.snis("a.example.com", "*.bad")
	m.protocols("http")
	m.ports(80, 443)
	m.end()
	// Header names in byte order ("Host" skipped, "X-B" before "x-a"), the And of headers
	// nested in the route's And as KIC nests it; the IDNA host and the wildcard SNI left out.
	want := `((http.host == "example.com") || (http.host =^ ".example.net") || (http.host == "a.*")) && ` +
		`(((http.headers.x_b == "1") || (http.headers.x_b ~ "^v[0-9]$")) && (http.headers.x_a == "q")) && ` +
		`((http.method == "GET") || (http.method == "POST")) && (tls.sni == "a.example.com") && ` +
		`(net.protocol == "http") && ((net.dst.port == 80) || (net.dst.port == 443))`
	got := string(m.appendTo(nil))
	if got != want || got != m.matcher().Expression() {
		t.Fatalf("got\n%s\nwant\n%s\natc\n%s", got, want, m.matcher().Expression())
	}
}

func TestKICHost(t *testing.T) {
	for h, want := range map[string]bool{
		"example.com": true, "*.example.com": true, "foo.*": true, "a-b.c": true,
		"a--b.c": false, "xn--x.com": false, "-a.com": false, "a..b": false, "": false, "*": false,
		"*.": false, "a_b.com": false, "A.COM": true, "*.*": false,
	} {
		if got := kicHost(h); got != want {
			t.Errorf("kicHost(%q) = %v, want %v", h, got, want)
		}
	}
}

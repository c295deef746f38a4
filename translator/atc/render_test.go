package atc

import (
	"net/netip"
	"testing"
)

func path(op Op, v string) Predicate {
	return Predicate{Field: FieldHTTPPath, Op: op, Value: StringValue(v)}
}

func host(op Op, v string) Predicate {
	return Predicate{Field: FieldHTTPHost, Op: op, Value: StringValue(v)}
}

func method(v string) Predicate {
	return Predicate{Field: FieldHTTPMethod, Op: OpEqual, Value: StringValue(v)}
}

func TestRender(t *testing.T) {
	proto := func(v string) Predicate {
		return Predicate{Field: FieldNetProtocol, Op: OpEqual, Value: StringValue(v)}
	}
	cases := []struct {
		name string
		m    Matcher
		want string
	}{
		{"predicate", path(OpPrefixMatch, "/foo/"), `http.path ^= "/foo/"`},
		{"header field", Predicate{HeaderField("X-Kong-Test"), OpEqual, StringValue("test")}, `http.headers.x_kong_test == "test"`},
		{"query field keeps case", Predicate{QueryField("Foo-Bar"), OpEqual, StringValue("1")}, `http.queries.Foo-Bar == "1"`},
		{"lower", Predicate{Lower(FieldHTTPMethod), OpEqual, StringValue("get")}, `lower(http.method) == "get"`},
		{"int", Predicate{FieldNetDstPort, OpGreaterEqual, IntValue(1024)}, `net.dst.port >= 1024`},
		{"negative int", Predicate{FieldNetDstPort, OpEqual, IntValue(-3)}, `net.dst.port == -3`},
		{"ip", Predicate{FieldNetSrcIP, OpEqual, IPValue(netip.MustParseAddr("fd00::1"))}, `net.src.ip == fd00::1`},
		{"cidr", Predicate{FieldNetSrcIP, OpNotIn, CIDRValue(netip.MustParsePrefix("10.0.0.0/8"))}, `net.src.ip not in 10.0.0.0/8`},
		{"segments", And(Predicate{FieldHTTPPathSegmentsLen, OpGreater, IntValue(4)},
			Predicate{PathSegmentRangeField(0, 1), OpEqual, StringValue("api/namespaces")},
			Predicate{PathSegmentField(3), OpEqual, StringValue("services")}),
			`(http.path.segments.len > 4) && (http.path.segments.0_1 == "api/namespaces") && (http.path.segments.3 == "services")`},
		{"or", Or(path(OpEqual, "/foo"), path(OpPrefixMatch, "/foo/")), `(http.path == "/foo") || (http.path ^= "/foo/")`},
		{"not", Not(proto("http")), `!(net.protocol == "http")`},
		{"and of or", And(host(OpEqual, "test.konghq.com"), Or(proto("http"), proto("https")), path(OpEqual, "/foo")),
			`(http.host == "test.konghq.com") && ((net.protocol == "http") || (net.protocol == "https")) && (http.path == "/foo")`},
		{"not in and", And(Not(Or(method("CONNECT"), method("OPTIONS"))), path(OpEqual, "/foo/bar")),
			`(!((http.method == "CONNECT") || (http.method == "OPTIONS"))) && (http.path == "/foo/bar")`},
		{"not of or of and", Not(Or(And(host(OpEqual, "foo.konghq.com"), path(OpEqual, "/index.html")), And(host(OpEqual, "bar.konghq.com"), path(OpEqual, "/index")))),
			`!(((http.host == "foo.konghq.com") && (http.path == "/index.html")) || ((http.host == "bar.konghq.com") && (http.path == "/index")))`},
		{"one operand is bare", And(Or(host(OpSuffixMatch, ".konghq.com"))), `http.host =^ ".konghq.com"`},
		{"empty operands dropped", And(path(OpEqual, "/foo"), Predicate{Field: FieldHTTPMethod, Op: OpEqual}, Or(), nil, method("GET")),
			`(http.path == "/foo") && (http.method == "GET")`},
		{"empty and", And(), ""},
		{"empty or of empties", Or(And(), Not(Or())), ""},
		{"not of empty", Not(And()), ""},
		{"empty predicate", Predicate{Field: FieldHTTPPath, Op: OpEqual}, ""},
		{"not not", Not(Not(method("GET"))), `!(!(http.method == "GET"))`},
		{"nested and kept", And(And(method("A"), method("B")), method("C")),
			`((http.method == "A") && (http.method == "B")) && (http.method == "C")`},
	}
	for _, c := range cases {
		if got := c.m.Expression(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if c.m.IsEmpty() != (c.want == "") {
			t.Errorf("%s: IsEmpty = %v", c.name, c.m.IsEmpty())
		}
	}
}

// TestEscaping pins KIC's escaping: backslash, quote, LF, CR and tab only; every other byte,
// control characters and non-ASCII included, is written as it is.
func TestEscaping(t *testing.T) {
	cases := map[string]string{
		``:                `""`,
		`plain`:           `"plain"`,
		`^/foo/\d{3}`:     `"^/foo/\\d{3}"`,
		`say "hi"`:        `"say \"hi\""`,
		`\"`:              `"\\\""`,
		"a\nb\rc\td":      `"a\nb\rc\td"`,
		"nul\x00bel\x07":  "\"nul\x00bel\x07\"",
		"vt\vff\fesc\x1b": "\"vt\vff\fesc\x1b\"",
		"déjà 🦍":          "\"déjà 🦍\"",
		"\\n":             `"\\n"`,
	}
	for in, want := range cases {
		if got := StringValue(in).Literal(); got != want {
			t.Errorf("StringValue(%q).Literal() = %s, want %s", in, got, want)
		}
		m, err := Parse(`http.path == ` + want)
		if err != nil {
			t.Errorf("Parse of %s: %v", want, err)
			continue
		}
		if got := m.(Predicate).Value; got != StringValue(in) {
			t.Errorf("Parse of %s gave %q, want %q", want, got, in)
		}
	}
}

func TestHeaderField(t *testing.T) {
	cases := map[string]Field{
		"X-Kong-Test": "http.headers.x_kong_test",
		"user_agent":  "http.headers.user_agent",
		"ACCEPT":      "http.headers.accept",
	}
	for in, want := range cases {
		if got := HeaderField(in); got != want {
			t.Errorf("HeaderField(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestAccessors(t *testing.T) {
	a, b := method("A"), method("B")
	if ops := And(a, b).(*AndMatcher).Operands(); len(ops) != 2 || ops[0] != a || ops[1] != b {
		t.Errorf("And operands = %v", ops)
	}
	if ops := Or(a, b).(*OrMatcher).Operands(); len(ops) != 2 {
		t.Errorf("Or operands = %v", ops)
	}
	if op := Not(a).(*NotMatcher).Operand(); op != a {
		t.Errorf("Not operand = %v", op)
	}
	var nilAnd *AndMatcher
	if !nilAnd.IsEmpty() || nilAnd.Operands() != nil || Or(nilAnd).Expression() != "" {
		t.Error("a nil *AndMatcher is not empty")
	}
}

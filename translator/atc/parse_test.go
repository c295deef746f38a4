package atc

import (
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseTrees(t *testing.T) {
	a, b, c := method("A"), method("B"), method("C")
	cases := []struct {
		in   string
		want Matcher
	}{
		{`http.method == "A"`, a},
		{" \t\r\nhttp.method==\"A\"\n", a},
		{`http.method == "A" && http.method == "B" && http.method == "C"`, And(a, b, c)},
		// || binds tighter than && in Kong's grammar.
		{`http.method == "A" && http.method == "B" || http.method == "C"`, And(a, Or(b, c))},
		{`http.method == "A" || http.method == "B" && http.method == "C"`, And(Or(a, b), c)},
		{`(http.method == "A" && http.method == "B") || http.method == "C"`, Or(And(a, b), c)},
		{`((http.method == "A"))`, a},
		{`! ( http.method == "A" )`, Not(a)},
		{`!(!(http.method == "A"))`, Not(Not(a))},
		{`lower ( http.method ) == "A"`, Predicate{Lower(FieldHTTPMethod), OpEqual, StringValue("A")}},
		{`any(lower(http.headers.x)) == "A"`, Predicate{Any(Lower("http.headers.x")), OpEqual, StringValue("A")}},
		{`http.path ~ r#"^/a"b\d"#`, Predicate{FieldHTTPPath, OpRegexMatch, StringValue(`^/a"b\d`)}},
		{`net.dst.port == 017`, Predicate{FieldNetDstPort, OpEqual, IntValue(15)}},
		{`net.dst.port == 0x1F`, Predicate{FieldNetDstPort, OpEqual, IntValue(31)}},
		{`net.dst.port == 08`, Predicate{FieldNetDstPort, OpEqual, IntValue(8)}},
		{`net.dst.port == -0x10`, Predicate{FieldNetDstPort, OpEqual, IntValue(-16)}},
		{`net.dst.port == 0`, Predicate{FieldNetDstPort, OpEqual, IntValue(0)}},
		{`net.src.ip == 10.1.2.3`, Predicate{FieldNetSrcIP, OpEqual, IPValue(netip.MustParseAddr("10.1.2.3"))}},
		{`net.src.ip in fd00::/8`, Predicate{FieldNetSrcIP, OpIn, CIDRValue(netip.MustParsePrefix("fd00::/8"))}},
		{`net.src.ip not   in 10.0.0.0/8`, Predicate{FieldNetSrcIP, OpNotIn, CIDRValue(netip.MustParsePrefix("10.0.0.0/8"))}},
		{`net.src.ip == ::1`, Predicate{FieldNetSrcIP, OpEqual, IPValue(netip.MustParseAddr("::1"))}},
		{`http.path contains "x"`, Predicate{FieldHTTPPath, OpContains, StringValue("x")}},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got.Expression(), c.want.Expression())
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		``:                                     "expected a predicate",
		`   `:                                  "expected a predicate",
		`http.path`:                            "expected an operator",
		`http.path ==`:                         "expected a string",
		`http.path == "a`:                      "closing quote",
		`http.path == "a\`:                     "inside an escape",
		`http.path == "\x"`:                    "invalid escape",
		`http.path == r#"a`:                    "raw string",
		`http.path = "a"`:                      "expected an operator",
		`http.path == 'a'`:                     "expected a string",
		`! http.path == "a"`:                   "'!' must be followed",
		`(http.path == "a"`:                    "expected ')'",
		`http.path == "a")`:                    "unexpected",
		`()`:                                   "expected a predicate",
		`http.path == "a" &&`:                  "without a right operand",
		`http.path == "a" || || b == "c"`:      "expected a predicate",
		`http.path == "a" & b == "c"`:          "unexpected",
		`upper(http.path) == "a"`:              "unknown transformation function: upper",
		`lower(http.path == "a"`:               "expected ')'",
		`_x == "a"`:                            "expected a predicate",
		`http.path ~ 1`:                        "regex operator can only be used with String operands",
		`net.dst.port == 99999999999999999999`: "out of range",
		`net.dst.port == -9223372036854775808`: "out of range",
		`net.src.ip == 300.1.1.1`:              "invalid IP address",
		`net.src.ip in 10.0.0.1/8`:             "invalid CIDR",
		`net.src.ip in 10.0.0.0/33`:            "invalid CIDR",
		`net.src.ip == fd00:::1`:               "invalid IP address",
		`net.src.ip == 1.2.3.4.5`:              "unexpected",
		"http.path == \"\xff\"":                "not valid UTF-8",
		`http.path == "a" http.host == "b"`:    "unexpected",
	}
	for in, want := range cases {
		_, err := Parse(in)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want a SyntaxError containing %q", in, err, want)
		}
	}
}

func TestParseBounds(t *testing.T) {
	deep := strings.Repeat("(", MaxDepth) + `http.path == "a"` + strings.Repeat(")", MaxDepth)
	if _, err := Parse(deep); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	if _, err := Parse("(" + deep + ")"); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
	lhs := strings.Repeat("lower(", MaxDepth+1) + "http.path" + strings.Repeat(")", MaxDepth+1)
	if _, err := Parse(lhs + ` == "a"`); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep transformations: %v", err)
	}
	long := `http.path == "` + strings.Repeat("a", MaxExpressionLen) + `"`
	if _, err := Parse(long); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("too long: %v", err)
	}
}

// TestParseHostileIsLinear feeds inputs of about MaxExpressionLen bytes shaped to make a naive
// parser backtrack or recurse; each must be answered quickly.
func TestParseHostileIsLinear(t *testing.T) {
	n := MaxExpressionLen / 8
	inputs := map[string]string{
		"parens":       strings.Repeat("(", n*8),
		"bangs":        strings.Repeat("!(", n*4),
		"or chain":     strings.Repeat(`http.path == "a" || `, n/3) + `http.path == "a"`,
		"and chain":    strings.Repeat(`(http.path == "a") && `, n/3) + `http.path == "a"`,
		"colons":       `net.src.ip == ` + strings.Repeat(":", n*7),
		"hex groups":   `net.src.ip == ` + strings.Repeat("ffff:", n),
		"dotted":       `net.src.ip == ` + strings.Repeat("1.", n*3),
		"digits":       `net.dst.port == ` + strings.Repeat("7", n*7),
		"string":       `http.path == "` + strings.Repeat(`\"`, n*3),
		"raw string":   `http.path == r#"` + strings.Repeat(`"`, n*7),
		"ident":        strings.Repeat("a", n*8-1),
		"not not":      `net.src.ip ` + strings.Repeat("not ", n*2),
		"transform ws": "lower" + strings.Repeat(" ", n*7),
	}
	for name, in := range inputs {
		start := time.Now()
		_, _ = Parse(in)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s (%d bytes) took %v", name, len(in), d)
		}
	}
}

package atc

import (
	"net/netip"
	"strings"
	"testing"
)

// TestCheckParsed checks parsed expressions against the HTTP schema ("" = accepted), with
// atc-router 1.6.2's messages where it has one.
func TestCheckParsed(t *testing.T) {
	cases := map[string]string{
		`http.path == "/a"`:                             "",
		`http.path ~ "^/a\\d+$"`:                        "",
		`http.path =^ ".html"`:                          "",
		`http.path contains "x"`:                        "",
		`http.path != "x"`:                              "",
		`lower(http.host) == "a"`:                       "",
		`any(http.headers.x_a) == "a"`:                  "",
		`http.headers.x_foo ~ "a"`:                      "",
		`http.queries.foo == "1"`:                       "",
		`http.path.segments.len > 4`:                    "",
		`http.path.segments.0_1 == "a/b"`:               "",
		`http.path.segments.3 == "a"`:                   "",
		`net.dst.port == 80 && net.src.port < 1024`:     "",
		`net.src.ip in 10.0.0.0/8 && net.dst.ip == ::1`: "",
		`net.src.ip not in fd00::/8`:                    "",
		`tls.sni == "a" || net.protocol == "https"`:     "",
		`!(http.method == "GET")`:                       "",
		`http.foo == "a"`:                               errUnknownField,
		`http.headers.a.b == "a"`:                       errUnknownField,
		`net.port == 80`:                                errUnknownField,
		`http.path == 1`:                                errTypeMismatch,
		`net.dst.port == "80"`:                          errTypeMismatch,
		`net.src.ip == 10.0.0.0/8`:                      errTypeMismatch,
		`net.src.ip == "10.0.0.1"`:                      errTypeMismatch,
		`lower(net.dst.port) == 1`:                      errLowerOnlyString,
		`net.dst.port ~ "1"`:                            errRegexOnlyString,
		`net.dst.port ^= 1`:                             errPrefixOnlyString,
		`net.src.ip =^ 10.0.0.1`:                        errPrefixOnlyString,
		`http.path > "a"`:                               errOrderOnlyInt,
		`http.path in "a"`:                              errInOnlyCIDR,
		`net.src.ip in 10.0.0.1`:                        errInOnlyCIDR,
		`net.dst.port not in 10.0.0.0/8`:                errInOnlyCIDR,
		`net.dst.port contains 1`:                       errContainsOnlyStr,
		`http.path ~ "(a"`:                              "missing closing )",
		`http.path.segments.01 == "a"`:                  errIllformedPathSegmentsField,
		`http.path.segments.1_1 == "a"`:                 errIllformedPathSegmentsField,
		`http.path.segments.2_1 == "a"`:                 errIllformedPathSegmentsField,
		`http.path.segments.0_0 == "a"`:                 errIllformedPathSegmentsField,
		`http.path.segments.x == "a"`:                   errIllformedPathSegmentsField,
		`http.path == "a" && http.bogus == "b"`:         errUnknownField,
	}
	for in, want := range cases {
		m, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		err = Check(m)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Check(%q) = %v, want %q", in, err, want)
		}
	}
}

// TestCheckStream: stream routes (tcp, tls, udp, tls_passthrough) have only net.* and tls.sni.
func TestCheckStream(t *testing.T) {
	for in, ok := range map[string]bool{
		`net.dst.port == 1025`:               true,
		`tls.sni == "a.example"`:             true,
		`net.src.ip in 10.0.0.0/8`:           true,
		`net.protocol == "tcp"`:              true,
		`http.path == "/"`:                   false,
		`http.headers.x == "a"`:              false,
		`http.path.segments.len == 1`:        false,
		`tls.sni == "a" && http.host == "b"`: false,
	} {
		m, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckIn(SchemaStream, m); (err == nil) != ok {
			t.Errorf("CheckIn(stream, %q) = %v", in, err)
		}
	}
	for proto, want := range map[string]Schema{"http": SchemaHTTP, "grpcs": SchemaHTTP, "tcp": SchemaStream, "tls_passthrough": SchemaStream} {
		if s, ok := SchemaFor(proto); !ok || s != want {
			t.Errorf("SchemaFor(%s) = %v, %v", proto, s, ok)
		}
	}
	if _, ok := SchemaFor("ws"); ok {
		t.Error("SchemaFor(ws) ok")
	}
}

// TestCheckBuilt covers what only a tree built in code can hold.
func TestCheckBuilt(t *testing.T) {
	cases := map[string]Matcher{
		"empty":              And(),
		"not an identifier":  Predicate{HeaderField("a:b"), OpEqual, StringValue("x")},
		"bad transformation": Predicate{Field("upper(http.path)"), OpEqual, StringValue("x")},
		"host bits":          Predicate{FieldNetSrcIP, OpIn, CIDRValue(netip.PrefixFrom(netip.MustParseAddr("10.0.0.1"), 8))},
		"zero address":       Predicate{FieldNetSrcIP, OpEqual, IPValue(netip.Addr{})},
		"zone":               Predicate{FieldNetSrcIP, OpEqual, IPValue(netip.MustParseAddr("fe80::1%eth0"))},
		"not UTF-8":          Predicate{FieldHTTPPath, OpEqual, StringValue("\xff")},
		"unknown operator":   Predicate{FieldHTTPPath, Op("=~"), StringValue("x")},
		"deep":               deepNot(MaxDepth + 2),
		"inside and":         And(method("GET"), Predicate{FieldNetDstPort, OpEqual, StringValue("80")}),
	}
	for name, m := range cases {
		if err := Check(m); err == nil {
			t.Errorf("%s: Check(%s) accepted", name, m.Expression())
		}
	}
	if err := Check(deepNot(MaxDepth)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	if err := Check(&Predicate{FieldHTTPPath, OpEqual, StringValue("/")}); err != nil {
		t.Errorf("*Predicate: %v", err)
	}
}

func deepNot(n int) Matcher {
	var m Matcher = method("GET")
	for range n {
		m = Not(m)
	}
	return m
}

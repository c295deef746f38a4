package translator

import (
	"reflect"
	"testing"
)

func TestSplitList(t *testing.T) {
	cases := map[string][]string{
		"":              nil,
		"  ":            nil,
		"a":             {"a"},
		" a , b ,,c ":   {"a", "b", "c"},
		",,":            {},
		"team-a,team-a": {"team-a", "team-a"},
	}
	for in, want := range cases {
		got := splitList(in)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("splitList(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseBools(t *testing.T) {
	strict := []struct {
		in   string
		want bool
		ok   bool
	}{{"true", true, true}, {"TRUE", true, true}, {"False", false, true}, {"1", false, false}, {"yes", false, false}, {"", false, false}}
	for _, c := range strict {
		got, err := parseStrictBool(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseStrictBool(%q) = %v, %v", c.in, got, err)
		}
	}
	loose := []struct {
		in   string
		want bool
		ok   bool
	}{{"true", true, true}, {"T", true, true}, {"1", true, true}, {"0", false, true}, {"FALSE", false, true}, {"nope", false, false}}
	for _, c := range loose {
		got, err := parseLooseBool(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseLooseBool(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestParseIntegers(t *testing.T) {
	cases := []struct {
		in     string
		lo, hi int
		want   int
		ok     bool
	}{
		{"5000", 1, maxTimeout, 5000, true},
		{"0", 1, maxTimeout, 0, false},
		{"-1", 0, maxRetries, 0, false},
		{"32767", 0, maxRetries, 32767, true},
		{"32768", 0, maxRetries, 0, false},
		{"10s", 1, maxTimeout, 0, false},
		{"", 0, 64, 0, false},
	}
	for _, c := range cases {
		got, err := parseIntRange(c.in, c.lo, c.hi)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseIntRange(%q, %d, %d) = %v, %v", c.in, c.lo, c.hi, got, err)
		}
	}
	for in, ok := range map[string]bool{"301": true, "302": true, "307": true, "308": true, "426": true, "303": false, "x": false} {
		if _, err := parseRedirectCode(in); (err == nil) != ok {
			t.Errorf("parseRedirectCode(%q) error = %v", in, err)
		}
	}
}

func TestParseLists(t *testing.T) {
	type parser func(string) ([]string, error)
	cases := []struct {
		name string
		fn   parser
		in   string
		want []string
		ok   bool
	}{
		{"protocols", parseProtocols, "https, http", []string{"https", "http"}, true},
		{"protocols", parseProtocols, "grpc,grpcs,ws,wss,tls,tcp,tls_passthrough", []string{"grpc", "grpcs", "ws", "wss", "tls", "tcp", "tls_passthrough"}, true},
		{"protocols", parseProtocols, "http,udp", nil, false},
		{"methods", parseMethods, "get, Post", []string{"GET", "POST"}, true},
		{"methods", parseMethods, "GET,P0ST", nil, false},
		{"snis", parseSNIs, "a.example.com, b-c.example.com", []string{"a.example.com", "b-c.example.com"}, true},
		{"snis", parseSNIs, "*.example.com", nil, false},
		{"snis", parseSNIs, "", nil, true},
		{"aliases", parseHostAliases, "*.example.com, example.*, a.b", []string{"*.example.com", "example.*", "a.b"}, true},
		{"aliases", parseHostAliases, "under_score.com", nil, false},
	}
	for _, c := range cases {
		got, err := c.fn(c.in)
		if (err == nil) != c.ok {
			t.Errorf("%s(%q) error = %v, want ok=%v", c.name, c.in, err, c.ok)
			continue
		}
		if c.ok && len(c.want) > 0 && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestParseMisc(t *testing.T) {
	for in, ok := range map[string]bool{"v0": true, "v1": true, "v2": false, "xv1": false, "": false} {
		if _, err := parsePathHandling(in); (err == nil) != ok {
			t.Errorf("parsePathHandling(%q) error = %v", in, err)
		}
	}
	for in, ok := range map[string]bool{"/": true, "/api": true, "api": false, "": false} {
		if _, err := parseServicePath(in); (err == nil) != ok {
			t.Errorf("parseServicePath(%q) error = %v", in, err)
		}
	}
	if got := splitHeaderValues("a, b ,c", ","); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("splitHeaderValues = %q", got)
	}
	if got := splitHeaderValues("a,b; c", ";"); !reflect.DeepEqual(got, []string{"a,b", "c"}) {
		t.Errorf("splitHeaderValues with ; = %q", got)
	}
	refs := parsePluginRefs("a, other:b,,:c,d:, :e, ns : f ", "ns")
	want := []pluginRef{{"ns", "a", false}, {"other", "b", true}, {"ns", "e", false}, {"ns", "f", true}}
	if !reflect.DeepEqual(refs, want) {
		t.Errorf("parsePluginRefs = %+v, want %+v", refs, want)
	}
}

func TestFieldLess(t *testing.T) {
	ordered := []string{
		"data",
		"metadata.annotations[konghq.com/path]",
		"spec.rules[0].http.paths[2].path",
		"spec.rules[0].http.paths[9].pathType",
		"spec.rules[0].http.paths[10].path",
		"spec.rules[1].http.paths[0].path",
		"spec.rules[10]",
		"spec.tls[0]",
	}
	for i := range ordered {
		for j := range ordered {
			if got := fieldLess(ordered[i], ordered[j]); got != (i < j) {
				t.Errorf("fieldLess(%q, %q) = %v", ordered[i], ordered[j], got)
			}
		}
	}
}

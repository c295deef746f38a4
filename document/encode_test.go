package document

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kong/go-kong/kong"
	"gopkg.in/yaml.v3"
)

// sample is a document exercising what the encoders must get right: nesting, multi-line PEM
// strings (literal block style), strings YAML would read as other types, large integers,
// floats, empty and nested maps, and every top-level list.
func sample() *Document {
	s, i, b := kong.String, kong.Int, kong.Bool
	pem := "-----BEGIN CERTIFICATE-----\nMIIB\nAAAA\n-----END CERTIFICATE-----\n"
	d := New()
	d.CACertificates = []*kong.CACertificate{{ID: s("ca1"), Cert: s(pem), Tags: []*string{s("k8s-name:ca")}}}
	d.Certificates = []*Certificate{{ID: s("c1"), Cert: s(pem), Key: s(strings.TrimSuffix(pem, "\n")),
		SNIs: []*SNI{{Name: s("a.example"), Certificate: &CertificateRef{ID: s("c1")}}}}}
	d.Consumers = []*Consumer{{Consumer: kong.Consumer{Username: s("yes"), CustomID: s("0123")}}}
	d.Plugins = []*Plugin{{Plugin: kong.Plugin{Name: s("cors"), Config: kong.Configuration{
		"origins": []any{"*", "null"}, "max_age": 3600, "credentials": true, "nested": map[string]any{"z": 1.5, "a": nil},
		"empty": map[string]any{}, "weird key: x": "<&>",
	}}}, {Plugin: kong.Plugin{Name: s("key-auth"), Route: &kong.Route{Name: s("ns.svc-a.80.r")},
		Consumer: &kong.Consumer{Username: s("yes")}, Enabled: b(false)}}}
	for _, name := range []string{"ns.svc-b.80", "ns.svc-a.80"} {
		d.Services = append(d.Services, &Service{
			Service: kong.Service{Name: s(name), Host: s(name + ".svc"), Port: i(80), Protocol: s("http"),
				ReadTimeout: i(1000000), Retries: i(5), Enabled: b(true), Tags: []*string{s("true"), s("1e3"), s("~")}},
			Routes: []*Route{{Route: kong.Route{Name: s(name + ".r"), Paths: []*string{s("~/$"), s("/x: y")},
				Hosts: []*string{s("a.example")}, PreserveHost: b(true), StripPath: b(false), RegexPriority: i(0),
				Headers: map[string][]string{"X-B": {"2"}, "X-A": {"1"}}}}},
		})
	}
	d.Upstreams = []*Upstream{{Upstream: kong.Upstream{Name: s("u.svc"), Slots: i(10000)},
		Targets: []*kong.Target{{Target: s("10.0.0.2:8080"), Weight: i(100)}, {Target: s("[fd00::1]:80"), Weight: i(0)}}}}
	return d
}

// referenceYAML is the straightforward encoding (one encoder for the whole tree) that YAML must
// reproduce byte for byte; it is too slow for large documents but is the definition.
func referenceYAML(t *testing.T, d *Document) []byte {
	t.Helper()
	js, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(js, &tree); err != nil {
		t.Fatal(err)
	}
	b, err := yamlEncode(tree)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestYAMLEqualsSingleEncode(t *testing.T) {
	docs := map[string]*Document{"sample": sample(), "empty": New(), "services only": {FormatVersion: FormatVersion, Services: sample().Services}}
	for name, d := range docs {
		t.Run(name, func(t *testing.T) {
			got, err := YAML(d)
			if err != nil {
				t.Fatal(err)
			}
			if want := referenceYAML(t, d); !bytes.Equal(got, want) {
				t.Fatalf("YAML differs from the single-encoder output:\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

func TestYAMLKeysSortedAndLiteralPEM(t *testing.T) {
	got, err := YAML(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{"_format_version: \"3.0\"\nca_certificates:\n", "cert: |\n", "key: |-\n", "services:\n  - enabled: true\n", "- \"true\"\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("YAML lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "name: ns.svc-b.80") > strings.Index(s, "name: ns.svc-a.80") {
		t.Error("encoders must keep the translator's list order")
	}
}

// TestJSONAndYAMLSameTree decodes both encodings and compares the trees, so that a dump (YAML)
// shows exactly what the sync loop posts (JSON).
func TestJSONAndYAMLSameTree(t *testing.T) {
	d := sample()
	js, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	ym, err := YAML(d)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(ym, &fromYAML); err != nil {
		t.Fatal(err)
	}
	// YAML decodes integers as int, JSON as float64: compare through one JSON normalisation.
	norm, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var fromYAMLNorm any
	if err := json.Unmarshal(norm, &fromYAMLNorm); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromYAMLNorm) {
		t.Fatalf("trees differ:\njson %v\nyaml %v", fromJSON, fromYAMLNorm)
	}
}

func TestJSONStable(t *testing.T) {
	d := New()
	d.Services = []*Service{{Service: kong.Service{Name: kong.String("a<b>&c"), Port: kong.Int(80)},
		Routes: []*Route{{Route: kong.Route{Name: kong.String("r"), Paths: []*string{kong.String("/")}}}}}}
	want := `{"_format_version":"3.0","services":[{"name":"a<b>&c","port":80,"routes":[{"name":"r","paths":["/"]}]}]}`
	for range 3 {
		got, err := JSON(d)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("JSON = %s\nwant  %s", got, want)
		}
	}
	if got, _ := JSON(New()); string(got) != `{"_format_version":"3.0"}` {
		t.Fatalf("empty document: %s", got)
	}
	if Hash([]byte(`{"_format_version":"3.0"}`)) == EmptyHash || len(Hash(nil)) != 32 {
		t.Fatal("Hash must be a 32-digit md5 hex digest")
	}
}

// fastOnly renders d with the fast emitter alone, failing where it would fall back.
func fastOnly(t testing.TB, d *Document) []byte {
	t.Helper()
	js, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	root, err := parseJSONTree(js)
	if err != nil {
		t.Fatal(err)
	}
	e := &yamlEmitter{}
	if err := e.mapping(root, 0, false); err != nil {
		t.Fatalf("fast emitter: %v", err)
	}
	return e.out
}

func TestFastEmitterCoversSample(t *testing.T) {
	d := sample()
	d.Plugins = nil // "weird key: x" and "<&>" are fine, but the plugin's nested null and float go through too
	if got, want := fastOnly(t, d), referenceYAML(t, d); !bytes.Equal(got, want) {
		t.Fatalf("fast emitter differs:\n--- got\n%s\n--- want\n%s", got, want)
	}
}

// scalarDoc puts s where a config can hold a string: a value, a key, a list item.
func scalarDoc(s string) *Document {
	d := New()
	d.Plugins = []*Plugin{{Plugin: kong.Plugin{Name: kong.String("p"), Config: kong.Configuration{"v": s, s: 1, "l": []any{s, map[string]any{"x": s}}}}}}
	return d
}

func checkScalar(t *testing.T, s string) {
	t.Helper()
	d := scalarDoc(s)
	got, err := YAML(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := referenceYAML(t, d); !bytes.Equal(got, want) {
		t.Fatalf("string %q:\n--- got\n%s\n--- want\n%s", s, got, want)
	}
}

func TestYAMLScalarStyles(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", "yes", "No", "~", "~/$", "null", "1", "-1", "+1", "0x1F", "0o17", "012", "1_000", "1.5", ".5", "1e3", "1e999",
		".inf", "-.inf", ".nan", ".foo", "1:20", "10.0.0.2:8080", "2025-01-01", "2025-13-99x", "0b101", "0b12", "-0b1", "0b-1", "-0b-1", "0b", "0b87068c-d7d7-5890-94b7-e47d2e96dd5a",
		"a: b", "a:b", "a #b", "a#b", "#a", "- a", "-a", "-", "? a", "?a", ": a", ":a", "a:", "---", "--- a", "...",
		"'", "'a'", "\"", "a\"b", "a\\b", "*", "&a", "!a", "|", ">", "%", "@", "`", "[a]", "{a}", ",", " a", "a ",
		"<<", "<&>", "http://x/y?z=1#f", "caf\u00e9", "tab\there", "a\nb", "a\nb\n", "a\n\nb\n", " a\nb", "a \nb",
		"a\n b\n", "a\nb ", "\n", "a\n", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
		strings.Repeat("k", 129), "X-Header", "Z_a", "a1", "a10", "a9",
	} {
		checkScalar(t, s)
	}
}

func FuzzYAMLScalar(f *testing.F) {
	for _, s := range []string{"a", "1", "a: b", "a\nb\n", "~/$", "10.0.0.2:8080", "'x'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // encoding/json replaces invalid UTF-8; both sides would see the replacement
		}
		checkScalar(t, s)
	})
}

func TestYAMLKeyOrder(t *testing.T) {
	keys := []string{"b", "a", "_x", "a_b", "ab", "a10", "a9", "a09", "A", "Z", "z", "x-1", "x_1", "x1", "1", "10", "2", "a0", "a00"}
	conf := kong.Configuration{}
	for i, k := range keys {
		conf[k] = i
	}
	d := New()
	d.Plugins = []*Plugin{{Plugin: kong.Plugin{Config: conf}}}
	got, _ := YAML(d)
	if want := referenceYAML(t, d); !bytes.Equal(got, want) {
		t.Fatalf("--- got\n%s\n--- want\n%s", got, want)
	}
	if !bytes.Equal(fastOnly(t, d), got) {
		t.Fatal("key order must not need the slow path")
	}
}

// TestJSONEqualsWholeEncode checks the parallel, per-item JSON against encoding/json's encoding
// of the whole document, for every list field of Document (a field added later is covered too).
func TestJSONEqualsWholeEncode(t *testing.T) {
	big := sample()
	for i := range 500 {
		big.Services = append(big.Services, &Service{Service: kong.Service{Name: kong.String(strings.Repeat("s", i%7) + "<&>")}})
	}
	big.Services[3].ClientCertificate = &kong.Certificate{ID: kong.String("cert-id")}
	big.Services[4].ClientCertificate = &kong.Certificate{}
	big.Services = append(big.Services, nil)
	full := reflect.ValueOf(big).Elem()
	for i := range full.NumField() {
		f := full.Field(i)
		if f.Kind() == reflect.Slice && f.Len() == 0 {
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			f.Index(0).Set(reflect.New(f.Type().Elem().Elem()))
		}
	}
	for name, d := range map[string]*Document{"sample": sample(), "empty": New(), "every list": big} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
		got, err := JSON(d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, appendYAMLSafe(nil, bytes.TrimSuffix(want.Bytes(), []byte("\n")))) {
			t.Fatalf("%s: JSON differs from encoding/json:\n got %s\nwant %s", name, got, want.Bytes())
		}
	}
}

func toAny(t *testing.T, v *jval) any {
	switch v.kind {
	case 'o':
		m := map[string]any{}
		for i, k := range v.keys {
			m[k] = toAny(t, v.vals[i])
		}
		return m
	case 'a':
		l := []any{}
		for _, it := range v.items {
			l = append(l, toAny(t, it))
		}
		return l
	case 's':
		return v.str
	case 'n':
		var f float64
		if err := json.Unmarshal([]byte(v.str), &f); err != nil {
			t.Fatal(err)
		}
		return f
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
}

func TestParseJSONTree(t *testing.T) {
	for _, in := range []string{
		`{"a":[{"b":[1,2,{"c":[]}],"d":{}},[],[[1],[2,[3]]]],"e":"x\"y\u00e9","f":null,"g":true,"h":-1.5e3}`,
		`[]`, `[{"a":[{"b":{"c":[{"d":1},{"e":[2,3]}]}}]},{"f":4}]`, ` {"a" : [ 1 , "2" ] } `,
	} {
		root, err := parseJSONTree([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var want any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if got := toAny(t, root); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %v\nwant %v", in, got, want)
		}
		if string(root.raw) != strings.TrimSpace(in) {
			t.Fatalf("raw = %s", root.raw)
		}
	}
	for _, bad := range []string{`{"a":}`, `[1,`, `{"a" 1}`, `{"a":1}x`, `tru`} {
		if _, err := parseJSONTree([]byte(bad)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

// TestPluginReferencesAsNames: top-level plugins name their route, service, consumer and
// consumer group with one string, as decK's file format and KIC do.
func TestPluginReferencesAsNames(t *testing.T) {
	s := kong.String
	p := &Plugin{Plugin: kong.Plugin{Name: s("acl"), Service: &kong.Service{Name: s("svc")},
		Route: &kong.Route{ID: s("r-id")}, Consumer: &kong.Consumer{CustomID: s("c1")},
		ConsumerGroup: &kong.ConsumerGroup{Name: s("g")}}}
	b, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"acl","consumer":"c1","consumer_group":"g","route":"r-id","service":"svc"}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}

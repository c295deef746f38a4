package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/kong/go-kong/kong"
)

// fill sets every exported field reachable from v (pointers allocated, slices and maps given
// two elements, nil entries included where the element is a pointer) so that no field is
// omitted; depth bounds recursion through self-referencing types. Strings alternate between
// plain values and ones that need escaping.
func fill(v reflect.Value, depth int, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		if depth > 3 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1, n)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth, n)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), depth, n)
		if s.Index(1).Kind() != reflect.Pointer {
			fill(s.Index(1), depth, n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth, n)
		fill(e, depth, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		if *n%3 == 0 {
			v.SetString(fmt.Sprintf("s%d <&> \"q\" \\ \n \u2028 é", *n))
		} else {
			v.SetString(fmt.Sprintf("s%d", *n))
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*n) * 1000003)
	case reflect.Uint64, reflect.Uint, reflect.Uint32:
		v.SetUint(uint64(*n) * 1000003)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(*n%2 == 0)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any%d", *n)))
	}
}

func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestFastStringsMatchEncodingJSON compares the fast writer's strings with encoding/json's,
// those it escapes itself (quotes, backslashes) and those it hands to encoding/json.
func TestFastStringsMatchEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `(http.host == "a.example") && (http.path ~ "^/a\\.b")`, `"`, `\`, `a"b\\c"`,
		"tab\there", "<&>", "caf\u00e9", "\u2028", "\x7f", "bad \xff utf-8", `end\`} {
		var e fastState
		if got, want := appendString(nil, &e, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

// TestFastJSONMatchesEncodingJSON compares appendFast with encoding/json on fully filled,
// empty and partly filled services, upstreams and plugins, so that every field of go-kong's
// Service, Route, Upstream, Target and Plugin, and of this package's wrappers, is covered.
func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	n := 0
	full := func(v any) any { fill(reflect.ValueOf(v).Elem(), 0, &n); return v }
	noCertID := full(&Service{}).(*Service)
	noCertID.ClientCertificate.ID = nil
	items := map[string]any{
		"full service":             full(&Service{}),
		"full upstream":            full(&Upstream{}),
		"empty service":            &Service{},
		"empty upstream":           &Upstream{},
		"service, cert without id": noCertID,
		"nil route and target":     &Upstream{Targets: []*kong.Target{nil, {Target: kong.String("a:1")}}},
		"service with nil route":   &Service{Routes: []*Route{nil}, Service: kong.Service{Name: kong.String("x")}},
		"full plugin":              full(&Plugin{}),
		"empty plugin":             &Plugin{},
		"plugin, references by id": &Plugin{Plugin: kong.Plugin{Name: kong.String("p"),
			Route: &kong.Route{ID: kong.String("r")}, Service: &kong.Service{ID: kong.String("s")},
			Consumer: &kong.Consumer{ID: kong.String("c")}, ConsumerGroup: &kong.ConsumerGroup{ID: kong.String("g")}}},
		"plugin, empty references": &Plugin{Plugin: kong.Plugin{Route: &kong.Route{}, Consumer: &kong.Consumer{CustomID: kong.String("x")}}},
	}
	for name, it := range items {
		got, ok, err := appendFast(nil, it)
		if !ok || err != nil {
			t.Fatalf("%s: ok=%v err=%v", name, ok, err)
		}
		if want := encodingJSON(t, it); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	if _, ok, _ := appendFast(nil, &kong.Plugin{}); ok {
		t.Error("appendFast must decline types it does not know")
	}
	if _, ok, _ := appendFast(nil, (*Service)(nil)); ok {
		t.Error("appendFast must decline nil items (encoding/json writes null)")
	}
}

// TestPlainString checks plainString's word-at-a-time test against the byte-by-byte rule:
// every byte value at every position of strings around the word size, next to plain bytes
// and to the bytes whose neighbours a carry or borrow could disturb.
func TestPlainString(t *testing.T) {
	plain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']', 0x1f, 0x7f, 0x80, 0xff} {
		for n := 0; n <= 19; n++ {
			for at := 0; at < n; at++ {
				for c := 0; c < 256; c++ {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					if got, want := plainString(string(b)), plain(string(b)); got != want {
						t.Fatalf("plainString(%q) = %v, want %v", b, got, want)
					}
				}
			}
		}
	}
}

package document

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"
)

// withCustomSample is sample() with two custom entity types: one sorting before every
// Document key but _format_version, one between plugins and services.
func withCustomSample() *Document {
	d := sample()
	d.CustomEntities = []*CustomEntities{
		{Type: "degraphql_routes", Entities: []*CustomEntity{
			NewCustomEntity([]byte(`{"query":"query{ a }","service":{"id":"9e262d22-26f2-5bcb-8d57-c5229fb8c5a2"},"uri":"/a"}`), "ns", "ce1"),
			NewCustomEntity([]byte(`{"query":"q","uri":"/b\u007f","n":12345678901234567890}`), "ns", "ce2"),
		}},
		{Type: "empty_list"},
		{Type: "rl_decorations", Entities: []*CustomEntity{NewCustomEntity([]byte(`{"type_path":"Query.x","add_constant":1.5}`), "ns", "ce3")}},
	}
	return d
}

// TestCustomEntitiesEncoded: each custom type is a top-level key in key order (an empty list is
// left out), its entities as given; the cache, YAML and EncodeConfig agree with JSON, and a
// document holding only custom entities is not empty.
func TestCustomEntitiesEncoded(t *testing.T) {
	d := withCustomSample()
	js, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := "_format_version ca_certificates certificates consumers degraphql_routes plugins rl_decorations services upstreams"
	if strings.Join(keys, " ") != want {
		t.Errorf("keys %v, want %s", keys, want)
	}
	if !bytes.Contains(js, []byte(`"degraphql_routes":[{"query":"query{ a }","service":{"id":"9e262d22-26f2-5bcb-8d57-c5229fb8c5a2"},"uri":"/a"},`)) ||
		!bytes.Contains(js, []byte(`"n":12345678901234567890`)) {
		t.Errorf("custom entities not written as given: %s", js)
	}
	c := NewJSONCache()
	checkEncode(t, c, d, "custom cold")
	checkEncode(t, c, d, "custom warm")
	d2 := *d
	d2.CustomEntities = d.CustomEntities[:1]
	checkEncode(t, c, &d2, "one custom type")
	got, err := YAML(d)
	if err != nil {
		t.Fatal(err)
	}
	if ref := referenceYAML(t, d); !bytes.Equal(got, ref) {
		t.Fatalf("YAML differs:\n--- got\n%s\n--- want\n%s", got, ref)
	}
	only := New()
	only.CustomEntities = []*CustomEntities{{Type: "x", Entities: []*CustomEntity{NewCustomEntity([]byte(`{}`), "a", "b")}}}
	if IsEmpty(only) || !IsEmpty(New()) {
		t.Error("a document holding only custom entities is not empty; one holding nothing is")
	}
	only.Plugins = []*Plugin{{Plugin: kong.Plugin{Name: kong.String("cors")}}}
	if js, err := JSON(only); err != nil || string(js) != `{"_format_version":"3.0","plugins":[{"name":"cors"}],"x":[{}]}` {
		t.Errorf("JSON %s (%v)", js, err)
	}
}

package document

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kong/go-kong/kong"
	"gopkg.in/yaml.v3"
	k8syaml "sigs.k8s.io/yaml"
)

// trickyStrings are keys and values YAML 1.1 or 1.2 readers would read as something else if
// written plain: merge and value keys, booleans and nulls of both versions, numbers of every
// base, sexagesimals, timestamps, indicators, leading and trailing blanks, tabs, control and
// format characters, line breaks and a key long enough to need "? " explicit syntax.
var trickyStrings = []string{
	"<<", "=", "y", "Y", "n", "N", "yes", "No", "on", "OFF", "true", "False", "~", "null", "Null", "NULL", "",
	"0", "-0", "+1", "012", "0o17", "0x1F", "0b101", "1_000", "1e3", "1.5", ".5", "-.5", "1.", "+.inf", ".NaN",
	"1:20", "190:20:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
	"-", "?", ":", "#", "!", "&", "*", "|", ">", "%", "@", "`", ",", "[", "]", "{", "}", "'", "\"", "\\",
	"- a", "? a", ": a", "a: b", "a #b", "a:", "!tag", "&anchor", "*alias", "|-", ">+", "%YAML", "@x", "`x`",
	"---", "...", "--- a", " ", " a", "a ", "\t", "a\tb", "\ta", "a\t", "x\x00y", "\x1b[2J", "\r", "a\rb",
	"\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "a\u202eb", "\u2066", "café", "日本", "☃",
	"a\nb", "a\nb\n", "a\n\nb\n", "\n", " a\nb", "a \nb", "a\n b\n", "-----BEGIN KEY-----\nabc\n-----END KEY-----\n",
	strings.Repeat("k", 129), strings.Repeat("long key ", 200),
}

// randomString mixes tricky strings and characters into one.
func randomString(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		return trickyStrings[rng.IntN(len(trickyStrings))]
	}
	const alphabet = "ab01:#-?&*!|>'\"%@`,[]{} \t\n\r\\.+_=<~\x1b\x7f"
	var b strings.Builder
	for range rng.IntN(8) {
		if rng.IntN(6) == 0 {
			b.WriteString(trickyStrings[rng.IntN(len(trickyStrings))])
			continue
		}
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// randomConfig is a plugin config of strings, nested maps and lists of strings.
func randomConfig(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range 1 + rng.IntN(5) {
		k := randomString(rng)
		switch {
		case depth > 0 && rng.IntN(4) == 0:
			m[k] = randomConfig(rng, depth-1)
		case rng.IntN(5) == 0:
			m[k] = []any{randomString(rng), randomString(rng)}
		default:
			m[k] = randomString(rng)
		}
	}
	return m
}

// roundTrip encodes config as a plugin's, as YAML and as JSON, decodes each with yaml.v3 (YAML
// 1.2) and sigs.k8s.io/yaml (YAML 1.1, what kubectl and most Go tools read), and wants config
// back, string for string.
func roundTrip(t *testing.T, config map[string]any) {
	t.Helper()
	d := New()
	d.Plugins = []*Plugin{{Plugin: kong.Plugin{Name: kong.String("p"), Config: kong.Configuration(config)}}}
	ym, err := YAML(d)
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	js, err := JSON(d)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var fromJSON map[string]any
	if err := json.Unmarshal(js, &fromJSON); err != nil || !reflect.DeepEqual(pluginConfig(fromJSON), config) {
		t.Fatalf("encoding/json reads the JSON differently (%v):\n%s", err, short(js))
	}
	encodings := []struct {
		name string
		b    []byte
	}{{"YAML", ym}, {"JSON", js}}
	if longestKey(config) > 1024 {
		encodings = encodings[:1] // JSON has no explicit keys; YAML's implicit ones stop at 1024 characters
	}
	for _, enc := range encodings {
		var v3 map[string]any
		if err := yaml.Unmarshal(enc.b, &v3); err != nil {
			t.Fatalf("yaml.v3 cannot read the %s: %v\n%s", enc.name, err, short(enc.b))
		}
		var v11 map[string]any
		if err := k8syaml.Unmarshal(enc.b, &v11); err != nil {
			t.Fatalf("sigs.k8s.io/yaml cannot read the %s: %v\n%s", enc.name, err, short(enc.b))
		}
		for reader, got := range map[string]map[string]any{"yaml.v3": v3, "sigs.k8s.io/yaml": v11} {
			if back := pluginConfig(got); !reflect.DeepEqual(back, config) {
				t.Fatalf("%s reads the %s differently:\n%s\ngot  %#v\nwant %#v", reader, enc.name, short(enc.b), back, config)
			}
		}
	}
}

// longestKey is the length of config's longest key, at any depth.
func longestKey(v any) int {
	n := 0
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			n = max(n, len(k), longestKey(e))
		}
	case []any:
		for _, e := range t {
			n = max(n, longestKey(e))
		}
	}
	return n
}

func short(b []byte) string {
	if len(b) > 3000 {
		return string(b[:3000]) + "..."
	}
	return string(b)
}

func pluginConfig(doc map[string]any) any {
	plugins, _ := doc["plugins"].([]any)
	if len(plugins) != 1 {
		return nil
	}
	p, _ := plugins[0].(map[string]any)
	return p["config"]
}

func TestYAMLRoundTripTrickyStrings(t *testing.T) {
	for _, s := range trickyStrings {
		roundTrip(t, map[string]any{s: s, "l": []any{s}, "m": map[string]any{s: map[string]any{"x": s}}})
	}
}

func TestYAMLRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	for range 1000 {
		roundTrip(t, randomConfig(rng, 2))
	}
}

// FuzzYAMLRoundTrip: any key and value, in a map, a nested map and a list, read back the same
// by yaml.v3 and sigs.k8s.io/yaml, from the YAML and from the JSON.
func FuzzYAMLRoundTrip(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s, "v")
		f.Add("k", s)
	}
	f.Fuzz(func(t *testing.T, k, v string) {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return // encoding/json writes U+FFFD for invalid UTF-8: not a round trip by design
		}
		roundTrip(t, map[string]any{k: v, "nested": map[string]any{k: v}, "list": []any{v, k}})
	})
}

// The JSON encoders (JSON, EncodeConfig, JSONCache; services by the fast path, other items by
// encoding/json) write DEL, the C1 controls and U+FFFE/U+FFFF as \u escapes: YAML readers
// refuse or fold them raw. The JSON still decodes to the very strings.
func TestJSONEscapesWhatYAMLRefuses(t *testing.T) {
	odd := "a\x7fb\u0085c\u009bd\ufffee\uffff\u00a0é\ufeff"
	d := New()
	d.Services = []*Service{{Service: kong.Service{Name: kong.String("svc" + odd), Host: kong.String("h")}}}
	d.Consumers = []*Consumer{{Consumer: kong.Consumer{Username: kong.String("u" + odd)}}}
	d.Plugins = []*Plugin{{Plugin: kong.Plugin{Name: kong.String("p"), Config: kong.Configuration{"k" + odd: odd}}}}
	js, err := JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\x7f", "\u0085", "\u009b", "\ufffe", "\uffff"} {
		if strings.Contains(string(js), raw) {
			t.Errorf("JSON holds %q raw: %s", raw, js)
		}
	}
	if n := strings.Count(string(js), `a\u007fb\u0085c\u009bd\ufffee\uffff`+"\u00a0é\ufeff"); n != 4 {
		t.Errorf("%d escaped strings, want 4: %s", n, js)
	}
	var back Document
	if err := json.Unmarshal(js, &back); err != nil || *back.Services[0].Name != "svc"+odd || *back.Consumers[0].Username != "u"+odd {
		t.Errorf("decodes to %v (%v)", back, err)
	}
	cfg, err := NewJSONCache().EncodeConfig(d)
	if err != nil || string(cfg.Bytes()) != string(js) {
		t.Errorf("JSONCache differs from JSON (%v):\n%s\n%s", err, cfg.Bytes(), js)
	}
	for in, want := range map[string]int{"": -1, "abc": -1, "é\u00a0\ufeff\ufffd": -1, "ab\x7f": 2, "é\u0080": 2,
		"\u009f": 0, "x\ufffe": 1, "\uffff": 0, "\xc2": -1, "\xef\xbf": -1} {
		if got := yamlUnsafe([]byte(in)); got != want {
			t.Errorf("yamlUnsafe(%q) = %d, want %d", in, got, want)
		}
	}
}

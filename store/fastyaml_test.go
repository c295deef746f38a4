package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/internal/workload"
)

func decodeAny(t testing.TB, js []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %s: %v", js, err)
	}
	return v
}

// checkSameAsSlow asserts that when the fast path accepts a document, sigs.k8s.io/yaml reads
// it to the same value; it returns whether the fast path accepted it.
func checkSameAsSlow(t testing.TB, doc string) bool {
	t.Helper()
	fast, _, ok := fastYAMLToJSON([]byte(doc))
	if !ok {
		return false
	}
	slow, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("fast path accepted what sigs.k8s.io/yaml rejects (%v):\n%s", err, doc)
	}
	if got, want := decodeAny(t, fast), decodeAny(t, slow); !reflect.DeepEqual(got, want) {
		t.Fatalf("fast and slow differ for\n%s\nfast %s\nslow %s", doc, fast, slow)
	}
	return true
}

func TestFastYAMLMatchesSlow(t *testing.T) {
	fast := []string{
		"a: 1\nb: two\nc: \"3\"\nd: '4'\n",
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  labels:\n    app.kubernetes.io/name: y\n    k: \"\"\nspec:\n  ports:\n  - name: http\n    port: 80\n    targetPort: 8080\n  - port: 443\n",
		"list:\n  - a\n  - b: 1\n    c: 2\n  -\n    d: 3\n  - - x\n    - y\n  -\n",
		"bools: [yes]\n"[:0] + "y1: yes\ny2: No\ny3: on\ny4: OFF\ny5: true\ny6: ~\ny7: null\ny8:\n",
		"ints: 012\nbin: 0b101\noct: 0o17\nhex: 0x1F\nneg: -5\nbig: 18446744073709551615\nunder: 1_000\nplus: +7\n",
		"s1: 10.0.0.2\ns2: 10.0.0.2:8080\ns3: http://x/y?z=1#f\ns4: -foo\ns5: a b  c\ns6: \"esc \\\" \\\\ \\n \\t\"\ns7: 'it''s'\ns8: +\ns9: .foo\n",
		"empty: {}\nnone: []\n'quoted key': 1\n\"dq key\": 2\n",
		"# leading comment\na:\n  # inside\n  b: 1\n\n\nc: 2   \n",
		"status:\n  loadBalancer: {}\n",
	}
	for _, doc := range fast {
		if !checkSameAsSlow(t, doc) {
			t.Errorf("expected the fast path to take:\n%s", doc)
		}
	}
	slow := []string{
		"a: 1.5\n", "a: 1e3\n", "a: .inf\n", "a: 2025-01-01\n", "a: 0b12\n", "a: -0b101x\n",
		"a: [1, 2]\n", "a: {b: 1}\n", "a: |\n  text\n", "a: >\n  text\n",
		"a: &x 1\nb: *x\n", "a: !!str 1\n", "a: 1 # comment\n", "a: 1\na: 2\n",
		"true: 1\n", "1: a\n", "<<: {a: 1}\n", "a:\tb\n", "a: \"multi\n  line\"\n",
		"a: 'x' y\n", "a: \"\\u00e9\"\n", "a: caf\u00e9\n", "%YAML 1.1\n---\na: 1\n", "a:\n    b: 1\n  c: 2\n",
		"a: b: c\n", "just a scalar\n", "- a\nb: 1\n", "a: - b\n",
	}
	for _, doc := range slow {
		if checkSameAsSlow(t, doc) {
			t.Errorf("expected the slow path for:\n%s", doc)
		}
	}
}

// TestFastYAMLTakesWorkloadDocuments checks that every document genworkload writes (the shape of
// kubectl and sigs.k8s.io/yaml output) takes the fast path and reads the same as before.
func TestFastYAMLTakesWorkloadDocuments(t *testing.T) {
	var buf bytes.Buffer
	c := workload.Config{Ingresses: 20, TLSSecrets: 5, UnrelatedSecrets: 2, SecretSize: 4096, Namespaces: 3, UIDs: true}
	if err := workload.Write(&buf, c, "yaml"); err != nil {
		t.Fatal(err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(&buf))
	n := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !checkSameAsSlow(t, string(doc)) {
			t.Fatalf("workload document took the slow path:\n%s", doc)
		}
		if _, hint, _ := fastYAMLToJSON(doc); hint.kind == "" || hint.apiVersion == "" || !bytes.Contains(doc, []byte("kind: "+hint.kind+"\n")) {
			t.Fatalf("type hint %+v for\n%s", hint, doc)
		}
		n++
	}
	if n != 3+1+5+2+60 {
		t.Fatalf("%d documents", n)
	}
}

func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a:\n- b: c\n  d: [e]\n", "k: 'x''y'\n", "- - 1\n  - 2\n", "a: \"b\\\"c\"\n", "x: 0x10\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkSameAsSlow(t, doc)
	})
}

func TestPlainJSONFastPath(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"a":1,"b":"x.y","c":true,"d":false}`: true,
		` {"a":"1e5 \" e"} `:                   true,
		`{"a":1.0}`:                            false,
		`{"a":1e3}`:                            false,
		`a: 1`:                                 false,
		`{"a":`:                                false,
	} {
		if _, ok := plainJSON([]byte(doc)); ok != want {
			t.Errorf("plainJSON(%s) = %v, want %v", doc, ok, want)
		}
	}
}

// TestDecodeHostileDocuments: an alias bomb and a 10,000-deep document must each become an
// error note, quickly and without crashing, and must not stop the documents after them.
func TestDecodeHostileDocuments(t *testing.T) {
	laughs := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		laughs += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+string(prev)+",", 8) + "*" + string(prev) + "]\n"
	}
	deepFlow := strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n"
	deepBlock := "a:\n" + strings.Repeat("- ", 10000) + "x\n"
	deepJSON := `{"a":` + strings.Repeat(`{"b":`, 10000) + "1" + strings.Repeat("}", 10000) + "}\n"
	after := "apiVersion: v1\nkind: Service\nmetadata: {name: after}\n"
	for name, doc := range map[string]string{"billion laughs": laughs, "deep flow": deepFlow, "deep block": deepBlock, "deep json": deepJSON} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			objs, notes, err := DecodeManifests("evil.yaml", strings.NewReader(doc+"---\n"+after))
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 || objs[0].GetName() != "after" {
				t.Fatalf("objects = %v", objs)
			}
			if len(notes) != 1 || !notes[0].Err || !strings.Contains(notes[0].String(), "evil.yaml: document 1: ") {
				t.Fatalf("notes = %v", notes)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %s", d)
			}
			t.Log(notes[0])
		})
	}
}

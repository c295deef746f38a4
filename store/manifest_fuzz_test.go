package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// maxFuzzManifest bounds the fuzzed stream: larger inputs only slow the fuzzer down, and the
// size limit itself (MaxDocumentBytes) is tested directly.
const maxFuzzManifest = 256 << 10

// FuzzDecodeManifests feeds arbitrary bytes to the manifest reader. It must not panic, must
// finish quickly (no alias-bomb or nesting blow-up), and must be deterministic: the same
// stream gives the same objects and notes, whatever the parallel decoding did. Every note must
// name the source, and error notes a document. Seeds: the repository's golden inputs and the
// hostile shapes of TestDecodeHostileDocuments; testdata/fuzz/FuzzDecodeManifests holds KIC's
// golden inputs (see testdata/fuzz/SOURCE) and any crasher found.
func FuzzDecodeManifests(f *testing.F) {
	ins, _ := filepath.Glob("../testdata/golden/*/in.yaml")
	for _, in := range ins {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "---\n", "a: [\n", "a: &a [*a]\n", "apiVersion: v1\nkind: List\nitems: [1, null, {}]\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: \xff}\n", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"!!"}}`,
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  ports:\n  - port: 1e3\n",
		"- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > maxFuzzManifest {
			t.Skip()
		}
		start := time.Now()
		a := decodeForFuzz(t, in)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("decoding %d bytes took %s", len(in), d)
		}
		if b := decodeForFuzz(t, in); !bytes.Equal(a, b) {
			t.Fatalf("two decodings differ:\n%s\n%s", a, b)
		}
	})
}

// decodeForFuzz decodes in as ReadPaths does (the API server's checks on) and renders objects,
// refusals and notes as JSON, checking the notes' and refusals' shape, and that the objects
// kept and refused are exactly those the unchecked decoder returns.
func decodeForFuzz(t *testing.T, in []byte) []byte {
	objs, refused, notes, err := decodeManifests("fuzz.yaml", bytes.NewReader(in), true)
	checkPartition(t, in, objs, refused)
	for _, n := range notes {
		if n.Source != "fuzz.yaml" || n.Msg == "" || (n.Err && n.Doc == 0) {
			t.Fatalf("note without source, document or message: %#v", n)
		}
	}
	for _, o := range objs {
		if o.GetName() == "" {
			t.Fatalf("object without a name: %#v", o)
		}
		if _, err := RefOf(o); err != nil {
			t.Fatalf("decoded object has no ref: %v", err)
		}
	}
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	out, jerr := json.Marshal(struct {
		Objs    []Object
		Refused []Refusal
		Notes   []Note
		Err     string
	}{objs, refused, notes, errText})
	if jerr != nil {
		t.Fatalf("decoded objects do not encode: %v", jerr)
	}
	return out
}

// checkPartition: every refusal names an object the unchecked decoder returned and says the API
// server would refuse it; the checks keep every object, in order.
func checkPartition(t *testing.T, in []byte, kept []Object, refused []Refusal) {
	all, _, _ := DecodeManifests("fuzz.yaml", bytes.NewReader(in))
	out := map[Ref]bool{}
	for _, r := range refused {
		if r.Reason == "" || len(r.Reason) > maxRefusalReason+64 || !strings.Contains(r.Reason, "the API server would refuse") {
			t.Fatalf("refusal reason of %d bytes: %q", len(r.Reason), r.Reason)
		}
		out[r.Object] = true
	}
	returned := map[Ref]bool{}
	for i, o := range all {
		ref, _ := RefOf(o)
		returned[ref] = true
		if i >= len(kept) || kept[i].GetName() != o.GetName() || kept[i].GetNamespace() != o.GetNamespace() {
			t.Fatalf("the checked read does not return every object the unchecked one does (at %s)", ref)
		}
	}
	if len(all) != len(kept) {
		t.Fatalf("%d objects returned, %d expected", len(kept), len(all))
	}
	for ref := range out {
		if !returned[ref] {
			t.Fatalf("refusal of %s, which the unchecked decoder did not return", ref)
		}
	}
}

package boundedyaml

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// realNodes counts the nodes of the first document as yaml.v3 parses it, aliases once.
func realNodes(t *testing.T, doc []byte) int {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal(doc, &n); err != nil {
		t.Fatalf("%v in %q", err, shortDoc(doc))
	}
	var count func(*yaml.Node) int
	count = func(n *yaml.Node) int {
		c := 1
		for _, k := range n.Content {
			c += count(k)
		}
		return c
	}
	return count(&n) - 1 // the document node is not one of the text's
}

func shortDoc(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

func TestEstimateNodes(t *testing.T) {
	cases := []struct {
		doc      string
		min, max int
	}{
		{"a: 1\n", 2, 3},
		{"[1,1,1]\n", 4, 5},
		{"{a: 1, b: [x, y]}\n", 7, 9},
		{"a: |\n  x, y, z, [\n  {, , ,\nb: 2\n", 4, 6},
		{"a: >-\n  one, two\n   three, four\nb: [1, 2]\n", 6, 8},
		{"a: 'it''s, [not] {a} list'\nb: \"x, \\\" y, z\"\n", 4, 5},
		{"a: 1 # c, d, [e]\n", 2, 3},
		{"- a\n- b: 1\n  c: [2, 3]\n", 8, 11},
		{"a: \"line, one\n  line, two\"\n", 2, 3},
		{"url: http://x:80/a,b\n", 2, 4},
	}
	for _, c := range cases {
		real := realNodes(t, []byte(c.doc))
		got := EstimateNodes([]byte(c.doc))
		if got < real || got < c.min || got > c.max {
			t.Errorf("EstimateNodes(%q) = %d, want %d..%d (yaml.v3 counts %d)", c.doc, got, c.min, c.max, real)
		}
	}
}

// TestEstimateNodesGolden: over every document of the golden inputs, the estimate is never
// below the real count and within 3 times it.
func TestEstimateNodesGolden(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/golden/*/in.yaml")
	if len(files) < 100 {
		t.Fatalf("found %d golden inputs", len(files))
	}
	docs := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(b, []byte("\n---\n")) {
			var probe yaml.Node
			if len(bytes.TrimSpace(doc)) == 0 || yaml.Unmarshal(doc, &probe) != nil || len(probe.Content) == 0 {
				continue
			}
			docs++
			real, got := realNodes(t, doc), EstimateNodes(doc)
			if got < real || got > 3*real+2 {
				t.Errorf("%s: estimate %d, yaml.v3 counts %d in %q", f, got, real, shortDoc(doc))
			}
		}
	}
	t.Logf("%d documents", docs)
}

// TestToJSONRefusesManyNodes: a 3 MiB flow sequence of 1.5 million scalars is refused before
// any tree is built, in a few megabytes.
func TestToJSONRefusesManyNodes(t *testing.T) {
	doc := []byte("a: [" + strings.Repeat("1,", 1500000) + "1]\n")
	lim := Limits{MaxBytes: 3 << 20, MaxDepth: 100, MaxNodes: 1 << 18}
	allocs := testing.AllocsPerRun(1, func() {
		if _, err := ToJSON(doc, lim); err == nil || !strings.Contains(err.Error(), "more than 262144 YAML nodes") {
			t.Fatalf("err = %v", err)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations refusing it", allocs)
	}
	if _, err := ToJSON([]byte("a: ["+strings.Repeat("1,", 1000)+"1]\n"), lim); err != nil {
		t.Errorf("a small document: %v", err)
	}
}

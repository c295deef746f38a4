package boundedyaml

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	sigsyaml "sigs.k8s.io/yaml"
)

var testLimits = Limits{MaxBytes: 3 << 20, MaxDepth: 64}

// billionLaughs is the classic: nine levels of nine aliases, 9^9 strings once expanded.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// bigAlias is one value of size bytes anchored once and aliased n times: a document of about
// size bytes that expands to size*n, under go-yaml's alias-ratio guard (few aliases, much data).
func bigAlias(size, n int) string {
	var b strings.Builder
	b.WriteString("v: &v \"" + strings.Repeat("x", size) + "\"\nl:\n")
	for range n {
		b.WriteString("- *v\n")
	}
	return b.String()
}

func nested(open, closing string, n int) string {
	return strings.Repeat(open, n) + "1" + strings.Repeat(closing, n)
}

func TestToJSONRefuses(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		lim   Limits
		bound string
	}{
		{"billion laughs", billionLaughs(), testLimits, "bytes"},
		{"one big value aliased", bigAlias(280<<10, 5000), testLimits, "bytes"},
		{"aliases of aliases", "a: &a [" + strings.Repeat("x,", 1000) + "x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n",
			Limits{MaxBytes: 64 << 10, MaxDepth: 64}, "bytes"},
		{"merge keys", "a: &a {k: " + strings.Repeat("y", 4000) + "}\nb: [" + strings.Repeat("{<<: *a}, ", 100) + "{}]\n",
			Limits{MaxBytes: 64 << 10, MaxDepth: 64}, "bytes"},
		{"deep flow sequences", nested("[", "]", 65), testLimits, "depth"},
		{"deep flow mappings", nested("{a: ", "}", 65), testLimits, "depth"},
		{"deep block mappings", blockNest(65), testLimits, "depth"},
		{"deep JSON", nested(`{"a":`, "}", 65), testLimits, "depth"},
		{"depth through an alias", "a: &a " + nested("[", "]", 40) + "\nb: " + nested("[", "]", 30)[:30] + "*a" + strings.Repeat("]", 30) + "\n",
			testLimits, "depth"},
		{"recursive alias", "a: &a [*a]\n", testLimits, "recursion"},
		{"recursive alias in a mapping", "a: &a {b: *a}\n", testLimits, "recursion"},
		{"bytes without aliases", `{"a": "` + strings.Repeat("z", 200) + `"}`, Limits{MaxBytes: 100, MaxDepth: 64}, "bytes"},
		{"escapes grow the JSON", `a: "` + strings.Repeat("<", 60) + `"`, Limits{MaxBytes: 100, MaxDepth: 64}, "bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			js, err := ToJSON([]byte(c.in), c.lim)
			var le *LimitError
			if !errors.As(err, &le) || le.Bound != c.bound {
				t.Fatalf("got %d bytes, error %v; want a %s limit error", len(js), err, c.bound)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("refusing took %s", d)
			}
			if strings.Contains(err.Error(), "xxxx") || strings.Contains(err.Error(), "yyyy") {
				t.Fatalf("the error quotes the document: %v", err)
			}
		})
	}
}

func blockNest(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "b: 1\n")
	return b.String()
}

// TestToJSONAliasBombIsCheap: refusing a ~280 KB value aliased thousands of times (gigabytes
// once expanded) allocates about what parsing the document does, not what expanding it would.
func TestToJSONAliasBombIsCheap(t *testing.T) {
	doc := []byte(bigAlias(280<<10, 5000)) // expands to ~1.4 GB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := ToJSON(doc, Limits{MaxBytes: 1 << 20, MaxDepth: 64})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.As(err, &le) || le.Bound != "bytes" {
		t.Fatalf("err = %v, want a bytes limit error", err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("document %d bytes: refused in %s, %d bytes allocated", len(doc), elapsed, allocated)
	if allocated > 6<<20 {
		t.Fatalf("refusing allocated %d bytes; want under 6 MiB", allocated)
	}
}

// TestToJSONSameAsSigsYAML: what is accepted converts exactly as sigs.k8s.io/yaml converts it.
func TestToJSONSameAsSigsYAML(t *testing.T) {
	docs := []string{
		"", "# only a comment\n", "null", "~", "a: 1\n", "a: yes\nb: no\nc: on\nd: 0x1F\ne: 012\nf: 1.0\ng: 1e3\nh: .inf\n",
		"a: &x {b: [1, 2, {c: d}]}\ne: *x\nf: [*x, *x]\n",
		"base: &base {a: 1, b: 2}\nderived:\n  <<: *base\n  b: 3\n",
		"list:\n- &i item\n- *i\n- *i\n",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"dg=="}}`,
		"a: |\n  line 1\n  line *2*\nb: '*not an alias*'\n",
		"first: 1\n---\nsecond: 2\n",
		"hosts: ['*.example.com', \"*\"]\n",
		nested("[", "]", 64), blockNest(63),
		"a: &a " + nested("[", "]", 30) + "\nb: " + strings.Repeat("[", 30) + "*a" + strings.Repeat("]", 30) + "\n",
		bigAlias(1<<10, 100),
	}
	for _, d := range docs {
		want, wantErr := sigsyaml.YAMLToJSON([]byte(d))
		got, err := ToJSON([]byte(d), testLimits)
		if (err != nil) != (wantErr != nil) || string(got) != string(want) {
			t.Errorf("ToJSON(%.60q) = %s, %v; sigs.k8s.io/yaml: %s, %v", d, got, err, want, wantErr)
		}
	}
}

func TestToJSONSyntaxErrors(t *testing.T) {
	for _, d := range []string{"a: [\n", "a: *missing\n", "\tb: 1\n", "a: &a [*a\n"} {
		_, err := ToJSON([]byte(d), testLimits)
		var le *LimitError
		if err == nil || errors.As(err, &le) {
			t.Errorf("ToJSON(%q): err = %v, want a syntax error", d, err)
		}
	}
}

func TestDepthAndCheckJSON(t *testing.T) {
	cases := []struct {
		js    string
		depth int
	}{
		{`1`, 0}, {`"[[["`, 0}, {`[]`, 1}, {`{"a":[1,{"b":[]}]}`, 4}, {`["\"[", ["\\"], "\\\"{"]`, 2},
		{nested("[", "]", 100), 100},
	}
	for _, c := range cases {
		if got := Depth([]byte(c.js)); got != c.depth {
			t.Errorf("Depth(%.40s) = %d, want %d", c.js, got, c.depth)
		}
	}
	lim := Limits{MaxBytes: 20, MaxDepth: 2}
	for js, want := range map[string]string{`[[1]]`: "", `[[[1]]]`: "depth", `["` + strings.Repeat("a", 20) + `"]`: "bytes"} {
		err := CheckJSON([]byte(js), lim)
		var le *LimitError
		if got := ""; errors.As(err, &le) {
			got = le.Bound
			if got != want {
				t.Errorf("CheckJSON(%s) = %v, want %q", js, err, want)
			}
		} else if err != nil || want != "" {
			t.Errorf("CheckJSON(%s) = %v, want %q", js, err, want)
		}
	}
}

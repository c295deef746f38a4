package boundedyaml

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	sigsyaml "sigs.k8s.io/yaml"
)

// fuzzLimits are small enough for the fuzzer to reach both bounds with short inputs.
var fuzzLimits = Limits{MaxBytes: 64 << 10, MaxDepth: 32}

// FuzzBoundedYAML feeds arbitrary bytes to ToJSON: no panic, done quickly whatever the aliases
// say, and an accepted document is valid JSON within both bounds and exactly what
// sigs.k8s.io/yaml makes of it (which is safe to call then: the document passed the bounds).
func FuzzBoundedYAML(f *testing.F) {
	for _, s := range []string{
		"", "a: 1\n", "a: &a [1, 2]\nb: [*a, *a]\n", billionLaughs(), bigAlias(100, 1000),
		"a: &a [*a]\n", "base: &b {x: 1}\nd: {<<: *b, y: 2}\n", nested("[", "]", 40),
		`{"config": {"minute": 5, "policy": "local"}}`, "k: !!binary aGVsbG8=\n", "? [a, b]\n: c\n",
		"a: &a\n  b: &b\n    c: *a\n", "x: *y\n", "- &a\n- *a\n- *a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64<<10 {
			t.Skip()
		}
		start := time.Now()
		js, err := ToJSON(in, fuzzLimits)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("ToJSON of %d bytes took %s", len(in), d)
		}
		if err != nil {
			var le *LimitError
			if errors.As(err, &le) && le.Bound != "bytes" && le.Bound != "depth" && le.Bound != "recursion" {
				t.Fatalf("unknown bound %q", le.Bound)
			}
			return
		}
		if !json.Valid(js) || len(js) > fuzzLimits.MaxBytes || Depth(js) > fuzzLimits.MaxDepth {
			t.Fatalf("accepted output of %d bytes, depth %d, valid %v", len(js), Depth(js), json.Valid(js))
		}
		want, werr := sigsyaml.YAMLToJSON(in)
		if werr != nil || string(want) != string(js) {
			t.Fatalf("ToJSON = %s; sigs.k8s.io/yaml = %s, %v", js, want, werr)
		}
	})
}

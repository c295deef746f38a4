package atc

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kicExpressions are the expressions of testdata/kic-expressions.txt, one a line: every
// distinct expression KIC v3.5.13 wrote in its expression-routes-on golden cases.
func kicExpressions(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/kic-expressions.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestKICCorpusRoundTrip parses every expression KIC wrote, checks it against its route's
// schema and renders it back: the bytes must be KIC's.
func TestKICCorpusRoundTrip(t *testing.T) {
	exprs := kicExpressions(t)
	for _, e := range exprs {
		m, err := Parse(e)
		if err != nil {
			t.Errorf("Parse(%q): %v", e, err)
			continue
		}
		if err := Check(m); err != nil {
			t.Errorf("Check(%q): %v", e, err)
		}
		if got := m.Expression(); got != e {
			t.Errorf("rendered back:\n got %s\nwant %s", got, e)
		}
	}
	t.Logf("%d distinct KIC expressions round-trip", len(exprs))
}

// TestKICCorpusUpToDate compares testdata with the KIC golden corpus, when the corpus is on
// this machine (../shared/kic-golden beside the checkout, or $KIC_GOLDEN_DIR), so the list
// cannot silently miss an expression KIC wrote.
func TestKICCorpusUpToDate(t *testing.T) {
	dir := findGoldenDir()
	if dir == "" {
		t.Skip("KIC golden corpus not found (set KIC_GOLDEN_DIR)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "expression-routes-on_golden.yaml"))
	var all []string
	for _, f := range files {
		all = append(all, yamlExpressions(t, f)...)
	}
	distinct := slices.Compact(slices.Sorted(slices.Values(all)))
	if want := kicExpressions(t); !slices.Equal(distinct, want) {
		t.Fatalf("testdata/kic-expressions.txt is stale:\n corpus %q\ntestdata %q", distinct, want)
	}
	t.Logf("%d golden files, %d expressions, %d distinct", len(files), len(all), len(distinct))
}

// findGoldenDir looks for shared/kic-golden in $KIC_GOLDEN_DIR and beside each parent.
func findGoldenDir() string {
	if d := os.Getenv("KIC_GOLDEN_DIR"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "shared", "kic-golden")); err == nil && fi.IsDir() {
			return filepath.Join(d, "shared", "kic-golden")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// yamlExpressions reads the `expression:` values of a golden file: plain scalars, or quoted
// ones (the corpus has none today).
func yamlExpressions(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " ")
		line = strings.TrimPrefix(line, "- ")
		v, ok := strings.CutPrefix(line, "expression: ")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(v, `"`):
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
		case strings.HasPrefix(v, `'`):
			v = strings.ReplaceAll(v[1:len(v)-1], `''`, `'`)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

package translator

import (
	"slices"
	"strings"
	"testing"
)

// TestNoFileCycles fails when files of the package reference each other in a cycle (a strongly
// connected component of more than one file in the graph fileReferences builds). TestLayers
// keeps references between layers and families downward; inside one family or layer, a cycle
// is what makes a reader walk back and forth between files, so there is none: a type and the
// code that uses it live in a lower and a higher file (ingresstypes.go below ingress.go).
func TestNoFileCycles(t *testing.T) {
	edges, files := fileReferences(t)
	for _, c := range fileCycles(files, edges) {
		t.Errorf("files reference each other in a cycle: %s", strings.Join(c, " "))
	}
}

// fileCycles returns the strongly connected components of more than one file (Tarjan), each
// sorted, in the order of their first file.
func fileCycles(files []string, edges map[string][]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	on := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for _, w := range edges[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		i := slices.Index(stack, v)
		c := slices.Clone(stack[i:])
		for _, w := range c {
			on[w] = false
		}
		stack = stack[:i]
		if len(c) > 1 {
			slices.Sort(c)
			out = append(out, c)
		}
	}
	for _, f := range files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

func TestFileCycles(t *testing.T) {
	edges := map[string][]string{
		"a.go": {"b.go"}, "b.go": {"c.go"}, "c.go": {"a.go", "d.go"},
		"d.go": {"e.go"}, "e.go": {"d.go"}, "f.go": {"a.go"},
	}
	got := fileCycles([]string{"a.go", "b.go", "c.go", "d.go", "e.go", "f.go"}, edges)
	want := [][]string{{"a.go", "b.go", "c.go"}, {"d.go", "e.go"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("fileCycles = %v, want %v", got, want)
	}
	if got := fileCycles([]string{"a.go", "b.go"}, map[string][]string{"a.go": {"b.go"}}); len(got) != 0 {
		t.Fatalf("acyclic graph: got cycles %v", got)
	}
}

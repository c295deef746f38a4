package translator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Size limits of the package's code (tests excluded): a file a reader can hold, a function that
// fits on a screen. Past them, split by what the code does, not by where it breaks.
const (
	maxFileLines = 450
	maxFuncLines = 60
)

// TestSizes fails on a file over maxFileLines lines or a function (or method) over
// maxFuncLines lines, counted from its signature to its closing brace.
func TestSizes(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s: %d lines, over %d", name, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if n := end - start + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, over %d", name, start, fd.Name.Name, n, maxFuncLines)
			}
		}
	}
}

package atc

import (
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the package a leaf: its files, tests included, import only the
// standard library (an import path whose first element has no dot), so the translator and the
// Kong double can both use it without a cycle. The example imports the package itself.
func TestStandardLibraryOnly(t *testing.T) {
	const self = "github.com/kongsync/kongsync/translator/atc"
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal("no Go files", err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		ast, err := goparser.ParseFile(fset, f, nil, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") && path != self {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}

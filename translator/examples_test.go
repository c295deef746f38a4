package translator

import (
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// TestExamples keeps the bundled examples (what `make dump` prints) free of problems and valid
// for decK.
func TestExamples(t *testing.T) {
	objs, refused, notes, err := store.ReadPaths([]string{"../examples"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) > 0 || len(refused) > 0 || len(objs) == 0 {
		t.Fatalf("examples: %d objects, notes %v, refused %v", len(objs), notes, refused)
	}
	res := translateObjects(t, objs)
	if len(res.Problems) > 0 {
		t.Errorf("examples have problems:\n%s", problemsText(res.Problems))
	}
	if len(res.Document.Services) != 3 || len(res.Document.Certificates) != 1 || len(res.Document.Plugins) == 0 {
		t.Errorf("want 3 services, 1 certificate and plugins, got %d, %d and %d",
			len(res.Document.Services), len(res.Document.Certificates), len(res.Document.Plugins))
	}
	y, err := document.YAML(res.Document)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateWithDeck(y); err != nil {
		t.Errorf("decK rejects the examples' config: %v", err)
	}
}

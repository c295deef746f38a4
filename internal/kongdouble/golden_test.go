package kongdouble

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// Every config in the project's golden corpus is what kongsync would post; Kong accepts them,
// so the double must too. A failure here means the double is stricter than Kong (fix the
// double) or a golden config is invalid for Kong (fix the translator).
func TestAcceptsGoldenConfigs(t *testing.T) {
	files, err := filepath.Glob("../../testdata/golden/*/kong.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no golden configs")
	}
	s := New(Options{})
	defer s.Close()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if code, body := postConfig(t, s, "?flatten_errors=1", string(b)); code != http.StatusCreated {
			t.Errorf("%s: %d %v", f, code, body)
		}
	}
}

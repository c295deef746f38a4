package translator

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// TestDeterminism translates every golden input with its objects in many random orders: the
// YAML and JSON must be byte-identical to the unshuffled translation, and so must the problems.
func TestDeterminism(t *testing.T) {
	const seeds = 25
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			objs := loadObjects(t, dir)
			wantY, wantJ, wantP := encodeAll(t, translateObjects(t, objs))
			for seed := uint64(1); seed <= seeds; seed++ {
				shuffled := append([]store.Object(nil), objs...)
				r := rand.New(rand.NewPCG(seed, seed*7919))
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				y, j, p := encodeAll(t, translateObjects(t, shuffled))
				if !bytes.Equal(y, wantY) || !bytes.Equal(j, wantJ) || p != wantP {
					t.Fatalf("seed %d: output differs from the unshuffled translation", seed)
				}
			}
		})
	}
}

func encodeAll(t *testing.T, res Result) ([]byte, []byte, string) {
	t.Helper()
	y, err := document.YAML(res.Document)
	if err != nil {
		t.Fatal(err)
	}
	j, err := document.JSON(res.Document)
	if err != nil {
		t.Fatal(err)
	}
	return y, j, problemsText(res.Problems)
}

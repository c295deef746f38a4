package translator

import (
	"testing"

	"github.com/kongsync/kongsync/store"
)

// Every kind the store holds has a bit of its own in reads.mask, below the bit that counts as
// always changed: a kind past followedKinds would make every piece that reads it, and every
// stage that keeps state, start over on each build, which no output test would see. Adding a
// kind past the limit fails here, with the way out.
func TestEveryKindHasItsBit(t *testing.T) {
	if len(store.Kinds) > followedKinds {
		t.Fatalf("store.Kinds has %d kinds, reads.mask follows %d: widen reads.mask (memo.go) and kindGens (memokinds.go) to uint64",
			len(store.Kinds), followedKinds)
	}
	var seen uint32
	for _, k := range store.Kinds {
		b := kindBit(k)
		if b == 1<<followedKinds || seen&b != 0 {
			t.Errorf("kind %s has bit %#x, not a bit of its own", k, b)
		}
		seen |= b
	}
	if kindBit("NotAKind") != 1<<followedKinds {
		t.Errorf("an unlisted kind has bit %#x, want the always-changed bit", kindBit("NotAKind"))
	}
}

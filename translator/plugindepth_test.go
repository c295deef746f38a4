package translator

import (
	"testing"
	"time"
)

func TestNestingExceeds(t *testing.T) {
	nest := func(n int, arrays bool) any {
		var v any = "leaf"
		for range n {
			if arrays {
				v = []any{v}
			} else {
				v = map[string]any{"a": v}
			}
		}
		return v
	}
	for _, c := range []struct {
		depth, limit int
		arrays, want bool
	}{
		{0, 0, false, false}, {1, 0, false, true}, {1, 1, false, false}, {990, 990, false, false},
		{991, 990, false, true}, {991, 990, true, true}, {990, 990, true, false},
	} {
		if got := nestingExceeds(nest(c.depth, c.arrays), c.limit); got != c.want {
			t.Errorf("depth %d (arrays %v), limit %d: got %v", c.depth, c.arrays, c.limit, got)
		}
	}
	// a very deep value costs the limit, not its depth
	deep := nest(200000, false)
	start := time.Now()
	if !nestingExceeds(deep, maxPluginConfigDepth) {
		t.Fatal("200,000 levels not refused")
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("took %v", d)
	}
}

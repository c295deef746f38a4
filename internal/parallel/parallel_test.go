package parallel

import (
	"sync/atomic"
	"testing"
)

// TestEach: every index is visited exactly once, whatever the workers, and none when n is 0.
func TestEach(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {7, 1}, {1000, 3}, {5, 16}} {
		seen := make([]atomic.Int32, tc.n)
		Each(tc.n, tc.workers, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Errorf("n=%d workers=%d: index %d visited %d times", tc.n, tc.workers, i, got)
			}
		}
	}
}

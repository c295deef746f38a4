package store

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestSortKeys checks the integer-keyed sort against a plain sort by namespace, then name, on
// keys built to defeat the shortcuts: shared name prefixes longer and shorter than 8 bytes,
// namespaces that are prefixes of each other, empty and NUL-containing names.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"", "a", "b", "\x00", "app-", "app-0000", "app-00000", "z", "-", "é"}
	pick := func() string {
		var b strings.Builder
		for n := rng.IntN(5); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for round := 0; round < 300; round++ {
		common := alphabet[rng.IntN(len(alphabet))] + alphabet[rng.IntN(len(alphabet))]
		var keys []nsName
		seen := map[nsName]bool{}
		for n := 1 + rng.IntN(60); n > 0; n-- {
			k := nsName{ns: []string{"", "default", "def", "default-x", pick()}[rng.IntN(5)], name: pick()}
			if round%2 == 0 {
				k.name = common + k.name
			}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, func(a, b nsName) int {
			if c := strings.Compare(a.ns, b.ns); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		recs := sortKeys(keys)
		got := make([]nsName, len(recs))
		for i, r := range recs {
			got[i] = keys[r.idx]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: sortKeys order\n%q\nwant\n%q", round, got, want)
		}
	}
	if len(sortKeys(nil)) != 0 {
		t.Error("no keys must sort to nothing")
	}
}

// BenchmarkBuildView is the sorting part of a first snapshot alone: one kind of n objects
// named like the benchmark workload's, from the map the store keeps.
func BenchmarkBuildView(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			objs := make(map[nsName]Object, n)
			for i := 0; i < n; i++ {
				svc := &corev1.Service{}
				svc.Namespace, svc.Name = "default", fmt.Sprintf("app-%05d", i)
				objs[nsName{svc.Namespace, svc.Name}] = svc
			}
			b.ReportAllocs()
			runtime.GC()
			for b.Loop() {
				buildView(KindService, objs)
			}
		})
	}
}

package store

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sortKeys is the order of keys by namespace, then name, as buildView sorts a kind.
func sortKeys(keys []nsName) []sortRec {
	b := newKeyRecs(len(keys))
	for _, key := range keys {
		b.add(key)
	}
	return b.sorted()
}

// TestSortKeys checks the integer-keyed sort against a plain sort by namespace, then name, on
// keys built to defeat the shortcuts: shared name prefixes longer and shorter than 8 bytes,
// namespaces that are prefixes of each other, empty and NUL-containing names. Every third
// round has radixMin keys or more (the radix sort), some of them over 256 namespaces (ranks
// that take more than a byte).
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
		n := 1 + rng.IntN(60)
		if round%3 == 0 {
			n = radixMin + rng.IntN(1500)
		}
		for ; n > 0; n-- {
			k := nsName{ns: []string{"", "default", "def", "default-x", pick()}[rng.IntN(5)], name: pick()}
			if round%6 == 0 {
				k.ns = fmt.Sprintf("ns-%d", rng.IntN(700))
			}
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

// TestRadixSort checks radixSort against a comparison sort by rank, then prefix: full-width
// ranks and prefixes, few distinct values (equal keys, bytes every record shares), one record.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		n     int
		ranks uint32 // distinct ranks drawn from (0: the full range)
		wide  bool   // prefixes over the full range, else few
	}{{1, 0, true}, {2, 0, true}, {300, 0, true}, {1000, 3, false}, {1000, 1, false}, {5000, 700, true}, {257, 1, true}} {
		recs := make([]sortRec, tc.n)
		for i := range recs {
			r := rng.Uint32()
			if tc.ranks > 0 {
				r = rng.Uint32N(tc.ranks) * 0x01010101 // every byte set, not only the first
			}
			p := rng.Uint64()
			if !tc.wide {
				p = uint64(rng.IntN(5)) << 40
			}
			recs[i] = sortRec{rank: r, idx: uint32(i), prefix: p}
		}
		want := slices.Clone(recs)
		slices.SortStableFunc(want, func(a, b sortRec) int {
			return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.prefix, b.prefix))
		})
		if got := radixSort(recs, make([]sortRec, tc.n)); !slices.Equal(got, want) {
			t.Errorf("n=%d ranks=%d wide=%v: radixSort differs from a stable comparison sort", tc.n, tc.ranks, tc.wide)
		}
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
			m := cowMapOf(objs)
			b.ReportAllocs()
			runtime.GC()
			for b.Loop() {
				buildView(KindService, m)
			}
		})
	}
}

// TestBuildViewsSplit checks that kinds sorted across the CPUs (buildViews, from parallelViews
// objects on) give each kind the view buildView gives it alone: the same sorted list and, for
// EndpointSlices, the same index.
func TestBuildViewsSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := map[Kind]map[nsName]Object{}
	ks := []Kind{KindService, KindEndpointSlice, KindIngress, KindSecret}
	for i, k := range ks {
		kinds[k] = map[nsName]Object{}
		for n := range parallelViews / (i + 1) {
			key := nsName{ns: fmt.Sprintf("ns-%d", rng.IntN(7)), name: fmt.Sprintf("obj-%06d", rng.IntN(1<<20))}
			obj := newObjectOf(t, k, key.ns, key.name, fmt.Sprintf("svc-%d", n%50))
			kinds[k][key] = obj
		}
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: buildViews does not split")
	}
	asCow := map[Kind]*cowMap[Object]{}
	for k, m := range kinds {
		asCow[k] = cowMapOf(m)
	}
	got := buildViews(ks, asCow)
	for i, k := range ks {
		want := buildView(k, asCow[k])
		if !slices.Equal(got[i].sorted, want.sorted) {
			t.Errorf("%s: sorted list differs from buildView's", k)
		}
		byKey := slices.SortedFunc(maps.Values(kinds[k]), func(a, b Object) int {
			return cmp.Or(strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
		})
		if !slices.Equal(got[i].sorted, byKey) {
			t.Errorf("%s: not sorted by namespace and name", k)
		}
		if (got[i].bySvc == nil) != (want.bySvc == nil) {
			t.Fatalf("%s: index present %v, buildView's %v", k, got[i].bySvc != nil, want.bySvc != nil)
		}
		if want.bySvc == nil {
			continue
		}
		if got[i].bySvc.size() != want.bySvc.size() {
			t.Errorf("%s: index of %d Services, buildView's %d", k, got[i].bySvc.size(), want.bySvc.size())
		}
		want.bySvc.all(func(key nsName, l []*discoveryv1.EndpointSlice) {
			if g, _ := got[i].bySvc.get(key); !slices.Equal(g, l) {
				t.Errorf("%s: index entry %v differs", k, key)
			}
		})
	}
}

// newObjectOf returns an empty object of kind k named ns/name; an EndpointSlice belongs to
// Service svc.
func newObjectOf(t *testing.T, k Kind, ns, name, svc string) Object {
	t.Helper()
	meta := metav1.ObjectMeta{Namespace: ns, Name: name}
	switch k {
	case KindService:
		return &corev1.Service{ObjectMeta: meta}
	case KindEndpointSlice:
		meta.Labels = map[string]string{discoveryv1.LabelServiceName: svc}
		return &discoveryv1.EndpointSlice{ObjectMeta: meta}
	case KindIngress:
		return &networkingv1.Ingress{ObjectMeta: meta}
	case KindSecret:
		return &corev1.Secret{ObjectMeta: meta}
	}
	t.Fatalf("no object of kind %s", k)
	return nil
}

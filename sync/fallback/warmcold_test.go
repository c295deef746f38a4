package fallback_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

// world is a workload with every kind the rules follow: Ingresses on Services with plugins, TLS
// Secrets, consumers with credential Secrets in groups, HTTPRoutes, over three namespaces.
func world(t testing.TB, n int) *store.Snapshot {
	c := workload.Config{Ingresses: n, HTTPRoutes: n / 4, TLSSecrets: n / 8, Consumers: n / 4, ConsumerGroups: 3, Plugins: 5,
		Namespaces: 3, UnrelatedSecrets: 2, SecretSize: 64, UIDs: true}
	objs, err := workload.Objects(c)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New()
	for _, o := range objs {
		if _, err := st.Upsert(o.(store.Object)); err != nil {
			t.Fatal(err)
		}
	}
	return st.Snapshot()
}

// fresh rebuilds a snapshot from the objects snap holds: no view of it is shared.
func fresh(t testing.TB, snap *store.Snapshot) *store.Snapshot {
	var objs []store.Object
	for _, k := range store.Kinds {
		objs = append(objs, snap.Objects(k)...)
	}
	out, err := store.NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Leaving objects out incrementally gives the bytes of a cold build of the reduced snapshot:
// one long-lived Engine builds the whole world, then each of many random fallback plans (and
// the world again in between), and every build equals translator.BuildOnce of a snapshot made
// afresh from the same objects. Backfilled plans (an older version of the world as the last
// valid one) are checked alike.
func TestWarmEqualsCold(t *testing.T) {
	snap := world(t, 200)
	last := world(t, 120) // the "last valid" world: fewer objects, same names and UIDs
	opts := translator.DefaultOptions()
	engine := translator.NewEngine(opts)
	g, lg := fallback.NewGraph(snap), fallback.NewGraph(last)
	var all []store.Ref
	for _, k := range store.Kinds {
		for _, o := range snap.Objects(k) {
			all = append(all, store.Ref{Kind: k, Namespace: o.GetNamespace(), Name: o.GetName()})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 30 {
		broken := make([]store.Ref, 1+rng.IntN(4))
		for j := range broken {
			broken[j] = all[rng.IntN(len(all))]
		}
		plan := fallback.Exclude(g, broken)
		if i%2 == 1 {
			plan = fallback.Backfill(g, lg, broken)
		}
		applied, err := plan.Apply(snap)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := engine.Build(snap); err != nil { // back to the whole world in between
				t.Fatal(err)
			}
		}
		warm, err := engine.Build(applied)
		if err != nil {
			t.Fatal(err)
		}
		cold, err := translator.BuildOnce(fresh(t, applied), opts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(warm.Config.Bytes(), cold.Config.Bytes()) {
			t.Fatalf("plan %d (broken %v: %d left out, %d put back): warm build differs from the cold one",
				i, broken, len(plan.Excluded), len(plan.Backfilled))
		}
	}
}

// The plan of a 10,000-Ingress world (with 2,500 HTTPRoutes, 1,250 TLS Secrets, 2,500
// consumers): graph and walk, from a shared plugin (every Ingress of its namespace depends on
// it) and from one Service.
func BenchmarkExclude10k(b *testing.B) {
	snap := world(b, 10000)
	p0, s0 := snap.Objects(store.KindKongPlugin)[0], snap.Objects(store.KindService)[0]
	plugin := store.Ref{Kind: store.KindKongPlugin, Namespace: p0.GetNamespace(), Name: p0.GetName()}
	svc := store.Ref{Kind: store.KindService, Namespace: s0.GetNamespace(), Name: s0.GetName()}
	b.ReportAllocs()
	for b.Loop() {
		p := fallback.Exclude(fallback.NewGraph(snap), []store.Ref{plugin, svc})
		if len(p.Excluded) < 2 {
			b.Fatalf("left out %d", len(p.Excluded))
		}
	}
}

func BenchmarkGraph10k(b *testing.B) {
	snap := world(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		fallback.NewGraph(snap)
	}
}

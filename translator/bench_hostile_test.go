package translator

import (
	"testing"

	"github.com/kongsync/kongsync/store"
)

// BenchmarkHostile is a cold build (translation, as `kongsync dump` makes it) of each hostile
// world of hostile_test.go: the worst cases a tenant can make within the API server's limits.
// docs/benchmarks.md ("Issue 20") records the command and the medians.
func BenchmarkHostile(b *testing.B) {
	for _, w := range hostileWorlds() {
		b.Run(w.name, func(b *testing.B) { benchTranslate(b, w.build(b)) })
	}
}

// BenchmarkHostileConsumerCascade is a warm build after the victim of consumers-10k-one-key
// is deleted or comes back: every one of the 10,000 younger holders of its key is decided
// again (the first of them takes the key, the others name it instead of the victim).
func BenchmarkHostileConsumerCascade(b *testing.B) {
	st := store.New()
	var victim store.Object
	for _, o := range consumerKeyWorld(b, 10000, false) {
		upsertOrFail(b, st, o)
		if o.GetName() == "victim" {
			victim = o
		}
	}
	eng := NewEngine(DefaultOptions())
	if _, err := eng.Build(st.Snapshot()); err != nil {
		b.Fatal(err)
	}
	ref := store.Ref{Kind: store.KindKongConsumer, Namespace: "team-a", Name: "victim"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			st.Delete(ref)
		} else {
			upsertOrFail(b, st, victim)
		}
		if _, err := eng.Build(st.Snapshot()); err != nil {
			b.Fatal(err)
		}
	}
}

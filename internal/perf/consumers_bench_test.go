package perf_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
)

// consumerSizes are the consumer counts of issue 13's scale target: 10k consumers in 100 groups,
// each with a key-auth credential, fully built in ≤ 100 ms and after a single consumer change in
// ≤ 20 ms; 100k linear. KIC matches credentials pairwise (KIC#7128: 48M comparisons at 6,912
// consumers), so its time grows with the square of the count.
var consumerSizes = []int{1000, 10000, 100000}

// consumerWorkload is n KongConsumers, each with a key-auth credential Secret, in 100
// KongConsumerGroups (genworkload -consumers n -consumer-groups 100), and no Ingresses.
func consumerWorkload(n int) workload.Config {
	c := workload.Defaults(0)
	c.Consumers, c.ConsumerGroups = n, 100
	return c
}

// BenchmarkConsumers: full is BenchmarkFullBuild's measure (snapshot, cold translate, encode,
// hash) for the consumer workload; change is BenchmarkIncremental's (one KongConsumer replaced
// by a new version that moves it to another group, warm Engine, hash). per-consumer figures
// let sizes be compared for linearity.
func BenchmarkConsumers(b *testing.B) {
	for _, n := range consumerSizes {
		b.Run(fmt.Sprintf("n=%d/full", n), func(b *testing.B) { benchConsumersFull(b, n) })
		b.Run(fmt.Sprintf("n=%d/change", n), func(b *testing.B) { benchConsumerChange(b, consumerWorkload(n), n) })
	}
	// mixed: the change among 10k Ingresses that reference 100 KongPlugins, as well as the
	// consumers: what else a consumer change makes assemble redo (plugins) shows here.
	mixed := consumerWorkload(10000)
	mixed.Ingresses, mixed.Plugins = 10000, 100
	b.Run("n=10000/change-mixed", func(b *testing.B) { benchConsumerChange(b, mixed, 10000) })
	b.Run("n=10000/secret-mixed", func(b *testing.B) { benchCredentialChange(b, mixed, 10000) })
}

// benchCredentialChange is runIncremental of the middle consumer's credential Secret given
// another key: a Secret change the consumer stage follows through what its pieces read.
func benchCredentialChange(b *testing.B, c workload.Config, n int) {
	benchMiddleConsumer(b, c, n, store.KindSecret, "-key-auth", func(o store.Object, i int, _ int) store.Object {
		s := o.(*corev1.Secret).DeepCopy()
		s.Data["key"] = []byte(fmt.Sprintf("rotated-%d", i%2))
		return s
	})
}

// benchConsumerChange is runIncremental of one KongConsumer (the middle one of n) moved between
// two groups.
func benchConsumerChange(b *testing.B, c workload.Config, n int) {
	benchMiddleConsumer(b, c, n, store.KindKongConsumer, "", func(o store.Object, i int, width int) store.Object {
		kc := o.(*configurationv1.KongConsumer).DeepCopy()
		kc.ConsumerGroups = []string{fmt.Sprintf("group-%0*d", width, i%2)}
		return kc
	})
}

// benchMiddleConsumer is runIncremental of an object of the middle consumer of n (its
// KongConsumer, or its Secret: the name plus suffix), its i-th version made by edit from the
// current one (width is the workload's zero padding of names).
func benchMiddleConsumer(b *testing.B, c workload.Config, n int, kind store.Kind, suffix string,
	edit func(o store.Object, i, width int) store.Object) {
	st := loadedConfig(b, c)
	width := max(5, len(fmt.Sprint(n-1)))
	ref := store.Ref{Kind: kind, Namespace: "default", Name: fmt.Sprintf("consumer-%0*d%s", width, n/2, suffix)}
	runIncremental(b, st, func(st *store.Store, i int) store.Object {
		o, ok := st.Get(ref)
		if !ok {
			b.Fatalf("%s not in the workload", ref)
		}
		return edit(o, i, width)
	})
}

func benchConsumersFull(b *testing.B, n int) {
	b.ReportAllocs()
	var cpu cpuMeter
	for b.Loop() {
		b.StopTimer()
		built := timedColdBuild(b, &cpu, loadedConfig(b, consumerWorkload(n)))
		if len(built.Problems) != 0 || len(built.Document.Consumers) != n || len(built.Document.ConsumerGroupConsumers) != n {
			b.Fatalf("%d problems, %d consumers, %d memberships; want none, %d, %d",
				len(built.Problems), len(built.Document.Consumers), len(built.Document.ConsumerGroupConsumers), n, n)
		}
		b.StartTimer()
	}
	cpu.Report(b)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/float64(n)*1e6, "ns/consumer")
}

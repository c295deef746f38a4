package translator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// consumerWorld is a crowd of KongConsumers contending for few usernames, custom_ids and
// credential values, so that one change reaches others: a consumer that takes or gives up a
// username decides the fate of the younger holders, whose other value decides others' in turn
// (the claim cascades of consumerclaims.go), and credential values collide and come apart.
type consumerWorld struct {
	r      *rand.Rand
	st     *store.Store
	epoch  time.Time
	nextID int
	log    []string
}

var (
	cwNamespaces = []string{"a", "b"}
	cwUsernames  = []string{"", "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9"}
	cwCustomIDs  = []string{"", "", "c0", "c1", "c2", "c3", "c4", "c5"}
	cwKeys       = []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"}
	cwGroups     = []string{"g0", "g1", "g2"}
)

func newConsumerWorld(t *testing.T, seed uint64) *consumerWorld {
	w := &consumerWorld{r: rand.New(rand.NewPCG(seed, 13)), st: store.New(),
		epoch: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, ns := range cwNamespaces {
		for i := range 6 {
			w.upsert(t, w.secret(ns, fmt.Sprintf("s%d", i)))
		}
		for _, g := range cwGroups {
			w.upsert(t, w.group(ns, g))
		}
		for i := range 40 {
			w.upsert(t, w.consumer(ns, fmt.Sprintf("c%02d", i)))
		}
	}
	w.upsert(t, w.ingressClass())
	return w
}

// ingressClass is our IngressClass, the cluster default or not: KongConsumers without a class
// annotation are ours only while it is.
func (w *consumerWorld) ingressClass() *networkingv1.IngressClass {
	ic := &networkingv1.IngressClass{ObjectMeta: w.meta("", "kong")}
	ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: pick(w.r, []string{"true", "false"})}
	ic.Spec.Controller = "ingress-controllers.konghq.com/kong"
	return ic
}

// touchAll re-applies every KongConsumer, editing some: more changes than the stage follows.
func (w *consumerWorld) touchAll(t *testing.T) string {
	for _, o := range w.st.Snapshot().Objects(store.KindKongConsumer) {
		c := o.(*configurationv1.KongConsumer).DeepCopy()
		if w.r.IntN(8) == 0 {
			w.editConsumer(t, c)
			continue
		}
		c.ResourceVersion += "x"
		w.upsert(t, c)
	}
	return "every KongConsumer re-applied, some edited"
}

func (w *consumerWorld) upsert(t *testing.T, o store.Object) {
	t.Helper()
	if _, err := w.st.Upsert(o); err != nil {
		t.Fatal(err)
	}
}

// created is one of few creation times, so that ties (broken by namespace/name) are common.
func (w *consumerWorld) created() metav1.Time {
	return metav1.NewTime(w.epoch.Add(time.Duration(w.r.IntN(4)) * time.Minute))
}

func (w *consumerWorld) meta(ns, name string) metav1.ObjectMeta {
	w.nextID++
	return metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(fmt.Sprint(w.nextID)),
		ResourceVersion: fmt.Sprint(w.nextID), CreationTimestamp: w.created(),
		Annotations: map[string]string{annIngressClass: "kong"}}
}

func (w *consumerWorld) secret(ns, name string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: w.meta(ns, name)}
	s.Labels = map[string]string{"konghq.com/credential": pick(w.r, []string{"key-auth", "key-auth", "basic-auth"})}
	s.Data = map[string][]byte{"key": []byte(pick(w.r, cwKeys)), "username": []byte(pick(w.r, cwKeys)),
		"password": []byte("p")}
	return s
}

func (w *consumerWorld) group(ns, name string) *kup.KongConsumerGroup {
	g := &kup.KongConsumerGroup{ObjectMeta: w.meta(ns, name)}
	if w.r.IntN(4) == 0 {
		g.Annotations[annIngressClass] = "other"
	}
	return g
}

func (w *consumerWorld) consumer(ns, name string) *configurationv1.KongConsumer {
	c := &configurationv1.KongConsumer{ObjectMeta: w.meta(ns, name),
		Username: pick(w.r, cwUsernames), CustomID: pick(w.r, cwCustomIDs)}
	for range w.r.IntN(3) {
		c.Credentials = append(c.Credentials, fmt.Sprintf("s%d", w.r.IntN(7))) // s6 is missing
	}
	for range w.r.IntN(3) {
		c.ConsumerGroups = append(c.ConsumerGroups, pick(w.r, append(slices.Clone(cwGroups), "g9")))
	}
	c.Annotations[annIngressClass] = pick(w.r, []string{"kong", "kong", "kong", "kong", "", "other"})
	return c
}

// change makes one random change and describes it.
func (w *consumerWorld) change(t *testing.T) string {
	ns := pick(w.r, cwNamespaces)
	switch n := w.r.IntN(20); {
	case n < 11:
		name := fmt.Sprintf("c%02d", w.r.IntN(44)) // c40 to c43 come and go
		if o, ok := w.st.Get(store.Ref{Kind: store.KindKongConsumer, Namespace: ns, Name: name}); ok && n == 0 {
			w.st.Delete(store.Ref{Kind: store.KindKongConsumer, Namespace: ns, Name: name})
			return "deleted KongConsumer " + ns + "/" + name
		} else if ok {
			return w.editConsumer(t, o.(*configurationv1.KongConsumer).DeepCopy())
		}
		w.upsert(t, w.consumer(ns, name))
		return "created KongConsumer " + ns + "/" + name
	case n < 16:
		name := fmt.Sprintf("s%d", w.r.IntN(7))
		if n == 11 {
			w.st.Delete(store.Ref{Kind: store.KindSecret, Namespace: ns, Name: name})
			return "deleted Secret " + ns + "/" + name
		}
		w.upsert(t, w.secret(ns, name))
		return "(re)created Secret " + ns + "/" + name
	case n == 18 && w.r.IntN(4) == 0:
		ic := w.ingressClass()
		w.upsert(t, ic)
		return "IngressClass default " + ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass]
	case n < 18:
		name := pick(w.r, cwGroups)
		if n == 16 {
			w.st.Delete(store.Ref{Kind: store.KindKongConsumerGroup, Namespace: ns, Name: name})
			return "deleted KongConsumerGroup " + ns + "/" + name
		}
		w.upsert(t, w.group(ns, name))
		return "(re)created KongConsumerGroup " + ns + "/" + name
	}
	name := fmt.Sprintf("s%d", w.r.IntN(6))
	if o, ok := w.st.Get(store.Ref{Kind: store.KindSecret, Namespace: ns, Name: name}); ok {
		s := o.(*corev1.Secret).DeepCopy()
		s.ResourceVersion += "x" // the same content under a new version
		w.upsert(t, s)
	}
	return "Secret " + ns + "/" + name + " re-applied unchanged"
}

// editConsumer changes one field of a KongConsumer.
func (w *consumerWorld) editConsumer(t *testing.T, c *configurationv1.KongConsumer) string {
	what := ""
	switch w.r.IntN(7) {
	case 0, 1:
		c.Username, what = pick(w.r, cwUsernames), "username"
	case 2:
		c.CustomID, what = pick(w.r, cwCustomIDs), "custom_id"
	case 3:
		c.CreationTimestamp, what = w.created(), "creationTimestamp"
	case 4:
		c.Credentials, what = w.consumer(c.Namespace, c.Name).Credentials, "credentials"
	case 5:
		c.ConsumerGroups, what = w.consumer(c.Namespace, c.Name).ConsumerGroups, "consumerGroups"
	default:
		c.Annotations[annIngressClass], what = pick(w.r, []string{"kong", "kong", "", "other"}), "class"
	}
	c.ResourceVersion += "x"
	w.upsert(t, c)
	return fmt.Sprintf("KongConsumer %s/%s %s (username %q, custom_id %q)", c.Namespace, c.Name, what, c.Username, c.CustomID)
}

// TestConsumerStageRandomChanges drives a warm Engine through random changes of a consumer
// crowd (single changes, small bursts and, rarely, a burst past maxDelta) and compares every
// build with BuildOnce of the same snapshot: config bytes and problems. It also checks that
// the stage followed most changes without starting over and that claim cascades and credential
// conflicts happened, so that the comparison covered them.
func TestConsumerStageRandomChanges(t *testing.T) {
	steps := 400
	if testing.Short() {
		steps = 150
	}
	var total consumerStats
	for seed := uint64(1); seed <= 4; seed++ {
		w := newConsumerWorld(t, seed)
		eng := NewEngine(DefaultOptions())
		for step := range steps {
			var did []string
			n := 1
			switch roll := w.r.IntN(40); {
			case roll == 0:
				n, did = 0, []string{w.touchAll(t)}
			case roll < 8:
				n = 2 + w.r.IntN(5)
			}
			for range n {
				did = append(did, w.change(t))
			}
			snap := w.st.Snapshot()
			got, err := eng.Build(snap)
			if err != nil {
				t.Fatal(err)
			}
			want, err := BuildOnce(snap, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if msg := builtMismatch(got, want); msg != "" {
				t.Fatalf("seed %d, step %d: warm build differs from BuildOnce after: %s\nearlier: %s\n%s", seed, step,
					strings.Join(did, "; "), strings.Join(w.log[max(0, len(w.log)-12):], "; "), msg)
			}
			if g, o := keptConsumers(want.Document), oracleKept(snap); !slices.Equal(g, o) {
				t.Fatalf("seed %d, step %d: kept consumers %v, want the oldest holder of each value: %v", seed, step, g, o)
			}
			w.log = append(w.log, did...)
		}
		s := eng.memos.consumerStage.stats
		total.rebuilds += s.rebuilds
		total.patches += s.patches
		total.cascades += s.cascades
		total.refusedCreds += s.refusedCreds
	}
	t.Logf("consumer stage: %+v", total)
	if total.patches < 10*total.rebuilds || total.cascades == 0 || total.refusedCreds == 0 {
		t.Errorf("the changes did not exercise the stage: %+v (want patches ≥ 10×rebuilds, cascades and consumers refused for a credential)", total)
	}
}

// keptConsumers are the namespace/name of the consumers in a document, sorted.
func keptConsumers(d *document.Document) []string {
	var out []string
	for _, c := range d.Consumers {
		var ns, name string
		for _, tag := range c.Tags {
			if v, ok := strings.CutPrefix(*tag, "k8s-namespace:"); ok {
				ns = v
			} else if v, ok := strings.CutPrefix(*tag, "k8s-name:"); ok {
				name = v
			}
		}
		out = append(out, ns+"/"+name)
	}
	slices.Sort(out)
	return out
}

// oracleKept is the rule consumerclaims.go implements, written as plainly as it is stated:
// in claim order, a served KongConsumer with a username or custom_id is kept when none of its
// global names (username, custom_id, unique credential values, each counted once) is held by
// a consumer kept before it; a kept one then holds them all.
func oracleKept(snap *store.Snapshot) []string {
	isDefault := false
	if o, ok := snap.Get(store.Ref{Kind: store.KindIngressClass, Name: "kong"}); ok {
		isDefault = o.(*networkingv1.IngressClass).Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true"
	}
	var served []*configurationv1.KongConsumer
	for _, o := range snap.Objects(store.KindKongConsumer) {
		c := o.(*configurationv1.KongConsumer)
		if class := c.Annotations[annIngressClass]; class == "kong" || (class == "" && isDefault) {
			served = append(served, c)
		}
	}
	slices.SortFunc(served, func(a, b *configurationv1.KongConsumer) int {
		return claimCompare(&consumerEntry{obj: a}, &consumerEntry{obj: b})
	})
	held := map[string]bool{}
	var kept []string
	for _, c := range served {
		names := oracleNames(snap, c)
		if c.Username == "" && c.CustomID == "" || slices.ContainsFunc(names, func(n string) bool { return held[n] }) {
			continue
		}
		for _, n := range names {
			held[n] = true
		}
		kept = append(kept, c.Namespace+"/"+c.Name)
	}
	slices.Sort(kept)
	return kept
}

// oracleNames are a KongConsumer's global names.
func oracleNames(snap *store.Snapshot, c *configurationv1.KongConsumer) []string {
	var names []string
	if c.Username != "" {
		names = append(names, "u:"+c.Username)
	}
	if c.CustomID != "" {
		names = append(names, "c:"+c.CustomID)
	}
	for _, name := range c.Credentials {
		o, ok := snap.Get(store.Ref{Kind: store.KindSecret, Namespace: c.Namespace, Name: name})
		if !ok {
			continue
		}
		if cred, _ := parseCredential(o.(*corev1.Secret), nil); cred != nil && cred.ukey != "" &&
			!slices.Contains(names, cred.ukey) {
			names = append(names, cred.ukey)
		}
	}
	return names
}

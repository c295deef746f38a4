package translator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

// incremental is the pipeline under test: a translation cache and a JSON fragment cache.
type incremental struct {
	tr  *Cache
	enc *document.JSONCache
}

func newIncremental() *incremental {
	return &incremental{tr: NewCache(DefaultOptions()), enc: document.NewJSONCache()}
}

// check compares the incremental translation and encoding of snap with a from-scratch one:
// document bytes, hash and problems must be identical.
func (in *incremental) check(t *testing.T, snap *store.Snapshot, what string) {
	t.Helper()
	want := coldResult(snap, DefaultOptions())
	wantJS, err := document.JSON(want.Document)
	if err != nil {
		t.Fatal(err)
	}
	got := in.tr.Translate(snap)
	gotJS, gotHash, err := in.enc.Encode(got.Document)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotJS, wantJS) {
		t.Fatalf("%s: incremental JSON differs from a full build\n--- got:\n%s\n--- want:\n%s", what, gotJS, wantJS)
	}
	if gotHash != document.Hash(wantJS) {
		t.Fatalf("%s: incremental hash %s, full build %s", what, gotHash, document.Hash(wantJS))
	}
	if g, w := problemsText(got.Problems), problemsText(want.Problems); g != w {
		t.Fatalf("%s: problems differ\n--- got:\n%s\n--- want:\n%s", what, g, w)
	}
	plain, err := document.JSON(got.Document)
	if err != nil || !bytes.Equal(plain, wantJS) {
		t.Fatalf("%s: document.JSON of the incremental document differs from the full build", what)
	}
}

// TestIncrementalGolden runs every golden case through the incremental path: cold, warm with
// the same snapshot, and warm with a new snapshot of new copies of the same objects.
func TestIncrementalGolden(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			objs := loadObjects(t, dir)
			snap, err := store.NewSnapshot(objs...)
			if err != nil {
				t.Fatal(err)
			}
			in := newIncremental()
			in.check(t, snap, "cold")
			in.check(t, snap, "warm")
			copies := make([]store.Object, len(objs))
			for i, o := range objs {
				copies[i] = o.DeepCopyObject().(store.Object)
			}
			snap2, err := store.NewSnapshot(copies...)
			if err != nil {
				t.Fatal(err)
			}
			in.check(t, snap2, "copies")
			in.check(t, snap, "back")
		})
	}
}

// TestIncrementalRandomChanges applies random sequences of adds, updates and deletes of
// Ingresses, Services, EndpointSlices, Secrets, IngressClasses (including flipping the default
// class), KongPlugins, KongClusterPlugins, KongConsumers (including adding and removing
// konghq.com/plugins) and KongUpstreamPolicies (and Services naming another one) to a store and compares the incremental result with a full build after
// each.
func TestIncrementalRandomChanges(t *testing.T) {
	dirs := goldenCases(t)
	seeds, steps := 12, 60
	if testing.Short() {
		seeds = 3
	}
	for seed := range seeds {
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 42))
			pool := changePool(t, dirs, r)
			st := store.New()
			for _, o := range pool {
				if r.IntN(4) > 0 {
					mustUpsert(t, st, o)
				}
			}
			in := newIncremental()
			in.check(t, st.Snapshot(), "initial")
			for step := range steps {
				var did []string
				for range 1 + r.IntN(3) {
					did = append(did, randomChange(t, st, pool, r))
				}
				in.check(t, st.Snapshot(), fmt.Sprintf("step %d %v", step, did))
			}
		})
	}
}

// changePool is the objects a random sequence draws from: three golden cases, the plugin cases
// with cluster, global and consumer plugins and with broken KongPlugins, and a small generated
// workload with TLS and KongPlugins.
func changePool(t *testing.T, dirs []string, r *rand.Rand) []store.Object {
	var pool []store.Object
	for range 3 {
		pool = append(pool, loadObjects(t, dirs[r.IntN(len(dirs))])...)
	}
	for _, name := range []string{"plugins-cluster", "plugins-consumer", "bad-plugin-config", "upstream-policy", "bad-upstream-policy"} {
		pool = append(pool, loadObjects(t, filepath.Join(goldenDir, name))...)
	}
	c := workload.Defaults(12)
	c.TLSSecrets, c.Namespaces, c.Seed, c.Plugins = 4, 2, int64(r.IntN(1000)), 2
	objs, err := workload.Objects(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if so, ok := o.(store.Object); ok {
			if _, err := store.KindOf(so); err == nil {
				pool = append(pool, so)
			}
		}
	}
	return pool
}

func mustUpsert(t *testing.T, st *store.Store, o store.Object) {
	t.Helper()
	if _, err := st.Upsert(o); err != nil {
		t.Fatal(err)
	}
}

// randomChange deletes, restores or modifies one object of the pool and says what it did.
func randomChange(t *testing.T, st *store.Store, pool []store.Object, r *rand.Rand) string {
	o := pool[r.IntN(len(pool))]
	ref, err := store.RefOf(o)
	if err != nil {
		t.Fatal(err)
	}
	cur, present := st.Get(ref)
	switch {
	case !present:
		mustUpsert(t, st, o)
		return "add " + ref.String()
	case r.IntN(4) == 0:
		st.Delete(ref)
		return "delete " + ref.String()
	}
	c := cur.DeepCopyObject().(store.Object)
	what := mutate(c, r)
	mustUpsert(t, st, c)
	return what + " " + ref.String()
}

// mutate changes one thing an object's translation depends on (or nothing: a new pointer with
// the same content must give the same result too).
func mutate(o runtime.Object, r *rand.Rand) string {
	n := r.IntN(3)
	switch o := o.(type) {
	case *networkingv1.Ingress:
		return mutateIngress(o, r.IntN(5))
	case *corev1.Service:
		switch n {
		case 0:
			setAnnotation(&o.ObjectMeta, annProtocol, "https")
		case 1:
			if len(o.Spec.Ports) > 0 {
				o.Spec.Ports[0].Port++
			}
		case 2:
			togglePlugins(&o.ObjectMeta, "plugin-00001, shared")
		}
		if r.IntN(3) == 0 { // name another policy (existing, invalid or missing), or none
			switch pol := []string{"", "by-header", "broken", "valid", "nowhere"}[r.IntN(5)]; pol {
			case "":
				delete(o.Annotations, annUpstreamPolicy)
			default:
				setAnnotation(&o.ObjectMeta, annUpstreamPolicy, pol)
			}
		}
	case *kup.KongUpstreamPolicy:
		mutatePolicy(&o.Spec, n)
	case *configurationv1.KongPlugin:
		mutatePlugin(&o.PluginFields, n)
	case *configurationv1.KongClusterPlugin:
		if n == 0 {
			toggleLabel(&o.ObjectMeta, "global")
		} else {
			mutatePlugin(&o.PluginFields, n)
		}
	case *configurationv1.KongConsumer:
		togglePlugins(&o.ObjectMeta, "limits, per-route-limits")
	case *discoveryv1.EndpointSlice:
		if len(o.Endpoints) == 0 {
			return "same"
		}
		switch n {
		case 0:
			ready := o.Endpoints[0].Conditions.Ready == nil || !*o.Endpoints[0].Conditions.Ready
			o.Endpoints[0].Conditions.Ready = &ready
		case 1:
			o.Endpoints = append(o.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.9.9." + strconv.Itoa(r.IntN(250))}})
		case 2:
			o.Endpoints[0].Addresses = []string{"not an address"} // a problem on the slice
		}
	case *corev1.Secret:
		if n == 0 {
			setAnnotation(&o.ObjectMeta, annTags, "changed")
		} else if n == 1 {
			o.Data = nil
		}
	case *networkingv1.IngressClass:
		v := "true"
		if o.Annotations[store.DefaultClassAnnotation] == "true" {
			v = "false"
		}
		setAnnotation(&o.ObjectMeta, store.DefaultClassAnnotation, v)
		return "flip default"
	}
	return "update" + strconv.Itoa(n)
}

func mutateIngress(o *networkingv1.Ingress, n int) string {
	switch n {
	case 0:
		setAnnotation(&o.ObjectMeta, annStripPath, "true")
	case 1:
		for i := range o.Spec.Rules {
			if h := o.Spec.Rules[i].HTTP; h != nil && len(h.Paths) > 0 {
				h.Paths[0].Path += "x"
				break
			}
		}
		o.CreationTimestamp = metav1.NewTime(o.CreationTimestamp.Add(-3600e9))
	case 3:
		togglePlugins(&o.ObjectMeta, "plugin-00000, limits, shared")
	case 2: // the same host and path as other Ingresses so mutated: ambiguous routes
		if len(o.Spec.Rules) > 0 && o.Spec.Rules[0].HTTP != nil && len(o.Spec.Rules[0].HTTP.Paths) > 0 {
			o.Spec.Rules[0].Host = "collide.example.com"
			o.Spec.Rules[0].HTTP.Paths[0].Path = "/collide"
		}
	}
	return "update ingress " + strconv.Itoa(n)
}

// togglePlugins removes konghq.com/plugins, or sets it to refs when absent.
func togglePlugins(m *metav1.ObjectMeta, refs string) {
	if _, ok := m.Annotations[annPlugins]; ok {
		delete(m.Annotations, annPlugins)
		return
	}
	setAnnotation(m, annPlugins, refs)
}

func toggleLabel(m *metav1.ObjectMeta, k string) {
	if m.Labels[k] == "true" {
		delete(m.Labels, k)
		return
	}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[k] = "true"
}

// mutatePolicy changes a KongUpstreamPolicy's algorithm, slots (to an invalid value and back)
// or health checks.
func mutatePolicy(s *kup.KongUpstreamPolicySpec, n int) {
	switch n {
	case 0:
		if s.HashOn == nil && s.StickySessions == nil {
			algo := "latency"
			if s.Algorithm != nil && *s.Algorithm == algo {
				algo = "least-connections"
			}
			s.Algorithm = &algo
		}
	case 1:
		slots := 5
		if s.Slots != nil && *s.Slots == 5 {
			slots = 200
		}
		s.Slots = &slots
	case 2:
		threshold := 10
		if s.Healthchecks == nil {
			s.Healthchecks = &kup.KongUpstreamHealthcheck{}
		} else if s.Healthchecks.Threshold != nil {
			threshold = *s.Healthchecks.Threshold + 1
		}
		s.Healthchecks.Threshold = &threshold
	}
}

// mutatePlugin changes a KongPlugin's config, enabled state or instance name.
func mutatePlugin(f *configurationv1.PluginFields, n int) {
	switch n {
	case 0:
		f.Config = json.RawMessage(`{"minute": 7}`)
	case 1:
		f.Disabled = !f.Disabled
	case 2:
		f.InstanceName += "x"
	}
}

func setAnnotation(m *metav1.ObjectMeta, k, v string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

// TestIncrementalPatchesWorkload checks that the common single changes on a generated workload
// take the fast path (patching the previous result), and still equal a full build.
func TestIncrementalPatchesWorkload(t *testing.T) {
	raw, err := workload.Objects(workload.Defaults(50))
	if err != nil {
		t.Fatal(err)
	}
	st := store.New()
	var ing *networkingv1.Ingress
	var es *discoveryv1.EndpointSlice
	for _, o := range raw {
		so := o.(store.Object)
		if _, err := store.KindOf(so); err != nil {
			continue
		}
		mustUpsert(t, st, so)
		switch o := o.(type) {
		case *networkingv1.Ingress:
			ing = o
		case *discoveryv1.EndpointSlice:
			es = o
		}
	}
	in := newIncremental()
	in.check(t, st.Snapshot(), "initial")
	ing2 := ing.DeepCopy()
	ing2.Spec.Rules[0].HTTP.Paths[0].Path = "/changed"
	mustUpsert(t, st, ing2)
	in.check(t, st.Snapshot(), "ingress path")
	es2 := es.DeepCopy()
	es2.Endpoints[0].Addresses[0] = "10.200.0.1"
	mustUpsert(t, st, es2)
	in.check(t, st.Snapshot(), "endpoint address")
	st.Delete(store.Ref{Kind: store.KindIngress, Namespace: ing.Namespace, Name: ing.Name})
	in.check(t, st.Snapshot(), "ingress deleted") // its Kong service loses every route: full
	if patched, full := in.tr.Stats(); patched != 2 || full != 2 {
		t.Errorf("patched %d, full %d translations; want 2 and 2", patched, full)
	}
}

// TestIsDNS1123Subdomain compares the hand-written check with Kubernetes' regexp version.
func TestIsDNS1123Subdomain(t *testing.T) {
	cases := []string{"", "a", "A", "a.b", "a..b", ".a", "a.", "-a", "a-", "a-b.c-d", "a_b", "xn--bcher-kva.example",
		"0.0", "a.-b", "a-.b", "ü.example", strings.Repeat("a", 253), strings.Repeat("a", 254), "a b", "*.a"}
	for _, h := range cases {
		want := len(validation.IsDNS1123Subdomain(h)) == 0
		if got := isDNS1123Subdomain(h); got != want {
			t.Errorf("isDNS1123Subdomain(%q) = %v, Kubernetes says %v", h, got, want)
		}
	}
}

// TestIncrementalTLSClaimOrder: an Ingress whose only change is its creation time can win a TLS
// host from another Ingress; the patched result must follow, like a full build.
func TestIncrementalTLSClaimOrder(t *testing.T) {
	c := workload.Defaults(3)
	c.TLSSecrets = 2
	raw, err := workload.Objects(c)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New()
	var ings []*networkingv1.Ingress
	for _, o := range raw {
		so := o.(store.Object)
		if _, err := store.KindOf(so); err != nil {
			continue
		}
		mustUpsert(t, st, so)
		if ing, ok := o.(*networkingv1.Ingress); ok {
			ings = append(ings, ing)
		}
	}
	in := newIncremental()
	second := ings[1].DeepCopy()
	second.Spec.TLS[0].Hosts = append(second.Spec.TLS[0].Hosts, ings[0].Spec.TLS[0].Hosts[0])
	second.CreationTimestamp = metav1.NewTime(ings[0].CreationTimestamp.Add(3600e9))
	mustUpsert(t, st, second)
	in.check(t, st.Snapshot(), "second claims the first's host, younger")
	older := second.DeepCopy()
	older.CreationTimestamp = metav1.NewTime(ings[0].CreationTimestamp.Add(-3600e9))
	mustUpsert(t, st, older)
	in.check(t, st.Snapshot(), "second becomes older and wins the host")
}

// TestIncrementalPluginAnnotation: an Ingress gaining, changing or losing konghq.com/plugins
// changes the plugins and their problems; the fast path patches such changes by rebuilding the
// plugins from the patched document, and must equal a full build.
func TestIncrementalPluginAnnotation(t *testing.T) {
	c := workload.Defaults(6)
	c.Plugins = 2
	raw, err := workload.Objects(c)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New()
	var first *networkingv1.Ingress
	for _, o := range raw {
		so := o.(store.Object)
		if _, err := store.KindOf(so); err != nil {
			continue
		}
		if ing, ok := o.(*networkingv1.Ingress); ok && first == nil {
			first = ing
			ing = ing.DeepCopy()
			delete(ing.Annotations, annPlugins)
			so = ing
		}
		mustUpsert(t, st, so)
	}
	broken := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: first.Namespace, Name: "broken"},
		PluginFields: configurationv1.PluginFields{PluginName: "cors", Config: json.RawMessage(`[1]`)}}
	mustUpsert(t, st, broken)
	in := newIncremental()
	in.check(t, st.Snapshot(), "initial")
	steps := []struct {
		what, plugins string
		want          int
	}{
		{"path of the Ingress without plugins", "", 5},
		{"host of the Ingress without plugins", "", 5},
		{"Ingress gains konghq.com/plugins", first.Annotations[annPlugins], 6},
		{"Ingress references a missing plugin too", first.Annotations[annPlugins] + ", missing", 6},
		{"Ingress references only a missing plugin", "missing", 5},
		{"Ingress references a broken KongPlugin", "broken", 5},
		{"Ingress stops referencing it: its problem goes", first.Annotations[annPlugins], 6},
		{"Ingress loses konghq.com/plugins", "", 5},
	}
	for i, step := range steps {
		ing := first.DeepCopy()
		delete(ing.Annotations, annPlugins)
		if step.plugins != "" {
			ing.Annotations[annPlugins] = step.plugins
		}
		ing.Spec.Rules[0].HTTP.Paths[0].Path = fmt.Sprintf("/v%d", i)
		if strings.Contains(step.what, "host") {
			ing.Spec.Rules[0].Host = fmt.Sprintf("h%d.example.com", i)
		}
		mustUpsert(t, st, ing)
		in.check(t, st.Snapshot(), step.what)
		if got := len(in.tr.Translate(st.Snapshot()).Document.Plugins); got != step.want {
			t.Errorf("%s: %d plugins, want %d", step.what, got, step.want)
		}
	}
	if patched, full := in.tr.Stats(); patched != 2*len(steps) || full != 1 {
		t.Errorf("patched %d, full %d translations; want %d and 1", patched, full, 2*len(steps))
	}
}

// TestIncrementalUpstreamPolicy: changing a KongUpstreamPolicy patches the previous result and
// replaces exactly the upstreams of the Services that name it; every other entity keeps its
// pointer. Deleting, re-adding or breaking a policy (problems) takes a full pass; all equal a
// full build.
func TestIncrementalUpstreamPolicy(t *testing.T) {
	raw, err := workload.Objects(workload.Defaults(20))
	if err != nil {
		t.Fatal(err)
	}
	st := store.New()
	named := map[string]string{} // upstream name → policy its Service names
	nSvc := 0
	for _, o := range raw {
		so := o.(store.Object)
		if _, err := store.KindOf(so); err != nil {
			continue
		}
		if svc, ok := so.(*corev1.Service); ok {
			svc = svc.DeepCopy()
			if pol := []string{"pol-a", "pol-a", "pol-a", "pol-b", "pol-b"}; nSvc < len(pol) {
				setAnnotation(&svc.ObjectMeta, annUpstreamPolicy, pol[nSvc])
				for _, p := range svc.Spec.Ports {
					named[svc.Name+"."+svc.Namespace+"."+strconv.Itoa(int(p.Port))+".svc"] = pol[nSvc]
				}
			}
			nSvc++
			so = svc
		}
		mustUpsert(t, st, so)
	}
	ns := ""
	for _, o := range raw {
		if svc, ok := o.(*corev1.Service); ok {
			ns = svc.Namespace // every workload Service of Defaults(20) is in one namespace
			break
		}
	}
	policy := func(name, algo string, slots int) *kup.KongUpstreamPolicy {
		return &kup.KongUpstreamPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: kup.KongUpstreamPolicySpec{Algorithm: &algo, Slots: &slots}}
	}
	mustUpsert(t, st, policy("pol-a", "latency", 100))
	mustUpsert(t, st, policy("pol-b", "least-connections", 100))
	in := newIncremental()
	in.check(t, st.Snapshot(), "initial")
	before := upstreamsByName(in.tr.Translate(st.Snapshot()))
	if got := *before[firstNamed(t, named, "pol-a")].Algorithm; got != "latency" {
		t.Fatalf("pol-a not applied: algorithm %s", got)
	}
	mustUpsert(t, st, policy("pol-a", "least-connections", 200))
	in.check(t, st.Snapshot(), "pol-a updated")
	after := upstreamsByName(in.tr.Translate(st.Snapshot()))
	changed := 0
	for name, u := range after {
		if rebuilt := u != before[name]; rebuilt != (named[name] == "pol-a") {
			t.Errorf("upstream %s (policy %q): rebuilt = %v", name, named[name], rebuilt)
		} else if rebuilt {
			changed++
		}
	}
	if changed == 0 || *after[firstNamed(t, named, "pol-a")].Slots != 200 {
		t.Fatalf("%d upstreams rebuilt; pol-a's slots not applied", changed)
	}
	// Translate ran four times: cold (full), then the same snapshot, the update and the same
	// snapshot again, all patched.
	if patched, full := in.tr.Stats(); patched != 3 || full != 1 {
		t.Errorf("patched %d, full %d translations; want 3 and 1", patched, full)
	}
	st.Delete(store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: ns, Name: "pol-b"})
	in.check(t, st.Snapshot(), "pol-b deleted: problems on its Services")
	mustUpsert(t, st, policy("pol-b", "round-robin", 50))
	in.check(t, st.Snapshot(), "pol-b back")
	mustUpsert(t, st, policy("pol-a", "least-connections", 1))
	in.check(t, st.Snapshot(), "pol-a invalid")
	mustUpsert(t, st, policy("pol-a", "latency", 10))
	in.check(t, st.Snapshot(), "pol-a valid again")
	mustUpsert(t, st, policy("unused", "latency", 10))
	in.check(t, st.Snapshot(), "a policy no Service names")
}

func upstreamsByName(res Result) map[string]*document.Upstream {
	out := map[string]*document.Upstream{}
	for _, u := range res.Document.Upstreams {
		out[*u.Name] = u
	}
	return out
}

func firstNamed(t *testing.T, named map[string]string, pol string) string {
	t.Helper()
	for name, p := range named {
		if p == pol {
			return name
		}
	}
	t.Fatalf("no upstream names %s", pol)
	return ""
}

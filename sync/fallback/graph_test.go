package fallback

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

func service(ns, name string, ann map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann}}
}

func ingress(ns, name string, ann map[string]string, services ...string) *networkingv1.Ingress {
	var paths []networkingv1.HTTPIngressPath
	for _, s := range services {
		paths = append(paths, networkingv1.HTTPIngressPath{Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: s}}})
	}
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}

func plugin(ns, name string) *configurationv1.KongPlugin {
	return &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		PluginFields: configurationv1.PluginFields{PluginName: "key-auth"}}
}

func mustSnap(t testing.TB, objs ...store.Object) *store.Snapshot {
	t.Helper()
	s, err := store.NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func affectedStrings(as []Affected) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = fmt.Sprintf("%s <- %v", a.Ref, refStrings(a.Causes))
	}
	return out
}

var (
	svcA = store.Ref{Kind: store.KindService, Namespace: "a", Name: "svc"}
	svcB = store.Ref{Kind: store.KindService, Namespace: "b", Name: "svc"}
)

// The walk follows dependants transitively (Secret → KongPlugin → Service → Ingress) and lists
// every broken object that took each one down.
func TestReachTransitive(t *testing.T) {
	p := plugin("a", "p")
	p.ConfigFrom = &configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Secret: "sec"}}
	snap := mustSnap(t,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "sec"}}, p,
		service("a", "svc", map[string]string{annPlugins: "p"}), service("a", "other", nil),
		ingress("a", "i", nil, "svc"), ingress("a", "j", nil, "other"), ingress("a", "k", nil, "svc", "other"))
	got := affectedStrings(NewGraph(snap).Reach([]store.Ref{{Kind: store.KindSecret, Namespace: "a", Name: "sec"},
		{Kind: store.KindService, Namespace: "a", Name: "other"}, {Kind: store.KindService, Namespace: "a", Name: "missing"}}))
	want := []string{
		"Ingress a/i <- [Secret a/sec]",
		"Ingress a/j <- [Service a/other]",
		"Ingress a/k <- [Secret a/sec Service a/other]",
		"KongPlugin a/p <- [Secret a/sec]",
		"Secret a/sec <- [Secret a/sec]",
		"Service a/other <- [Service a/other]",
		"Service a/svc <- [Secret a/sec]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("reached\n got %q\nwant %q", got, want)
	}
}

// KIC's rules make no cycle, but the walk must not depend on that: a rule table where Services
// name each other in a ring (and themselves) reaches the ring once and stops.
func TestReachCycle(t *testing.T) {
	ring := map[store.Kind]rule{store.KindService: func(_ *store.Snapshot, obj store.Object, dep func(store.Ref)) {
		dep(store.Ref{Kind: store.KindService, Namespace: obj.GetNamespace(), Name: obj.GetAnnotations()["next"]})
		dep(store.Ref{Kind: store.KindService, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	}}
	const n = 1000
	var objs []store.Object
	for i := 0; i < n; i++ {
		objs = append(objs, service("a", fmt.Sprint("s", i), map[string]string{"next": fmt.Sprint("s", (i+1)%n)}))
	}
	objs = append(objs, service("a", "outside", nil))
	g := newGraph(mustSnap(t, objs...), ring)
	got := g.Reach([]store.Ref{{Kind: store.KindService, Namespace: "a", Name: "s500"}})
	if len(got) != n {
		t.Fatalf("reached %d objects, want the ring's %d", len(got), n)
	}
	for _, a := range got {
		if a.Ref.Name == "outside" || len(a.Causes) != 1 || a.Causes[0].Name != "s500" {
			t.Fatalf("%s <- %v", a.Ref, a.Causes)
		}
	}
}

// 10,000 Ingresses on one broken Service are all left out, each with one cause; 10,000 broken
// plugins named by one Ingress list at most MaxCauses causes. Both stay linear.
func TestReachTenThousand(t *testing.T) {
	const n = 10000
	objs := []store.Object{service("a", "svc", nil)}
	names := ""
	for i := 0; i < n; i++ {
		objs = append(objs, ingress("a", fmt.Sprint("i", i), nil, "svc", "svc", "svc"), plugin("a", fmt.Sprint("p", i)))
		names += fmt.Sprint("p", i, ",")
	}
	objs = append(objs, ingress("a", "all-plugins", map[string]string{annPlugins: names}))
	snap := mustSnap(t, objs...)
	start := time.Now()
	g := NewGraph(snap)
	if g.Edges() != 2*n {
		t.Errorf("%d edges, want %d (one per Ingress on the Service, however often named, and one per plugin)", g.Edges(), 2*n)
	}
	got := g.Reach([]store.Ref{svcA})
	if len(got) != n+1 {
		t.Fatalf("reached %d, want %d", len(got), n+1)
	}
	var broken []store.Ref
	for i := 0; i < n; i++ {
		broken = append(broken, store.Ref{Kind: store.KindKongPlugin, Namespace: "a", Name: fmt.Sprint("p", i)})
	}
	got = g.Reach(broken)
	i := slices.IndexFunc(got, func(a Affected) bool { return a.Ref.Name == "all-plugins" })
	if len(got) != n+1 || i < 0 || len(got[i].Causes) != MaxCauses {
		t.Fatalf("reached %d; the Ingress naming every plugin: %v", len(got), got[i].Causes)
	}
	took := time.Since(start)
	t.Logf("graph of %d objects and %d edges, two walks: %v", g.Len(), g.Edges(), took)
	if took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

// A tenant's broken object takes down only what references it: an Ingress of another namespace
// naming a Service, a KongPlugin or a Secret of the same name is untouched, and a namespace
// whose own KongPlugin shadows a broken KongClusterPlugin of that name keeps its objects. Only a
// real cross-namespace reference (a route's backendRef naming the namespace) follows.
func TestReachNamespaces(t *testing.T) {
	snap := snapOf(t, targets+`---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i, namespace: a, annotations: {konghq.com/plugins: p}}
spec: {rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}]}}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i, namespace: b, annotations: {konghq.com/plugins: p}}
spec: {rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}]}}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: a}
spec: {rules: [{backendRefs: [{name: svc, namespace: b, kind: Service, port: 80}]}]}
`)
	g := NewGraph(snap)
	cases := []struct {
		broken store.Ref
		want   []string
	}{
		{svcB, []string{"HTTPRoute a/r", "Ingress b/i", "Service b/svc"}},
		{svcA, []string{"Ingress a/i", "Service a/svc"}},
		{store.Ref{Kind: store.KindKongPlugin, Namespace: "a", Name: "p"}, []string{"Ingress a/i", "KongPlugin a/p"}},
		{store.Ref{Kind: store.KindKongClusterPlugin, Name: "p"}, []string{"Ingress b/i", "KongClusterPlugin p"}},
		{store.Ref{Kind: store.KindSecret, Namespace: "b", Name: "sec"}, []string{"Secret b/sec"}},
		{store.Ref{Kind: store.KindHTTPRoute, Namespace: "a", Name: "r"}, []string{"HTTPRoute a/r"}},
	}
	for _, c := range cases {
		if got := refStrings(refsOf(g.Reach([]store.Ref{c.broken}))); !slices.Equal(got, c.want) {
			t.Errorf("%s broken: left out %q, want %q", c.broken, got, c.want)
		}
	}
}

// Backfill puts back, from the last valid snapshot, each excluded object it holds with the same
// UID and what depended on it there; an object recreated since (another UID) is not put back.
func TestBackfill(t *testing.T) {
	withUID := func(o store.Object, uid string) store.Object { o.SetUID(types.UID(uid)); return o }
	last := mustSnap(t,
		withUID(service("a", "svc", map[string]string{"v": "old"}), "s1"),
		withUID(ingress("a", "i", map[string]string{"v": "old"}, "svc"), "i1"),
		withUID(ingress("a", "gone", nil, "svc"), "g1"),
		withUID(service("a", "recreated", map[string]string{"v": "old"}), "r1"))
	cur := mustSnap(t,
		withUID(service("a", "svc", map[string]string{"v": "new"}), "s1"),
		withUID(ingress("a", "i", map[string]string{"v": "new"}, "svc"), "i1"),
		withUID(ingress("a", "new", nil, "svc"), "n1"),
		withUID(service("a", "recreated", map[string]string{"v": "new"}), "r2"))
	broken := []store.Ref{svcA, {Kind: store.KindService, Namespace: "a", Name: "recreated"}}
	p := Backfill(NewGraph(cur), NewGraph(last), broken)
	if got, want := refStrings(p.ExcludedRefs()), []string{"Ingress a/i", "Ingress a/new", "Service a/recreated", "Service a/svc"}; !slices.Equal(got, want) {
		t.Errorf("excluded %q, want %q", got, want)
	}
	got := affectedStrings(p.Backfilled)
	want := []string{"Ingress a/gone <- [Service a/svc]", "Ingress a/i <- [Ingress a/i Service a/svc]", "Service a/svc <- [Service a/svc]"}
	if !slices.Equal(got, want) {
		t.Errorf("backfilled\n got %q\nwant %q", got, want)
	}
	applied, err := p.Apply(cur)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, k := range []store.Kind{store.KindService, store.KindIngress} {
		for _, o := range applied.Objects(k) {
			versions[string(k)+" "+o.GetName()] = o.GetAnnotations()["v"]
		}
	}
	wantV := map[string]string{"Service svc": "old", "Ingress i": "old", "Ingress gone": ""}
	if !maps.Equal(versions, wantV) {
		t.Errorf("applied snapshot %v, want %v", versions, wantV)
	}
	if p := Backfill(NewGraph(cur), nil, broken); len(p.Backfilled) != 0 || len(p.Excluded) != 4 {
		t.Errorf("without a last valid snapshot: %+v", p)
	}
}

// A graph is reused for a snapshot whose followed kinds did not change (an EndpointSlice did),
// rebound to it, and rebuilt when one did; either way it walks as a new graph would.
func TestGraphFor(t *testing.T) {
	st := store.New()
	for _, o := range []store.Object{service("a", "svc", nil), ingress("a", "i", nil, "svc"),
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "svc-1"}}} {
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	s1 := st.Snapshot()
	g1 := (*Graph)(nil).For(s1)
	if _, err := st.Upsert(&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "svc-2"}}); err != nil {
		t.Fatal(err)
	}
	s2 := st.Snapshot()
	g2 := g1.For(s2)
	if g2 == g1 || g2.edges == nil || &g2.edges[0] != &g1.edges[0] || g2.snap != s2 {
		t.Error("an EndpointSlice change rebuilt the graph, or did not rebind it")
	}
	slice := store.Ref{Kind: store.KindEndpointSlice, Namespace: "a", Name: "svc-2"}
	if got := refStrings(refsOf(g2.Reach([]store.Ref{svcA, slice}))); !slices.Equal(got, []string{"EndpointSlice a/svc-2", "Ingress a/i", "Service a/svc"}) {
		t.Errorf("rebound graph reached %q", got)
	}
	if _, err := st.Upsert(ingress("a", "j", nil, "svc")); err != nil {
		t.Fatal(err)
	}
	g3 := g2.For(st.Snapshot())
	if got := refStrings(refsOf(g3.Reach([]store.Ref{svcA}))); !slices.Equal(got, []string{"Ingress a/i", "Ingress a/j", "Service a/svc"}) {
		t.Errorf("after an Ingress was added, reached %q", got)
	}
}

package translator

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

var (
	engineSeed  = flag.Uint64("engine.seed", 1, "TestEngineRandomChanges: first seed (0: one taken from the clock, logged)")
	engineSeeds = flag.Int("engine.seeds", 4, "TestEngineRandomChanges: number of seeds, from -engine.seed up")
	engineSteps = flag.Int("engine.steps", 300, "TestEngineRandomChanges: builds per seed (a build follows one change or a burst)")
)

// TestEngineRandomChanges drives one warm Engine through long random sequences of changes to a
// store and compares every Build with BuildOnce of the same snapshot: config bytes, hash and
// problems must be identical. The store starts with a generated workload (TLS Secrets,
// KongPlugins, KongConsumers with credential Secrets, two namespaces), objects connecting it to
// the kinds it lacks (upstream policies its Services name, KongClusterPlugins, a second
// IngressClass, a plugin-config Secret, a second Ingress claiming a TLS host), and the objects
// of a dozen golden cases drawn by seed (cluster, consumer and service plugins, broken plugins
// and plugin Secrets, upstream policies, TLS claims, default backends, class edge cases,
// credentials of every type, CA and client certificates, EndpointSlices, ExternalName
// Services, annotations).
//
// Every change picks one of store.Kinds (all nine) and either edits a field translation reads
// (see the mutate* functions: paths, path types, hosts, backends, ports, annotations, classes,
// TLS entries, default backends, creation times (also set next to a rival's), endpoints, Secret
// data and labels, plugin config and fields, consumer usernames and credentials, policy fields,
// the default-class annotation; also the IngressClass controller, which it ignores), often to
// an invalid value; deletes an object; re-creates one under its name with a
// new UID and creation time; restores a deleted one; clones one under a new name; or upserts a
// copy with the same content. Some changes are undone a few steps later (an Ingress moved to
// another class and back, an IngressClass deleted and recreated, the default class toggled and
// back). Most builds follow a single change; some follow a burst of several, a few a burst of
// more than 64 (past the store's and the caches' patch limits).
//
// Now and then a build is of the snapshot Without a few objects (as the sync loop builds when
// Kong rejected some), or of one of the last snapshots again; every fourth seed translates with
// zero Options.
//
// It also checks that a Build leaves the previous Built alone: its config bytes and document
// must still encode to what they did (the sync loop may still be sending them).
//
// The sequence depends only on the seed (prefix-stable: more steps extend it). Flags:
// -engine.seed, -engine.seeds and -engine.steps run other or longer sequences, e.g.
//
//	go test ./translator/ -run TestEngineRandomChanges -engine.seed=0 -engine.seeds=20 -engine.steps=3000
func TestEngineRandomChanges(t *testing.T) {
	first, seeds, steps := *engineSeed, *engineSeeds, *engineSteps
	if first == 0 {
		first = uint64(time.Now().UnixNano())
	}
	if testing.Short() {
		seeds, steps = min(seeds, 2), min(steps, 100)
	}
	counts := map[string]int{}
	for seed := first; seed < first+uint64(seeds); seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d, %d steps (rerun: -run TestEngineRandomChanges -engine.seed=%d -engine.seeds=1 -engine.steps=%d)",
				seed, steps, seed, steps)
			for k, n := range runRandomChanges(t, seed, steps) {
				counts[k] += n
			}
		})
	}
	// Long enough runs must have edited, deleted and (re-)created objects of every kind.
	if t.Failed() || seeds*steps < 600 {
		return
	}
	for _, k := range store.Kinds {
		for _, action := range []string{"edit", "delete"} {
			if counts[string(k)+" "+action] == 0 {
				t.Errorf("no %s of a %s in %d steps", action, k, seeds*steps)
			}
		}
		if counts[string(k)+" create"]+counts[string(k)+" recreate"]+counts[string(k)+" restore"] == 0 {
			t.Errorf("no %s created or re-created in %d steps", k, seeds*steps)
		}
	}
}

// randomOptions are the Options of a seed: most use the defaults; every fourth the zero value
// (class "kong" by default, no cluster domain).
func randomOptions(seed uint64) Options {
	if seed%4 == 3 {
		return Options{}
	}
	return DefaultOptions()
}

// runRandomChanges runs one seed's sequence and returns its change counts.
func runRandomChanges(t *testing.T, seed uint64, steps int) map[string]int {
	w := newWorld(t, seed)
	opts := randomOptions(seed)
	eng := NewEngine(opts)
	var prev Built
	var prevJSON []byte
	var recent []*store.Snapshot // the last snapshots built, for going back to one
	check := func(step int, did []string) {
		t.Helper()
		snap, built := w.st.Snapshot(), "the store's snapshot"
		// Now and then the Engine gets what else the sync loop or a caller may hand it: the
		// snapshot without some objects (Kong rejected them), or an earlier snapshot again.
		switch roll := w.r.IntN(100); {
		case roll < 6:
			var refs []store.Ref
			for range 1 + w.r.IntN(3) {
				if present := w.refs(w.pickKind(), true); len(present) > 0 {
					refs = append(refs, pick(w.r, present))
				}
			}
			snap, built = snap.Without(refs...), fmt.Sprintf("the store's snapshot Without %v", refs)
		case roll < 8 && len(recent) > 1:
			i := w.r.IntN(len(recent) - 1)
			snap, built = recent[i], fmt.Sprintf("the snapshot built %d builds ago", len(recent)-i)
		}
		if recent = append(recent, snap); len(recent) > 8 {
			recent = recent[1:]
		}
		got, err := eng.Build(snap)
		if err != nil {
			t.Fatalf("seed %d, step %d: warm Build: %v\nchanges: %s", seed, step, err, strings.Join(did, "; "))
		}
		want, err := BuildOnce(snap, opts)
		if err != nil {
			t.Fatalf("seed %d, step %d: BuildOnce: %v", seed, step, err)
		}
		if msg := builtMismatch(got, want); msg != "" {
			t.Fatalf("seed %d, step %d: the warm build of %s differs from BuildOnce of it (options %+v)\n"+
				"changes since the previous build: %s\nearlier changes (newest last):\n  %s\n%s",
				seed, step, built, opts, strings.Join(did, "; "), strings.Join(w.history(12, len(did)), "\n  "), msg)
		}
		if prev.Config != nil {
			js, err := document.JSON(prev.Document)
			if err != nil || !bytes.Equal(js, prevJSON) || !bytes.Equal(prev.Config.Bytes(), prevJSON) {
				t.Fatalf("seed %d, step %d: Build modified the previous Built (its document or config bytes)\n"+
					"changes: %s\n%s", seed, step, strings.Join(did, "; "), bytesExcerpt(prev.Config.Bytes(), prevJSON))
			}
		}
		prev, prevJSON = got, bytes.Clone(got.Config.Bytes())
	}
	check(0, []string{"initial"})
	for step := 1; step <= steps; step++ {
		n := 1
		switch roll := w.r.IntN(100); {
		case roll < 12:
			n = 2 + w.r.IntN(6)
		case roll < 13:
			n = 65 + w.r.IntN(20)
		}
		start := len(w.log)
		for range n {
			w.change()
		}
		check(step, w.log[start:])
	}
	// Everything pending is applied, then checked once more.
	start := len(w.log)
	for len(w.pending) > 0 {
		w.applyPending(w.pending[0])
	}
	if len(w.log) > start {
		check(steps+1, w.log[start:])
	}
	w.report(steps)
	return w.counts
}

// world is the store under random change, with what the changes draw from.
type world struct {
	t     *testing.T
	seed  uint64
	r     *rand.Rand
	st    *store.Store
	known map[store.Kind][]store.Ref // every ref ever stored, by kind, in order of first appearance
	last  map[store.Ref]store.Object // the last version stored of each known ref

	namespaces []string
	hosts      []string
	tlsData    []map[string][]byte // data of TLS Secrets in the pool, for rotations
	usernames  []string

	clock      time.Time // creation time of re-created objects
	uids       int
	rvs        int
	step       int
	pending    []pendingChange
	pendingIDs int
	log        []string
	counts     map[string]int // "Kind action" → changes made
}

// pendingChange undoes an earlier change some steps later.
type pendingChange struct {
	id   int
	due  int
	what string
	fn   func()
}

func newWorld(t *testing.T, seed uint64) *world {
	r := rand.New(rand.NewPCG(seed, 0x6b6f6e67))
	w := &world{t: t, seed: seed, r: r, st: store.New(), known: map[store.Kind][]store.Ref{},
		last: map[store.Ref]store.Object{}, counts: map[string]int{},
		clock: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	pool := w.initialPool()
	for _, o := range pool {
		w.observe(o)
	}
	// A few objects start out absent: the first changes of their kinds may create them.
	for _, o := range pool {
		if r.IntN(10) > 0 {
			w.put(o)
		}
	}
	return w
}

// randomChangeCases are the golden cases a sequence starts with: half of them, drawn by seed,
// and two other cases drawn from the whole corpus; later ones replace objects of the same ref.
var randomChangeCases = []string{
	"plugins-cluster", "plugins-consumer", "plugins-service", "bad-plugin-config", "bad-plugin-secret",
	"upstream-policy", "bad-upstream-policy", "tls-oldest-claim", "tls-shared-secret", "default-backend-merge",
	"default-backend-oldest", "class-edge-cases", "consumer-credential-types", "consumer-credential-conflicts",
	"ca-certificates", "client-cert", "endpointslices", "externalname", "service-annotations", "route-annotations",
}

func (w *world) initialPool() []store.Object {
	c := workload.Defaults(10)
	c.TLSSecrets, c.Consumers, c.Plugins, c.Namespaces = 4, 4, 2, 2
	c.UnrelatedSecrets, c.SecretSize, c.Seed = 2, 64, int64(w.seed)
	pool := workloadObjects(w.t, c)
	pool = append(pool, extraObjects(pool)...)
	dirs := goldenCases(w.t)
	names := slices.Clone(randomChangeCases)
	w.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	names = names[:len(names)/2]
	for range 2 {
		names = append(names, filepath.Base(dirs[w.r.IntN(len(dirs))]))
	}
	for _, name := range names {
		pool = append(pool, loadObjects(w.t, filepath.Join(goldenDir, name))...)
	}
	pool = uniqueObjects(pool)
	seenNS, seenHost, seenUser := map[string]bool{}, map[string]bool{}, map[string]bool{}
	addHost := func(h string) {
		if h != "" && !seenHost[h] {
			seenHost[h] = true
			w.hosts = append(w.hosts, h)
		}
	}
	for _, o := range pool {
		if ns := o.GetNamespace(); ns != "" && !seenNS[ns] {
			seenNS[ns] = true
			w.namespaces = append(w.namespaces, ns)
		}
		switch o := o.(type) {
		case *networkingv1.Ingress:
			for _, rule := range o.Spec.Rules {
				addHost(rule.Host)
			}
			for _, tls := range o.Spec.TLS {
				for _, h := range tls.Hosts {
					addHost(h)
				}
			}
		case *corev1.Secret:
			if len(o.Data["tls.crt"]) > 0 && len(o.Data["tls.key"]) > 0 {
				w.tlsData = append(w.tlsData, o.Data)
			}
		case *configurationv1.KongConsumer:
			if o.Username != "" && !seenUser[o.Username] {
				seenUser[o.Username] = true
				w.usernames = append(w.usernames, o.Username)
			}
		}
	}
	return pool
}

// extraObjects are objects of every kind the workload lacks or leaves unconnected: upstream
// policies named by its first Services, KongClusterPlugins (one global), another IngressClass
// and a Secret holding plugin configuration, in the workload's namespaces.
func extraObjects(workloadObjs []store.Object) []store.Object {
	str := func(v string) *string { return &v }
	var out []store.Object
	policies := 0
	for _, o := range workloadObjs {
		if svc, ok := o.(*corev1.Service); ok && policies < 2 {
			name := fmt.Sprintf("pol-%d", policies)
			c := svc.DeepCopy()
			setAnn(&c.ObjectMeta, annUpstreamPolicy, name)
			spec := kup.KongUpstreamPolicySpec{Algorithm: str("least-connections")}
			if policies == 1 {
				spec = kup.KongUpstreamPolicySpec{Algorithm: str("consistent-hashing"), HashOn: &kup.KongUpstreamHash{Header: str("x-user")}}
			}
			out = append(out, c, &kup.KongUpstreamPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: name}, Spec: spec})
			policies++
		}
	}
	// The second TLS Ingress also claims the first one's host, with its own Secret: which one is
	// older decides who serves it.
	var tlsIngs []*networkingv1.Ingress
	for _, o := range workloadObjs {
		if ing, ok := o.(*networkingv1.Ingress); ok && len(ing.Spec.TLS) > 0 {
			tlsIngs = append(tlsIngs, ing)
		}
	}
	if len(tlsIngs) >= 2 {
		c := tlsIngs[1].DeepCopy()
		c.Spec.TLS[0].Hosts = append(c.Spec.TLS[0].Hosts, tlsIngs[0].Spec.TLS[0].Hosts[0])
		out = append(out, c)
	}
	kong := map[string]string{annIngressClass: "kong"}
	out = append(out,
		&configurationv1.KongClusterPlugin{ObjectMeta: metav1.ObjectMeta{Name: "cluster-cors", Annotations: kong},
			PluginFields: configurationv1.PluginFields{PluginName: "cors", Config: json.RawMessage(`{"origins": ["*"]}`)}},
		&configurationv1.KongClusterPlugin{ObjectMeta: metav1.ObjectMeta{Name: "global-correlation", Annotations: kong,
			Labels: map[string]string{"global": "true"}}, PluginFields: configurationv1.PluginFields{PluginName: "correlation-id"}},
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}},
	)
	for _, ns := range []string{"bench-0", "bench-1"} {
		out = append(out, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plugin-conf"},
			Data: map[string][]byte{"config": []byte(`{"minute": 9}`), "value": []byte(`12`)}})
	}
	return out
}

// observe records a ref and its latest version.
func (w *world) observe(o store.Object) store.Ref {
	ref, err := store.RefOf(o)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, ok := w.last[ref]; !ok {
		w.known[ref.Kind] = append(w.known[ref.Kind], ref)
	}
	w.last[ref] = o
	return ref
}

// put upserts o, half the time with a new resourceVersion (else with none, as manifests have).
func (w *world) put(o store.Object) {
	if w.r.IntN(2) == 0 {
		w.rvs++
		o.SetResourceVersion(strconv.Itoa(w.rvs))
	} else {
		o.SetResourceVersion("")
	}
	w.observe(o)
	upsertOrFail(w.t, w.st, o)
}

func (w *world) get(ref store.Ref) (store.Object, bool) { return w.st.Get(ref) }

// refs returns the known refs of kind k that are present (or absent) in the store.
func (w *world) refs(k store.Kind, present bool) []store.Ref {
	var out []store.Ref
	for _, ref := range w.known[k] {
		if _, ok := w.get(ref); ok == present {
			out = append(out, ref)
		}
	}
	return out
}

// names lists the names of known objects of kind k in namespace ns, present or not, plus one
// that never exists.
func (w *world) names(k store.Kind, ns string) []string {
	var out []string
	for _, ref := range w.known[k] {
		if ref.Namespace == ns {
			out = append(out, ref.Name)
		}
	}
	return append(out, "missing-"+strings.ToLower(string(k)))
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// kindWeights bias changes towards the kinds with the most fields that matter.
var kindWeights = map[store.Kind]int{
	store.KindIngress: 5, store.KindIngressClass: 1, store.KindService: 3, store.KindEndpointSlice: 2,
	store.KindSecret: 3, store.KindKongConsumer: 2, store.KindKongPlugin: 2, store.KindKongClusterPlugin: 2,
	store.KindKongUpstreamPolicy: 2,
}

func (w *world) pickKind() store.Kind {
	total := 0
	for _, k := range store.Kinds {
		total += kindWeights[k]
	}
	n := w.r.IntN(total)
	for _, k := range store.Kinds {
		if n -= kindWeights[k]; n < 0 {
			return k
		}
	}
	panic("unreachable")
}

// change makes one random change (or applies a due pending one) and logs it.
func (w *world) change() {
	w.step++
	for _, p := range w.pending {
		if p.due <= w.step {
			w.applyPending(p)
			return
		}
	}
	k := w.pickKind()
	present := w.refs(k, true)
	roll := w.r.IntN(100)
	var what string
	switch {
	case len(present) == 0 || roll < 7:
		what = w.create(k)
	case roll < 14 || k == store.KindIngressClass && roll < 25:
		ref := pick(w.r, present)
		w.st.Delete(ref)
		w.count(k, "delete")
		what = "delete " + ref.String()
		if k == store.KindIngressClass || w.r.IntN(3) == 0 {
			w.later(1+w.r.IntN(4), "recreate "+ref.String(), func() { w.recreate(ref, false) })
		}
	case roll < 20:
		ref := pick(w.r, present)
		what = w.recreate(ref, w.r.IntN(2) == 0)
	case roll < 25:
		ref := pick(w.r, present)
		cur, _ := w.get(ref)
		c := cur.DeepCopyObject().(store.Object)
		if w.r.IntN(2) == 0 {
			upsertOrFail(w.t, w.st, c) // same resourceVersion: ignored when set (a resync)
		} else {
			w.put(c)
		}
		w.count(k, "same content")
		what = "same content " + ref.String()
	default:
		ref := pick(w.r, present)
		cur, _ := w.get(ref)
		c := cur.DeepCopyObject().(store.Object)
		desc := w.mutate(c)
		w.put(c)
		w.count(k, "edit")
		what = desc + " " + ref.String()
	}
	w.log = append(w.log, what)
}

// applyPending removes p from the pending changes and applies it.
func (w *world) applyPending(p pendingChange) {
	i := slices.IndexFunc(w.pending, func(q pendingChange) bool { return q.id == p.id })
	w.pending = slices.Delete(w.pending, i, i+1)
	p.fn()
	w.log = append(w.log, "(undo) "+p.what)
}

func (w *world) later(steps int, what string, fn func()) {
	w.pendingIDs++
	w.pending = append(w.pending, pendingChange{id: w.pendingIDs, due: w.step + steps, what: what, fn: fn})
}

func (w *world) count(k store.Kind, action string) { w.counts[string(k)+" "+action]++ }

// history returns the last n logged changes before the last skip ones.
func (w *world) history(n, skip int) []string {
	end := len(w.log) - skip
	return w.log[max(end-n, 0):end]
}

// recreate stores the ref's last version (edited when edit is set) as a new object of the same
// name: new UID and creation time. A present object is deleted first.
func (w *world) recreate(ref store.Ref, edit bool) string {
	what := "recreate"
	if _, ok := w.get(ref); ok {
		w.st.Delete(ref)
	} else {
		what = "restore"
	}
	c := w.last[ref].DeepCopyObject().(store.Object)
	w.renew(c)
	if edit {
		what += " and " + w.mutate(c)
	}
	w.put(c)
	w.count(ref.Kind, what[:strings.IndexByte(what+" ", ' ')])
	return what + " " + ref.String()
}

// renew gives an object a new UID (sometimes none, as in a manifest) and a new creation time.
func (w *world) renew(o store.Object) {
	w.uids++
	uid := types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(w.seed), w.uids))
	if w.r.IntN(5) == 0 {
		uid = ""
	}
	o.SetUID(uid)
	w.clock = w.clock.Add(time.Minute)
	o.SetCreationTimestamp(metav1.NewTime(w.clock))
}

// create restores a deleted object of kind k or clones a known one under a new name (from a
// small set, so that names come back).
func (w *world) create(k store.Kind) string {
	if gone := w.refs(k, false); len(gone) > 0 && w.r.IntN(2) == 0 {
		return w.recreate(pick(w.r, gone), w.r.IntN(3) == 0)
	}
	src := w.last[pick(w.r, w.known[k])]
	c := src.DeepCopyObject().(store.Object)
	c.SetName(fmt.Sprintf("rnd-%d", w.r.IntN(4)))
	w.renew(c)
	what := "clone " + src.GetName() + " as"
	if w.r.IntN(2) == 0 {
		what = "clone " + src.GetName() + ", " + w.mutate(c) + ", as"
	}
	w.put(c)
	w.count(k, "create")
	ref, _ := store.RefOf(c)
	return what + " " + ref.String()
}

// mutate edits one field of o that translation reads and describes the edit.
func (w *world) mutate(o store.Object) string {
	switch o := o.(type) {
	case *networkingv1.Ingress:
		return w.mutateIngress(o)
	case *networkingv1.IngressClass:
		return w.mutateIngressClass(o)
	case *corev1.Service:
		return w.mutateService(o)
	case *discoveryv1.EndpointSlice:
		return w.mutateEndpointSlice(o)
	case *corev1.Secret:
		return w.mutateSecret(o)
	case *configurationv1.KongConsumer:
		return w.mutateConsumer(o)
	case *configurationv1.KongPlugin:
		return w.mutatePluginFields(&o.ObjectMeta, &o.PluginFields, false)
	case *configurationv1.KongClusterPlugin:
		switch w.r.IntN(5) {
		case 0:
			if o.Labels["global"] == "true" {
				delete(o.Labels, "global")
				return "global label off"
			}
			setLabel(&o.ObjectMeta, "global", "true")
			return "global label on"
		case 1:
			return w.setClassAnnotation(&o.ObjectMeta)
		}
		return w.mutatePluginFields(&o.ObjectMeta, &o.PluginFields, true)
	case *kup.KongUpstreamPolicy:
		return w.mutatePolicy(&o.Spec)
	}
	w.t.Fatalf("mutate: unexpected %T", o)
	return ""
}

// Values the mutations draw from: valid ones and invalid ones.
var (
	somePaths = []string{"/", "/api", "/api/v2", "/collide", "/~/items/(\\d+)$", "/a//b", "relative", "/x/../y",
		"", "/~/(unbalanced", "/static/"}
	someHosts = []string{"collide.example.com", "*.wild.example.com", "Bad_Host!", "", "xn--bcher-kva.example"}

	ingressAnnotations = map[string][]string{
		annStripPath:               {"true", "false", "maybe"},
		annPreserveHost:            {"true", "false", "nope"},
		annProtocols:               {"https", "http,https", "grpc", "tcp", "bogus"},
		annMethods:                 {"GET", "GET,POST", "get", "B@D"},
		annRegexPriority:           {"10", "-3", "1.5", "99999999999999999999"},
		annHostAliases:             {"alias.example.com", "a.example.com,b.example.com", "Bad_Alias"},
		annHeadersPrefix + "x-env": {"prod", "a,b", ""},
		annPathHandling:            {"v0", "v1", "v3"},
		annRegexPrefix:             {"/~", "/re:", ""},
		annRewrite:                 {"/new/$1", "/x"},
		annSNIs:                    {"collide.example.com", "*.wild.example.com", "bad sni"},
		annRedirectCode:            {"301", "308", "999"},
		annForceSSLRedirect:        {"true", "false"},
		annRequestBuffering:        {"false", "x"},
		annTags:                    {"a,b", "team-x", ""},
	}
	serviceAnnotations = map[string][]string{
		annProtocol:         {"http", "https", "grpc", "grpcs", "tcp", "bogus"},
		annPath:             {"/base", "/base/", "relative", ""},
		annConnectTimeout:   {"5000", "abc", "99999999999"},
		annReadTimeout:      {"60000", "-1"},
		annWriteTimeout:     {"1", "1.5"},
		annRetries:          {"3", "-1", "x"},
		annHostHeader:       {"internal.example.com", ""},
		annTLSVerify:        {"true", "false", "yes-ish"},
		annTLSVerifyDepth:   {"1", "65", "x"},
		annServiceUpstream:  {"true", "false"},
		annTags:             {"svc-tag", ""},
		annOverride:         {"some-kongingress"},
		annCACertConfigMaps: {"cm"},
	}
)

func (w *world) setClassAnnotation(m *metav1.ObjectMeta) string {
	switch v := pick(w.r, []string{"kong", "other", "", "-"}); v {
	case "-":
		delete(m.Annotations, annIngressClass)
		return "class annotation removed"
	default:
		setAnn(m, annIngressClass, v)
		return fmt.Sprintf("class annotation %q", v)
	}
}

// setAnnFrom sets one annotation of the table to one of its values, or removes it.
func (w *world) setAnnFrom(m *metav1.ObjectMeta, table map[string][]string) string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	k := pick(w.r, keys)
	if _, ok := m.Annotations[k]; ok && w.r.IntN(3) == 0 {
		delete(m.Annotations, k)
		return "annotation " + k + " removed"
	}
	v := pick(w.r, table[k])
	setAnn(m, k, v)
	return fmt.Sprintf("annotation %s=%q", k, v)
}

// setPluginsAnnotation sets konghq.com/plugins to one or two plugin names of the namespace or
// of KongClusterPlugins (some missing), or removes it.
func (w *world) setPluginsAnnotation(m *metav1.ObjectMeta) string {
	if _, ok := m.Annotations[annPlugins]; ok && w.r.IntN(3) == 0 {
		delete(m.Annotations, annPlugins)
		return "plugins annotation removed"
	}
	names := append(w.names(store.KindKongPlugin, m.Namespace), w.names(store.KindKongClusterPlugin, "")...)
	v := pick(w.r, names)
	if w.r.IntN(3) == 0 {
		v += ", " + pick(w.r, names)
	}
	setAnn(m, annPlugins, v)
	return fmt.Sprintf("plugins annotation %q", v)
}

func (w *world) backend(ns string) *networkingv1.IngressServiceBackend {
	b := &networkingv1.IngressServiceBackend{Name: pick(w.r, w.names(store.KindService, ns))}
	switch w.r.IntN(6) {
	case 0:
		b.Port.Name = pick(w.r, []string{"http", "https", "missing-port"})
	case 1:
		b.Port.Number = pick(w.r, []int32{443, 8080, 9999})
	case 2: // no port
	default:
		b.Port.Number = 80
	}
	return b
}

// rulePath returns a random path of the Ingress, or nil.
func (w *world) rulePath(o *networkingv1.Ingress) *networkingv1.HTTPIngressPath {
	var all []*networkingv1.HTTPIngressPath
	for i := range o.Spec.Rules {
		if h := o.Spec.Rules[i].HTTP; h != nil {
			for j := range h.Paths {
				all = append(all, &h.Paths[j])
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	return pick(w.r, all)
}

func (w *world) mutateIngress(o *networkingv1.Ingress) string {
	m := &o.ObjectMeta
	p := w.rulePath(o)
	switch n := w.r.IntN(16); {
	case n == 0 && p != nil:
		p.Path = pick(w.r, somePaths)
		return fmt.Sprintf("path %q", p.Path)
	case n == 1 && p != nil:
		pts := []networkingv1.PathType{networkingv1.PathTypeExact, networkingv1.PathTypePrefix,
			networkingv1.PathTypeImplementationSpecific, "Bogus"}
		if w.r.IntN(4) == 0 {
			p.PathType = nil
			return "pathType removed"
		}
		pt := pick(w.r, pts)
		p.PathType = &pt
		return "pathType " + string(pt)
	case n == 2 && len(o.Spec.Rules) > 0:
		i := w.r.IntN(len(o.Spec.Rules))
		o.Spec.Rules[i].Host = pick(w.r, append(slices.Clone(someHosts), pick(w.r, w.hosts)))
		return fmt.Sprintf("rules[%d].host %q", i, o.Spec.Rules[i].Host)
	case n == 3 && p != nil:
		p.Backend = networkingv1.IngressBackend{Service: w.backend(o.Namespace)}
		return fmt.Sprintf("backend %s:%s/%d", p.Backend.Service.Name, p.Backend.Service.Port.Name, p.Backend.Service.Port.Number)
	case n == 4 && p != nil && w.r.IntN(3) == 0:
		p.Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}}
		return "resource backend"
	case n == 5:
		pt := networkingv1.PathTypePrefix
		np := networkingv1.HTTPIngressPath{Path: pick(w.r, somePaths), PathType: &pt,
			Backend: networkingv1.IngressBackend{Service: w.backend(o.Namespace)}}
		if len(o.Spec.Rules) == 0 || w.r.IntN(3) == 0 {
			o.Spec.Rules = append(o.Spec.Rules, networkingv1.IngressRule{Host: pick(w.r, w.hosts),
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{np}}}})
			return "rule added"
		}
		rule := &o.Spec.Rules[w.r.IntN(len(o.Spec.Rules))]
		if rule.HTTP == nil {
			rule.HTTP = &networkingv1.HTTPIngressRuleValue{}
		}
		rule.HTTP.Paths = append(rule.HTTP.Paths, np)
		return "path added"
	case n == 6 && len(o.Spec.Rules) > 0:
		i := w.r.IntN(len(o.Spec.Rules))
		if h := o.Spec.Rules[i].HTTP; h != nil && len(h.Paths) > 1 {
			j := w.r.IntN(len(h.Paths))
			h.Paths = slices.Delete(h.Paths, j, j+1)
			return fmt.Sprintf("rules[%d] path %d removed", i, j)
		}
		o.Spec.Rules = slices.Delete(o.Spec.Rules, i, i+1)
		return fmt.Sprintf("rule %d removed", i)
	case n == 7 || n == 8:
		return w.setAnnFrom(m, ingressAnnotations)
	case n == 9:
		return w.setPluginsAnnotation(m)
	case n == 10:
		return w.moveIngressClass(o)
	case n == 11:
		return w.mutateTLS(o)
	case n == 12:
		if o.Spec.DefaultBackend != nil && w.r.IntN(2) == 0 {
			o.Spec.DefaultBackend = nil
			return "default backend removed"
		}
		if w.r.IntN(5) == 0 {
			o.Spec.DefaultBackend = &networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}}
			return "resource default backend"
		}
		o.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: w.backend(o.Namespace)}
		return "default backend " + o.Spec.DefaultBackend.Service.Name
	case n == 13:
		return w.retime(&o.ObjectMeta, store.KindIngress, w.ingressRivals(o)...)
	case n == 14 && p != nil: // the same host and path as other Ingresses so changed
		if len(o.Spec.Rules) > 0 {
			o.Spec.Rules[0].Host = "collide.example.com"
		}
		p.Path = "/collide"
		return "collide"
	}
	return w.setAnnFrom(m, ingressAnnotations)
}

// ingressRivals are the other present Ingresses that claim a TLS host o claims, or that have a
// default backend when o has one: creation times decide between them.
func (w *world) ingressRivals(o *networkingv1.Ingress) []store.Ref {
	hosts := map[string]bool{}
	for _, tls := range o.Spec.TLS {
		for _, h := range tls.Hosts {
			hosts[h] = true
		}
	}
	var out []store.Ref
	for _, ref := range w.refs(store.KindIngress, true) {
		if ref == ingressRef(o) {
			continue
		}
		cur, _ := w.get(ref)
		other := cur.(*networkingv1.Ingress)
		rival := o.Spec.DefaultBackend != nil && other.Spec.DefaultBackend != nil
		for _, tls := range other.Spec.TLS {
			for _, h := range tls.Hosts {
				rival = rival || hosts[h]
			}
		}
		if rival {
			out = append(out, ref)
		}
	}
	return out
}

// moveIngressClass changes an Ingress's class (annotation or spec.ingressClassName), and
// sometimes moves it back a few steps later.
func (w *world) moveIngressClass(o *networkingv1.Ingress) string {
	ref := ingressRef(o)
	back := o.DeepCopy()
	var what string
	if w.r.IntN(2) == 0 {
		what = w.setClassAnnotation(&o.ObjectMeta)
	} else {
		switch v := pick(w.r, []string{"kong", "other", "nginx", "-"}); v {
		case "-":
			o.Spec.IngressClassName = nil
			what = "ingressClassName removed"
		default:
			o.Spec.IngressClassName = &v
			what = "ingressClassName " + v
		}
	}
	if w.r.IntN(2) == 0 {
		w.later(1+w.r.IntN(3), "class of "+ref.String()+" back", func() {
			cur, ok := w.get(ref)
			if !ok {
				return
			}
			c := cur.DeepCopyObject().(*networkingv1.Ingress)
			c.Annotations, c.Spec.IngressClassName = back.Annotations, back.Spec.IngressClassName
			w.put(c)
			w.count(store.KindIngress, "class back")
		})
	}
	return what
}

func (w *world) mutateTLS(o *networkingv1.Ingress) string {
	secrets := w.names(store.KindSecret, o.Namespace)
	switch n := w.r.IntN(6); {
	case n == 0 && len(o.Spec.TLS) > 0:
		o.Spec.TLS = nil
		return "TLS removed"
	case n == 3: // claim a TLS host another Ingress claims, with a Secret of this namespace
		var claimed []string
		for _, ref := range w.refs(store.KindIngress, true) {
			other, _ := w.get(ref)
			for _, tls := range other.(*networkingv1.Ingress).Spec.TLS {
				claimed = append(claimed, tls.Hosts...)
			}
		}
		if len(claimed) > 0 {
			h := pick(w.r, claimed)
			o.Spec.TLS = append(o.Spec.TLS, networkingv1.IngressTLS{Hosts: []string{h}, SecretName: pick(w.r, secrets)})
			return "TLS claim of " + h
		}
	case n == 1 && len(o.Spec.TLS) > 0:
		i := w.r.IntN(len(o.Spec.TLS))
		o.Spec.TLS[i].SecretName = pick(w.r, append(secrets, ""))
		return fmt.Sprintf("tls[%d].secretName %q", i, o.Spec.TLS[i].SecretName)
	case n == 2 && len(o.Spec.TLS) > 0:
		i := w.r.IntN(len(o.Spec.TLS))
		o.Spec.TLS[i].Hosts = append(o.Spec.TLS[i].Hosts, pick(w.r, append(slices.Clone(w.hosts), "Bad_Host!")))
		return fmt.Sprintf("tls[%d] host added", i)
	}
	var hosts []string
	for _, rule := range o.Spec.Rules {
		if rule.Host != "" {
			hosts = append(hosts, rule.Host)
		}
	}
	if len(hosts) == 0 || w.r.IntN(3) == 0 {
		hosts = append(hosts, pick(w.r, w.hosts))
	}
	o.Spec.TLS = append(o.Spec.TLS, networkingv1.IngressTLS{Hosts: hosts, SecretName: pick(w.r, secrets)})
	return "TLS entry added"
}

func (w *world) mutateIngressClass(o *networkingv1.IngressClass) string {
	switch w.r.IntN(4) {
	case 0:
		o.Spec.Controller = pick(w.r, []string{workload.ControllerName, "example.com/other"})
		return "controller " + o.Spec.Controller
	case 1:
		v := pick(w.r, []string{"True", "yes", "-"})
		if v == "-" {
			delete(o.Annotations, store.DefaultClassAnnotation)
			return "default annotation removed"
		}
		setAnn(&o.ObjectMeta, store.DefaultClassAnnotation, v)
		return fmt.Sprintf("default annotation %q", v)
	}
	// Toggle the default class, and often toggle it back a few steps later.
	toggle := func(ic *networkingv1.IngressClass) string {
		if ic.Annotations[store.DefaultClassAnnotation] == "true" {
			setAnn(&ic.ObjectMeta, store.DefaultClassAnnotation, "false")
			return "default off"
		}
		setAnn(&ic.ObjectMeta, store.DefaultClassAnnotation, "true")
		return "default on"
	}
	what := toggle(o)
	if w.r.IntN(2) == 0 {
		ref := store.Ref{Kind: store.KindIngressClass, Name: o.Name}
		w.later(1+w.r.IntN(3), "default of "+ref.String()+" toggled back", func() {
			if cur, ok := w.get(ref); ok {
				c := cur.DeepCopyObject().(*networkingv1.IngressClass)
				toggle(c)
				w.put(c)
				w.count(store.KindIngressClass, "toggle back")
			}
		})
	}
	return what
}

func (w *world) mutateService(o *corev1.Service) string {
	m := &o.ObjectMeta
	switch n := w.r.IntN(12); {
	case n == 0 && len(o.Spec.Ports) > 0:
		i := w.r.IntN(len(o.Spec.Ports))
		o.Spec.Ports[i].Port = pick(w.r, []int32{80, 443, 8080, 9999})
		return fmt.Sprintf("ports[%d].port %d", i, o.Spec.Ports[i].Port)
	case n == 1:
		o.Spec.Ports = append(o.Spec.Ports, corev1.ServicePort{Name: pick(w.r, []string{"https", "http", "grpc", ""}),
			Port: pick(w.r, []int32{443, 8443, 80}), TargetPort: intstr.FromInt32(8443), Protocol: corev1.ProtocolTCP})
		return "port added"
	case n == 2 && len(o.Spec.Ports) > 0:
		i := w.r.IntN(len(o.Spec.Ports))
		o.Spec.Ports = slices.Delete(o.Spec.Ports, i, i+1)
		return fmt.Sprintf("port %d removed", i)
	case n == 3 && len(o.Spec.Ports) > 0:
		i := w.r.IntN(len(o.Spec.Ports))
		if w.r.IntN(2) == 0 {
			o.Spec.Ports[i].Name = pick(w.r, []string{"http", "web", ""})
			return fmt.Sprintf("ports[%d].name %q", i, o.Spec.Ports[i].Name)
		}
		o.Spec.Ports[i].TargetPort = pick(w.r, []intstr.IntOrString{intstr.FromInt32(8080), intstr.FromString("http"),
			intstr.FromInt32(9090)})
		return fmt.Sprintf("ports[%d].targetPort %s", i, o.Spec.Ports[i].TargetPort.String())
	case n == 4:
		if o.Spec.Type == corev1.ServiceTypeExternalName {
			o.Spec.Type, o.Spec.ExternalName = corev1.ServiceTypeClusterIP, ""
			return "ClusterIP"
		}
		o.Spec.Type = corev1.ServiceTypeExternalName
		o.Spec.ExternalName = pick(w.r, []string{"upstream.example.com", "bad_name!", ""})
		return fmt.Sprintf("ExternalName %q", o.Spec.ExternalName)
	case n == 5 || n == 6:
		return w.setAnnFrom(m, serviceAnnotations)
	case n == 7:
		return w.setPluginsAnnotation(m)
	case n == 8:
		if _, ok := o.Annotations[annUpstreamPolicy]; ok && w.r.IntN(3) == 0 {
			delete(o.Annotations, annUpstreamPolicy)
			return "upstream-policy removed"
		}
		v := pick(w.r, w.names(store.KindKongUpstreamPolicy, o.Namespace))
		setAnn(m, annUpstreamPolicy, v)
		return "upstream-policy " + v
	case n == 9:
		if _, ok := o.Annotations[annClientCert]; ok && w.r.IntN(3) == 0 {
			delete(o.Annotations, annClientCert)
			return "client-cert removed"
		}
		v := pick(w.r, w.names(store.KindSecret, o.Namespace))
		setAnn(m, annClientCert, v)
		return "client-cert " + v
	case n == 10:
		if _, ok := o.Annotations[annCACertSecrets]; ok && w.r.IntN(3) == 0 {
			delete(o.Annotations, annCACertSecrets)
			return "ca-certificates-secrets removed"
		}
		names := w.names(store.KindSecret, o.Namespace)
		v := pick(w.r, names)
		if w.r.IntN(2) == 0 {
			v += "," + pick(w.r, names)
		}
		setAnn(m, annCACertSecrets, v)
		return "ca-certificates-secrets " + v
	}
	return w.setAnnFrom(m, serviceAnnotations)
}

func (w *world) mutateEndpointSlice(o *discoveryv1.EndpointSlice) string {
	yes := true
	switch n := w.r.IntN(9); {
	case n == 0 && len(o.Endpoints) > 0:
		e := &o.Endpoints[w.r.IntN(len(o.Endpoints))]
		v := e.Conditions.Ready == nil || !*e.Conditions.Ready
		e.Conditions.Ready = &v
		return fmt.Sprintf("ready %v", v)
	case n == 1 && len(o.Endpoints) > 0:
		e := &o.Endpoints[w.r.IntN(len(o.Endpoints))]
		v := e.Conditions.Terminating == nil || !*e.Conditions.Terminating
		e.Conditions.Terminating = &v
		s := !v || w.r.IntN(2) == 0
		e.Conditions.Serving = &s
		return fmt.Sprintf("terminating %v serving %v", v, s)
	case n == 2:
		o.Endpoints = append(o.Endpoints, discoveryv1.Endpoint{Addresses: []string{w.address()},
			Conditions: discoveryv1.EndpointConditions{Ready: &yes}})
		return "endpoint added"
	case n == 3 && len(o.Endpoints) > 0:
		i := w.r.IntN(len(o.Endpoints))
		o.Endpoints = slices.Delete(o.Endpoints, i, i+1)
		return fmt.Sprintf("endpoint %d removed", i)
	case n == 4 && len(o.Endpoints) > 0:
		e := &o.Endpoints[w.r.IntN(len(o.Endpoints))]
		e.Addresses = []string{w.address()}
		return "address " + e.Addresses[0]
	case n == 5:
		if len(o.Ports) > 0 && w.r.IntN(4) == 0 {
			o.Ports = nil
			return "ports removed"
		}
		port := pick(w.r, []int32{8080, 8443, 9090, 80})
		name := pick(w.r, []string{"http", "https", ""})
		o.Ports = []discoveryv1.EndpointPort{{Name: &name, Port: &port}}
		return fmt.Sprintf("port %s/%d", name, port)
	case n == 6: // moves the slice to another Service
		if w.r.IntN(5) == 0 {
			delete(o.Labels, discoveryv1.LabelServiceName)
			return "service-name label removed"
		}
		svc := pick(w.r, w.names(store.KindService, o.Namespace))
		setLabel(&o.ObjectMeta, discoveryv1.LabelServiceName, svc)
		return "service-name " + svc
	case n == 7:
		o.AddressType = pick(w.r, []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6,
			discoveryv1.AddressTypeFQDN})
		return "addressType " + string(o.AddressType)
	}
	o.Endpoints = nil
	return "no endpoints"
}

func (w *world) address() string {
	switch w.r.IntN(8) {
	case 0:
		return fmt.Sprintf("fd00::%x", w.r.IntN(0xffff))
	case 1:
		return pick(w.r, []string{"not an address", "backend.example.com", "10.0.0.256"})
	}
	return fmt.Sprintf("10.9.%d.%d", w.r.IntN(4), 2+w.r.IntN(250))
}

func (w *world) mutateSecret(o *corev1.Secret) string {
	m := &o.ObjectMeta
	keys := make([]string, 0, len(o.Data))
	for k := range o.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	switch n := w.r.IntN(10); {
	case n <= 1 && len(w.tlsData) > 0: // rotation: another certificate, or only half of one
		src := pick(w.r, w.tlsData)
		if o.Data == nil {
			o.Data = map[string][]byte{}
		}
		if w.r.IntN(3) == 0 {
			o.Data["tls.crt"] = bytes.Clone(src["tls.crt"])
			return "tls.crt rotated (key kept)"
		}
		o.Data["tls.crt"], o.Data["tls.key"] = bytes.Clone(src["tls.crt"]), bytes.Clone(src["tls.key"])
		return "certificate rotated"
	case n == 2 && len(keys) > 0:
		k := pick(w.r, keys)
		o.Data[k] = append(bytes.Clone(o.Data[k]), pick(w.r, []string{"x", "\n", "garbage"})...)
		return "data[" + k + "] appended to"
	case n == 3 && len(keys) > 0:
		k := pick(w.r, keys)
		delete(o.Data, k)
		return "data[" + k + "] removed"
	case n == 4:
		if o.Data == nil {
			o.Data = map[string][]byte{}
		}
		k := pick(w.r, []string{"key", "username", "password", "group", "secret", "id", "config", "value"})
		v := pick(w.r, []string{fmt.Sprintf("v-%d", w.r.IntN(1000)), `{"minute": 5}`, "[1]",
			"3f1e9d1c-6a7e-4c43-a0c4-9bd0d5c1f2a1", ""})
		o.Data[k] = []byte(v)
		return fmt.Sprintf("data[%s]=%q", k, v)
	case n == 5:
		if o.Labels["konghq.com/credential"] != "" && w.r.IntN(3) == 0 {
			delete(o.Labels, "konghq.com/credential")
			return "credential label removed"
		}
		v := pick(w.r, []string{"key-auth", "basic-auth", "acl", "jwt", "hmac-auth", "bogus"})
		setLabel(m, "konghq.com/credential", v)
		return "credential label " + v
	case n == 6:
		if o.Labels[caCertLabel] == "true" {
			delete(o.Labels, caCertLabel)
			return "ca-cert label removed"
		}
		setLabel(m, caCertLabel, "true")
		return "ca-cert label"
	case n == 7:
		if o.Type == corev1.SecretTypeTLS {
			o.Type = corev1.SecretTypeOpaque
		} else {
			o.Type = corev1.SecretTypeTLS
		}
		return "type " + string(o.Type)
	case n == 8:
		return w.retime(&o.ObjectMeta, store.KindSecret)
	}
	if o.Data != nil && w.r.IntN(4) == 0 {
		o.Data = nil
		return "data removed"
	}
	setAnn(m, annTags, pick(w.r, []string{"rotated", "a,b"}))
	return "tags annotation"
}

func (w *world) mutateConsumer(o *configurationv1.KongConsumer) string {
	switch n := w.r.IntN(9); {
	case n == 0:
		o.Username = pick(w.r, append(slices.Clone(w.usernames), "", fmt.Sprintf("user-%d", w.r.IntN(5))))
		return fmt.Sprintf("username %q", o.Username)
	case n == 1:
		o.CustomID = pick(w.r, []string{"", "cid-1", "cid-2"})
		return fmt.Sprintf("custom_id %q", o.CustomID)
	case n == 2 || n == 3:
		if len(o.Credentials) > 0 && w.r.IntN(3) == 0 {
			i := w.r.IntN(len(o.Credentials))
			o.Credentials = slices.Delete(o.Credentials, i, i+1)
			return fmt.Sprintf("credential %d removed", i)
		}
		s := pick(w.r, w.names(store.KindSecret, o.Namespace))
		o.Credentials = append(o.Credentials, s)
		return "credential " + s + " added"
	case n == 4:
		return w.setClassAnnotation(&o.ObjectMeta)
	case n == 5:
		return w.setPluginsAnnotation(&o.ObjectMeta)
	case n == 6:
		if len(o.ConsumerGroups) > 0 {
			o.ConsumerGroups = nil
			return "consumerGroups removed"
		}
		o.ConsumerGroups = []string{"gold"}
		return "consumerGroups"
	case n == 7:
		o.Spec.Tags = pick(w.r, [][]string{nil, {"t1"}, {"t1", "t2"}})
		return fmt.Sprintf("spec.tags %v", o.Spec.Tags)
	}
	return w.retime(&o.ObjectMeta, store.KindKongConsumer)
}

// retime changes an object's creation time, which decides who wins among objects of its kind
// (TLS hosts, the default backend, usernames, certificate ids): shifted by hours, or set just
// before, equal to or just after another object's (equal: the names decide), or unset.
// For an Ingress the other object is, when there is one, a rival: an Ingress claiming one of
// its TLS hosts, or also having a default backend.
func (w *world) retime(m *metav1.ObjectMeta, k store.Kind, rivals ...store.Ref) string {
	var other time.Time
	present := w.refs(k, true)
	if len(rivals) > 0 && w.r.IntN(4) > 0 {
		present = rivals
	}
	if len(present) > 0 {
		o, _ := w.get(pick(w.r, present))
		other = o.GetCreationTimestamp().Time
	}
	var what string
	switch w.r.IntN(6) {
	case 0, 1:
		d := time.Duration(w.r.IntN(7)-3) * time.Hour
		m.CreationTimestamp = metav1.NewTime(m.CreationTimestamp.Add(d))
		return fmt.Sprintf("creationTimestamp %+v", d)
	case 2:
		m.CreationTimestamp, what = metav1.NewTime(other.Add(-time.Second)), "just before"
	case 3:
		m.CreationTimestamp, what = metav1.NewTime(other), "equal to"
	case 4:
		m.CreationTimestamp, what = metav1.NewTime(other.Add(time.Second)), "just after"
	default:
		m.CreationTimestamp = metav1.Time{}
		return "creationTimestamp unset"
	}
	return fmt.Sprintf("creationTimestamp %s another %s's (%s)", what, k, other.Format(time.RFC3339))
}

func (w *world) mutatePluginFields(m *metav1.ObjectMeta, f *configurationv1.PluginFields, cluster bool) string {
	secretNS := m.Namespace
	if cluster {
		secretNS = pick(w.r, w.namespaces)
	}
	secretRef := func() configurationv1.ConfigSource {
		return configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Namespace: secretNS,
			Secret: pick(w.r, w.names(store.KindSecret, secretNS)), Key: pick(w.r, []string{"config", "value", "key", "missing"})}}
	}
	switch w.r.IntN(9) {
	case 0, 1:
		v := pick(w.r, []string{fmt.Sprintf(`{"minute": %d}`, w.r.IntN(100)), `{"minute": 5, "policy": "local"}`,
			`{"origins": ["*"]}`, `[1]`, `not json`, `null`, ``, `{"minute": 1e400}`})
		f.Config = json.RawMessage(v)
		return fmt.Sprintf("config %q", v)
	case 2:
		f.PluginName = pick(w.r, []string{"rate-limiting", "cors", "key-auth", "acl", "correlation-id", ""})
		return fmt.Sprintf("plugin %q", f.PluginName)
	case 3:
		f.Disabled = !f.Disabled
		return fmt.Sprintf("disabled %v", f.Disabled)
	case 4:
		f.InstanceName = pick(w.r, []string{"", "shared-instance", "inst-" + m.Name})
		return fmt.Sprintf("instance_name %q", f.InstanceName)
	case 5:
		f.Protocols = pick(w.r, [][]string{nil, {"http", "https"}, {"grpc"}, {"bogus"}})
		return fmt.Sprintf("protocols %v", f.Protocols)
	case 6:
		if f.ConfigFrom != nil {
			f.ConfigFrom = nil
			return "configFrom removed"
		}
		src := secretRef()
		f.ConfigFrom = &src
		if w.r.IntN(3) > 0 {
			f.Config = nil
		}
		return "configFrom " + src.SecretValue.Secret + "/" + src.SecretValue.Key
	case 7:
		if len(f.ConfigPatches) > 0 {
			f.ConfigPatches = nil
			return "configPatches removed"
		}
		f.ConfigPatches = []configurationv1.ConfigPatch{{Path: pick(w.r, []string{"/minute", "/x/y", "bad"}), ValueFrom: secretRef()}}
		return "configPatches " + f.ConfigPatches[0].Path
	}
	if f.Ordering != nil {
		f.Ordering = nil
		return "ordering removed"
	}
	f.Ordering = &kong.PluginOrdering{Before: kong.PluginOrderingPhase{"access": {"key-auth"}}}
	return "ordering"
}

func (w *world) mutatePolicy(s *kup.KongUpstreamPolicySpec) string {
	str := func(v string) *string { return &v }
	switch w.r.IntN(7) {
	case 0:
		if w.r.IntN(4) == 0 {
			s.Algorithm = nil
			return "algorithm removed"
		}
		s.Algorithm = str(pick(w.r, []string{"round-robin", "least-connections", "consistent-hashing", "latency", "bogus"}))
		return "algorithm " + *s.Algorithm
	case 1:
		v := pick(w.r, []int{10, 5, 100, 70000})
		s.Slots = &v
		return fmt.Sprintf("slots %d", v)
	case 2:
		switch w.r.IntN(4) {
		case 0:
			s.HashOn = nil
			return "hashOn removed"
		case 1:
			s.HashOn = &kup.KongUpstreamHash{Header: str("x-user")}
		case 2:
			s.HashOn = &kup.KongUpstreamHash{Cookie: str("session"), CookiePath: str("/")}
		default:
			s.HashOn = &kup.KongUpstreamHash{Input: str(pick(w.r, []string{"ip", "consumer", "path", "bogus"}))}
		}
		return "hashOn"
	case 3:
		if s.HashOnFallback != nil {
			s.HashOnFallback = nil
			return "hashOnFallback removed"
		}
		s.HashOnFallback = &kup.KongUpstreamHash{QueryArg: str("q")}
		return "hashOnFallback"
	case 4:
		if s.StickySessions != nil {
			s.StickySessions = nil
			return "stickySessions removed"
		}
		s.StickySessions = &kup.KongUpstreamStickySessions{Cookie: "sticky"}
		return "stickySessions"
	case 5:
		if s.Healthchecks != nil && w.r.IntN(3) == 0 {
			s.Healthchecks = nil
			return "healthchecks removed"
		}
		v := pick(w.r, []int{0, 10, 100, -1})
		if s.Healthchecks == nil {
			s.Healthchecks = &kup.KongUpstreamHealthcheck{}
		}
		s.Healthchecks.Threshold = &v
		return fmt.Sprintf("healthchecks.threshold %d", v)
	}
	typ := pick(w.r, []string{"http", "https", "tcp", "bogus"})
	conc := pick(w.r, []int{1, 10, 0})
	if s.Healthchecks == nil {
		s.Healthchecks = &kup.KongUpstreamHealthcheck{}
	}
	s.Healthchecks.Active = &kup.KongUpstreamActiveHealthcheck{Type: &typ, Concurrency: &conc, HTTPPath: str("/healthz")}
	return "healthchecks.active " + typ
}

func setAnn(m *metav1.ObjectMeta, k, v string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

func setLabel(m *metav1.ObjectMeta, k, v string) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[k] = v
}

// report logs how many changes of each kind and action the sequence made.
func (w *world) report(steps int) {
	keys := make([]string, 0, len(w.counts))
	for k := range w.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s:%d", k, w.counts[k])
	}
	w.t.Logf("%d builds, %d changes:%s", steps, len(w.log), b.String())
}

// scripted applies scripted changes to a store and checks a warm Engine after each.
type scripted struct {
	t   *testing.T
	st  *store.Store
	eng *Engine
}

func newScripted(t *testing.T, objs []store.Object) *scripted {
	s := &scripted{t: t, st: store.New(), eng: NewEngine(DefaultOptions())}
	for _, o := range objs {
		upsertOrFail(t, s.st, o)
	}
	s.check("initial")
	return s
}

// check builds the store's snapshot warm and compares the result with BuildOnce.
func (s *scripted) check(what string) Built {
	s.t.Helper()
	snap := s.st.Snapshot()
	got, err := s.eng.Build(snap)
	if err != nil {
		s.t.Fatalf("%s: Build: %v", what, err)
	}
	if msg := builtMismatch(got, coldBuild(s.t, snap)); msg != "" {
		s.t.Fatalf("%s: the warm build differs from BuildOnce of the same snapshot\n%s", what, msg)
	}
	return got
}

func (s *scripted) upsert(what string, o store.Object) Built {
	s.t.Helper()
	upsertOrFail(s.t, s.st, o)
	return s.check(what)
}

func (s *scripted) delete(what string, ref store.Ref) Built {
	s.t.Helper()
	s.st.Delete(ref)
	return s.check(what)
}

// workloadObjects generates a workload's store objects.
func workloadObjects(t *testing.T, c workload.Config) []store.Object {
	t.Helper()
	raw, err := workload.Objects(c)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Object
	for _, o := range raw {
		if so, ok := o.(store.Object); ok {
			if _, err := store.KindOf(so); err == nil {
				out = append(out, so)
			}
		}
	}
	return out
}

// TestEngineDirectedChanges runs scripted change sequences at the decisions a cache is most
// likely to get wrong (carried over from the incremental cache's tests, with only the Engine
// API): a TLS host won by the Ingress that becomes older, plugins appearing, changing and going
// with konghq.com/plugins, upstream policies updated, deleted, re-added and broken, and the
// common single changes of a workload. Each step's warm build must equal BuildOnce.
func TestEngineDirectedChanges(t *testing.T) {
	t.Run("tls-claim-order", func(t *testing.T) {
		c := workload.Defaults(3)
		c.TLSSecrets = 2
		objs := workloadObjects(t, c)
		s := newScripted(t, objs)
		var ings []*networkingv1.Ingress
		for _, o := range objs {
			if ing, ok := o.(*networkingv1.Ingress); ok {
				ings = append(ings, ing)
			}
		}
		second := ings[1].DeepCopy()
		second.Spec.TLS[0].Hosts = append(second.Spec.TLS[0].Hosts, ings[0].Spec.TLS[0].Hosts[0])
		second.CreationTimestamp = metav1.NewTime(ings[0].CreationTimestamp.Add(time.Hour))
		s.upsert("the second claims the first's host, younger", second)
		older := second.DeepCopy()
		older.CreationTimestamp = metav1.NewTime(ings[0].CreationTimestamp.Add(-time.Hour))
		s.upsert("the second becomes older and wins the host", older)
		same := older.DeepCopy()
		same.CreationTimestamp = ings[0].CreationTimestamp
		s.upsert("both as old: the names decide", same)
		s.delete("the first goes", ingressRef(ings[0]))
		s.upsert("the first comes back", ings[0].DeepCopy())
	})

	t.Run("plugin-annotation", func(t *testing.T) {
		c := workload.Defaults(6)
		c.Plugins = 2
		objs := workloadObjects(t, c)
		var first *networkingv1.Ingress
		for i, o := range objs {
			if ing, ok := o.(*networkingv1.Ingress); ok && first == nil {
				first = ing
				ing = ing.DeepCopy()
				delete(ing.Annotations, annPlugins)
				objs[i] = ing
			}
		}
		broken := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: first.Namespace, Name: "broken"},
			PluginFields: configurationv1.PluginFields{PluginName: "cors", Config: json.RawMessage(`[1]`)}}
		s := newScripted(t, append(objs, broken))
		for i, step := range []struct{ what, plugins string }{
			{"path of the Ingress without plugins", ""},
			{"host of the Ingress without plugins", ""},
			{"Ingress gains konghq.com/plugins", first.Annotations[annPlugins]},
			{"Ingress references a missing plugin too", first.Annotations[annPlugins] + ", missing"},
			{"Ingress references only a missing plugin", "missing"},
			{"Ingress references a broken KongPlugin", "broken"},
			{"Ingress stops referencing it", first.Annotations[annPlugins]},
			{"Ingress loses konghq.com/plugins", ""},
		} {
			ing := first.DeepCopy()
			delete(ing.Annotations, annPlugins)
			if step.plugins != "" {
				ing.Annotations[annPlugins] = step.plugins
			}
			ing.Spec.Rules[0].HTTP.Paths[0].Path = fmt.Sprintf("/v%d", i)
			if strings.Contains(step.what, "host") {
				ing.Spec.Rules[0].Host = fmt.Sprintf("h%d.example.com", i)
			}
			s.upsert(step.what, ing)
		}
	})

	t.Run("upstream-policy", func(t *testing.T) {
		objs := workloadObjects(t, workload.Defaults(20))
		ns := ""
		nSvc := 0
		for i, o := range objs {
			if svc, ok := o.(*corev1.Service); ok {
				ns = svc.Namespace
				if pol := []string{"pol-a", "pol-a", "pol-a", "pol-b", "pol-b"}; nSvc < len(pol) {
					svc = svc.DeepCopy()
					setAnn(&svc.ObjectMeta, annUpstreamPolicy, pol[nSvc])
					objs[i] = svc
				}
				nSvc++
			}
		}
		policy := func(name, algo string, slots int) *kup.KongUpstreamPolicy {
			return &kup.KongUpstreamPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: kup.KongUpstreamPolicySpec{Algorithm: &algo, Slots: &slots}}
		}
		s := newScripted(t, append(objs, policy("pol-a", "latency", 100), policy("pol-b", "least-connections", 100)))
		s.upsert("pol-a updated", policy("pol-a", "least-connections", 200))
		s.delete("pol-b deleted", store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: ns, Name: "pol-b"})
		s.upsert("pol-b back", policy("pol-b", "round-robin", 50))
		s.upsert("pol-a invalid", policy("pol-a", "least-connections", 1))
		s.upsert("pol-a valid again", policy("pol-a", "latency", 10))
		s.upsert("a policy no Service names", policy("unused", "latency", 10))
	})

	t.Run("workload", func(t *testing.T) {
		objs := workloadObjects(t, workload.Defaults(50))
		var ing *networkingv1.Ingress
		var es *discoveryv1.EndpointSlice
		for _, o := range objs {
			switch o := o.(type) {
			case *networkingv1.Ingress:
				ing = o
			case *discoveryv1.EndpointSlice:
				es = o
			}
		}
		s := newScripted(t, objs)
		s.check("the same snapshot again")
		ing2 := ing.DeepCopy()
		ing2.Spec.Rules[0].HTTP.Paths[0].Path = "/changed"
		s.upsert("Ingress path", ing2)
		es2 := es.DeepCopy()
		es2.Endpoints[0].Addresses[0] = "10.200.0.1"
		s.upsert("endpoint address", es2)
		s.delete("Ingress deleted", ingressRef(ing))
		s.upsert("Ingress back", ing.DeepCopy())
	})
}

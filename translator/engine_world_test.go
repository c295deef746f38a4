package translator

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

// world is the store under random change, with what the changes draw from.
type world struct {
	t     *testing.T
	seed  uint64
	r     *rand.Rand
	st    *store.Store
	known map[store.Kind][]store.Ref // every ref ever stored, by kind, in order of first appearance
	last  map[store.Ref]store.Object // the last version stored of each known ref

	namespaces []string
	gwNS       []string // the namespaces the Gateway API objects are built around
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
	"tcpingress-tls", "tcpingress-ingress-collision",
	"consumer-group-plugins", "consumer-group-problems",
	"kongingress-upstream", "ingressclassparameters-legacy-regex", "vault-problems",
	"facade-basic", "facade-problems", "ca-configmaps", "custom-entity-basic", "custom-entity-problems",
}

// initialPool returns every object a sequence may start with: a generated workload, the
// extraObjects connecting it, and the objects of the seed's golden cases.
func (w *world) initialPool() []store.Object {
	c := workload.Defaults(10)
	c.TLSSecrets, c.Consumers, c.Plugins, c.Namespaces, c.ConsumerGroups = 4, 4, 2, 2, 2
	c.UnrelatedSecrets, c.SecretSize, c.Seed = 2, 64, int64(w.seed)
	pool := workloadObjects(w.t, c)
	pool = append(pool, extraObjects(pool)...)
	pool = append(pool, streamObjects(pool)...)
	pool = append(pool, consumerGroupObjects()...)
	pool = append(pool, vaultObjects()...)
	pool = append(pool, licenseObjects()...)
	pool = append(pool, facadeObjects(pool)...)
	pool = append(pool, customEntityObjects(pool)...)
	pool = append(pool, w.configMapObjects()...)
	pool = append(pool, kicObjects(pool)...)
	gwNS := gatewayNamespaces(pool)
	for _, ns := range gwNS {
		w.gwNS = append(w.gwNS, ns.name)
	}
	pool = append(pool, gatewayObjects(gwNS)...)
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
	w.learnValues(pool)
	return pool
}

// learnValues collects the values changes draw from in the pool: namespaces, hosts of Ingress
// rules and TLS entries, TLS Secret data and consumer usernames, each once in order of appearance.
func (w *world) learnValues(pool []store.Object) {
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
	store.KindKongUpstreamPolicy: 2, store.KindGatewayClass: 1, store.KindGateway: 2, store.KindHTTPRoute: 3,
	store.KindGRPCRoute: 1, store.KindTCPRoute: 1, store.KindUDPRoute: 1, store.KindTLSRoute: 1, store.KindReferenceGrant: 1,
	store.KindNamespace:  1,
	store.KindTCPIngress: 2, store.KindUDPIngress: 1,
	store.KindKongConsumerGroup:      2,
	store.KindKongIngress:            2,
	store.KindIngressClassParameters: 1,
	store.KindKongVault:              2,
	store.KindKongLicense:            1,
	store.KindKongServiceFacade:      2,
	store.KindConfigMap:              2,
	store.KindKongCustomEntity:       2,
}

// oftenRecreated are the kinds whose objects are deleted more often than others, and mostly
// re-created a few steps later: classes, Gateways, grants and Namespaces, which decide for many
// objects at once.
func oftenRecreated(k store.Kind) bool {
	switch k {
	case store.KindIngressClass, store.KindGatewayClass, store.KindGateway, store.KindReferenceGrant, store.KindNamespace:
		return true
	}
	return false
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
	case roll < 14 || oftenRecreated(k) && roll < 25:
		ref := pick(w.r, present)
		w.st.Delete(ref)
		w.count(k, "delete")
		what = "delete " + ref.String()
		if oftenRecreated(k) || w.r.IntN(3) == 0 {
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

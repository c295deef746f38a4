package translator

import (
	"slices"
	"strings"
	gosync "sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
)

// The identity table: one entry per Kong service name an Ingress backend names, shared by every
// piece that routes to it, which is how assemble groups Ingress routes into Kong services.

// ksIdent is one Kong service name with the host and id derived from it, made once and shared
// by every piece that routes to it; assemble groups routes into Kong services through it. In an
// Engine that keeps its builds it also keeps (identKept) the entity the last build made for
// that name, and what it was made from.
type ksIdent struct {
	// name, host and id are set before the identity is interned and never after: the Kong
	// service and upstream entities point at them (buildService, buildUpstream).
	name, host, id string
	gen            uint64       // the grouping (build) whose Kong service ks holds
	dead           bool         // dropped from the table: pieces holding it are recomputed
	ks             kongService  // its Kong service in grouping gen, storage reused
	*identKept                  // nil in a build that keeps nothing (BuildOnce)
	merged         *facadeMerge // a facade's Kong service: its merged Service (ingressfacade.go)
}

// identKept is what an Engine keeps per Kong service identity for the next build.
type identKept struct {
	out     *document.Service
	in      serviceInputs
	route0  *document.Route // out.Routes[0] and len(out.Routes), read without touching out
	nroutes int
	// info and up are the pieces of the Kong service's Service settings and upstream.
	info slot[*corev1.Service, *serviceInfo]
	up   slot[upstreamIn, *document.Upstream]
	// svcPos and upPos are its places in the last emitted lists (-1: not emitted); emitGen the
	// last build that emitted it again without walking every Kong service (ingressstage.go).
	svcPos, upPos int
	emitGen       uint64
}

// facadeMerge is a facade's Service with the facade's annotations over its own, made from
// (of) and kept while both stay.
type facadeMerge struct {
	svc *corev1.Service
	of  [2]any
}

// newIdent returns the identity of Kong service name, with what an Engine keeps when keep
// (in the same allocation): a build that keeps nothing allocates less than half as much.
func newIdent(name string, keep bool) *ksIdent {
	if !keep {
		return &ksIdent{name: name}
	}
	k := &struct {
		ksIdent
		kept identKept
	}{}
	k.name = name
	k.kept.svcPos, k.kept.upPos = -1, -1
	k.identKept = &k.kept
	return &k.ksIdent
}

// current is the identity's Kong service in the grouping of build groupGen, or nil.
func (id *ksIdent) current(groupGen uint64) *kongService {
	if id.gen == groupGen {
		return &id.ks
	}
	return nil
}

// identTable interns Kong service identities by name, and keeps them in the two orders the
// document lists them in (services by name, upstreams by host), so that a build emits them in
// order without sorting; identities new since the last build are merged in.
type identTable struct {
	mu             gosync.Mutex // guards m, pending and the identities' merged Services
	m              map[string]*ksIdent
	epoch          uint64 // counts the sweeps that dropped identities
	used           int
	byName, byHost []*ksIdent
	pending        []*ksIdent // interned, not yet in byName and byHost
}

// lookup returns the identity named name, or nil.
func (tb *identTable) lookup(name []byte) *ksIdent {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.m[string(name)]
}

// add interns id, unless an identity of its name was added since the caller's lookup (by
// another worker of a parallel build): that one is returned instead.
func (tb *identTable) add(id *ksIdent) *ksIdent {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if prev, ok := tb.m[id.name]; ok {
		return prev
	}
	tb.m[id.name] = id
	tb.pending = append(tb.pending, id)
	return id
}

// ordered merges the pending identities into byName and byHost.
func (tb *identTable) ordered() {
	if len(tb.pending) == 0 {
		return
	}
	byName := func(a, b *ksIdent) int { return strings.Compare(a.name, b.name) }
	byHost := func(a, b *ksIdent) int { return strings.Compare(a.host, b.host) }
	tb.byName = mergeSorted(tb.byName, tb.pending, byName)
	tb.byHost = mergeSorted(tb.byHost, tb.pending, byHost)
	tb.pending = tb.pending[:0]
}

// mergeSorted returns sorted list with add merged in; add is sorted in place. A few additions to
// a long list cost a binary search each and one copy.
func mergeSorted[T any](list, add []T, cmp func(a, b T) int) []T {
	slices.SortFunc(add, cmp)
	if len(list) == 0 {
		return slices.Clone(add)
	}
	out := make([]T, 0, len(list)+len(add))
	at := 0
	for _, a := range add {
		i, _ := slices.BinarySearchFunc(list[at:], a, cmp)
		out = append(append(out, list[at:at+i]...), a)
		at += i
	}
	return append(out, list[at:]...)
}

// sweep drops identities build gen did not use, when they are many, and marks them dead so that
// a kept piece still holding one is not reused.
func (tb *identTable) sweep(gen uint64) {
	if !stale(len(tb.m), &tb.used) {
		return
	}
	for k, id := range tb.m {
		if id.gen != gen {
			id.dead = true
			delete(tb.m, k)
		}
	}
	tb.epoch++
	dead := func(id *ksIdent) bool { return id.dead }
	tb.byName = slices.DeleteFunc(tb.byName, dead)
	tb.byHost = slices.DeleteFunc(tb.byHost, dead)
	tb.pending = slices.DeleteFunc(tb.pending, dead)
}

// kongService is one Kong service of a build: one Kubernetes Service port, as Ingress backends
// name it, with the routes of every Ingress that uses it.
type kongService struct {
	ident      *ksIdent // its name, host and id
	port       portDef
	svc        *corev1.Service
	svcPort    *corev1.ServicePort
	facade     *kic.KongServiceFacade // the facade whose Kong service it is, if any
	portNumber int32
	fromRules  bool // routed to by a rule path (then it has path "/"), not only a default backend
	routes     []*document.Route
	routeBuf   [1]*document.Route // routes' first backing array: most Kong services have one route
	upstream   *document.Upstream // set once the service is emitted
	prepared   *serviceInfo       // its settings piece, when computed ahead (servicePiecesInParallel)
}

// serviceInputs is what a Kong service entity is made from besides its identity and routes.
type serviceInputs struct {
	svc       *corev1.Service
	info      *serviceInfo
	portNum   int32
	fromRules bool
}

// upstreamIn is what an upstream piece is made from besides its name and what it reads: the
// Service, its settings and port.
type upstreamIn struct {
	svc     *corev1.Service
	info    *serviceInfo
	svcPort corev1.ServicePort
	hasPort bool
}

// detach removes a rule route from the Kong service; def is the default backend's route.
func (ks *kongService) detach(r, def *document.Route) bool {
	i := slices.IndexFunc(ks.routes, func(x *document.Route) bool { return x == r })
	if i < 0 {
		return false
	}
	ks.routes = slices.Delete(ks.routes, i, i+1)
	ks.fromRules = slices.ContainsFunc(ks.routes, func(x *document.Route) bool { return x != def })
	return true
}

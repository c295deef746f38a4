// Package fallback computes KIC's fallback configuration (its FallbackConfiguration feature
// gate) as pure functions of a store snapshot: when Kong rejects objects, those objects and
// every object that depends on them, transitively, by KIC v3.5.13's dependency rules
// (rules.go), are left out; with --use-last-valid-config-for-fallback, the last valid version of
// each of them, and of what depended on it then, is put back (docs/sync.md, "Fallback").
//
// The dependants graph is built in one pass over the snapshot: a node per object, numbered, and
// its dependants as a compact adjacency list. Building it and walking it cost O(objects +
// references), whatever the shape: cycles, fan-outs of any size.
package fallback

import (
	"cmp"
	"slices"

	"github.com/kongsync/kongsync/store"
)

// MaxCauses bounds the causing objects listed per affected object: a Secret shared by 10,000
// plugins, all rejected, would otherwise list 10,000 causes on every object downstream. Each
// affected object lists the first MaxCauses roots that reach it (in the walk's order, then
// sorted), so the walk stays linear.
const MaxCauses = 8

// Graph is the dependants graph of one snapshot: an edge from each object to every object that
// depends on it (KIC's edges point from dependency to dependant, so that a walk from a broken
// object finds what it takes down). Only objects with an edge are numbered nodes; any other
// object of the snapshot stands alone (an EndpointSlice, a Service nothing routes to).
type Graph struct {
	snap *store.Snapshot
	refs []store.Ref
	objs []store.Object
	// ids numbers the objects with an edge, keyed by the object itself: the store hands out one
	// pointer per object version, so this is a pointer hash, not three strings'.
	ids map[store.Object]int32
	// first[i]:first[i+1] is the range of dependants of node i in edges, in the order the
	// snapshot lists them (kind, then namespace and name).
	first []int32
	edges []int32
}

// NewGraph builds the dependants graph of every object snap holds.
func NewGraph(snap *store.Snapshot) *Graph { return newGraph(snap, rules) }

// newGraph builds the graph by the given rule table (tests give hostile ones).
func newGraph(snap *store.Snapshot, rules map[store.Kind]rule) *Graph {
	// Sized for the objects of the kinds with a rule: each has at most its own node and one per
	// reference; growing the map from empty costs more than the whole walk.
	n := 0
	for _, k := range store.Kinds {
		if rules[k] != nil {
			n += snap.Len(k)
		}
	}
	g := &Graph{snap: snap, ids: make(map[store.Object]int32, n), objs: make([]store.Object, 0, n), refs: make([]store.Ref, 0, n)}
	b := &builder{g: g, from: make([]int32, 0, n), to: make([]int32, 0, n), last: make([]int32, 0, n)}
	dep := b.dep // one closure for the whole build
	for _, k := range store.Kinds {
		r := rules[k]
		if r == nil {
			continue
		}
		for _, o := range snap.Objects(k) {
			b.kind, b.obj, b.me = k, o, -1
			r(snap, o, dep)
		}
	}
	b.compact()
	return g
}

// builder collects a graph's edges, from[j] → to[j] (dependency → dependant), for the object
// being read (kind, obj; me its node once it has an edge).
type builder struct {
	g        *Graph
	kind     store.Kind
	obj      store.Object
	me       int32
	from, to []int32
	// last[d] is 1 + the last dependant given an edge from d, so that an object naming one
	// dependency many times adds one edge, in O(1) each.
	last []int32
}

// dep records that the object being read depends on ref, when the snapshot holds ref.
func (b *builder) dep(ref store.Ref) {
	d, ok := b.g.snap.Get(ref)
	if !ok {
		return
	}
	if b.me < 0 {
		b.me = b.id(b.obj, store.Ref{Kind: b.kind, Namespace: b.obj.GetNamespace(), Name: b.obj.GetName()})
	}
	di := b.id(d, ref)
	if b.last[di] == b.me+1 {
		return
	}
	b.last[di] = b.me + 1
	b.from, b.to = append(b.from, di), append(b.to, b.me)
}

// id numbers an object on its first edge.
func (b *builder) id(o store.Object, ref store.Ref) int32 {
	g := b.g
	if i, ok := g.ids[o]; ok {
		return i
	}
	i := int32(len(g.objs))
	g.ids[o] = i
	g.objs, g.refs, b.last = append(g.objs, o), append(g.refs, ref), append(b.last, 0)
	return i
}

// compact lays the edges out by dependency: node i's dependants are
// edges[first[i]:first[i+1]], in the order they were read.
func (b *builder) compact() {
	g, n := b.g, len(b.g.objs)
	g.first = make([]int32, n+1)
	for _, d := range b.from {
		g.first[d+1]++
	}
	for i := 0; i < n; i++ {
		g.first[i+1] += g.first[i]
	}
	g.edges = make([]int32, len(b.from))
	next := slices.Clone(g.first[:n])
	for j, d := range b.from {
		g.edges[next[d]] = b.to[j]
		next[d]++
	}
}

// followed are the kinds a graph reads: those with a rule, and those rules name.
var followed = func() []store.Kind {
	named := []store.Kind{store.KindIngressClass, store.KindService, store.KindSecret, store.KindKongPlugin,
		store.KindKongClusterPlugin, store.KindKongUpstreamPolicy, store.KindKongServiceFacade}
	var out []store.Kind
	for _, k := range store.Kinds {
		if rules[k] != nil || slices.Contains(named, k) {
			out = append(out, k)
		}
	}
	return out
}()

// For returns the graph of snap: g itself, rebound to snap, when snap lists the same objects as
// g's snapshot in every kind the rules read (the store shares an unchanged kind's list between
// snapshots, so this is a pointer comparison per kind), else a new graph. EndpointSlice churn,
// the most frequent change in a cluster, thus costs no new graph.
func (g *Graph) For(snap *store.Snapshot) *Graph {
	if g == nil {
		return NewGraph(snap)
	}
	if g.snap == snap {
		return g
	}
	for _, k := range followed {
		a, b := g.snap.Objects(k), snap.Objects(k)
		if len(a) != len(b) || len(a) > 0 && &a[0] != &b[0] {
			return NewGraph(snap)
		}
	}
	out := *g
	out.snap = snap
	return &out
}

// Len is the number of objects with an edge (nodes).
func (g *Graph) Len() int { return len(g.refs) }

// Edges is the number of dependency edges.
func (g *Graph) Edges() int { return len(g.edges) }

// node returns the node of the object ref names: ok is false when the snapshot does not hold
// it, id is -1 when it holds it without an edge.
func (g *Graph) node(ref store.Ref) (obj store.Object, id int32, ok bool) {
	obj, ok = g.snap.Get(ref)
	if !ok {
		return nil, -1, false
	}
	if i, has := g.ids[obj]; has {
		return obj, i, true
	}
	return obj, -1, true
}

// Dependants lists the objects that depend on ref directly, in the snapshot's order.
func (g *Graph) Dependants(ref store.Ref) []store.Ref {
	_, i, _ := g.node(ref)
	if i < 0 {
		return nil
	}
	out := make([]store.Ref, 0, g.first[i+1]-g.first[i])
	for _, d := range g.edges[g.first[i]:g.first[i+1]] {
		out = append(out, g.refs[d])
	}
	return out
}

// Object returns the graph's snapshot's object for ref.
func (g *Graph) Object(ref store.Ref) (store.Object, bool) { return g.snap.Get(ref) }

// Affected is an object a walk reached, with the roots it was reached from.
type Affected struct {
	Ref    store.Ref
	Object store.Object
	// Causes are the roots whose dependants the object is (itself, for a root), at most
	// MaxCauses, sorted.
	Causes []store.Ref
}

// Reach returns every object reachable from the roots along dependant edges, roots included,
// sorted by ref. Roots the snapshot does not hold reach nothing (as in KIC, an object no longer
// in the cache takes nothing down). The walk propagates each node's causes once, capped at
// MaxCauses: O(MaxCauses × (objects + edges)) at worst.
func (g *Graph) Reach(roots []store.Ref) []Affected {
	causes := map[int32][]int32{} // node → indexes into rootRefs, in arrival order
	var rootRefs []store.Ref
	var alone []Affected // roots without an edge: they reach only themselves
	seen := map[store.Ref]bool{}
	sent := map[int32]int{} // node → how many of its causes were passed on
	var queue []int32
	queued := map[int32]bool{}
	add := func(node, cause int32) {
		cs := causes[node]
		if len(cs) >= MaxCauses || slices.Contains(cs, cause) {
			return
		}
		causes[node] = append(cs, cause)
		if !queued[node] {
			queued[node] = true
			queue = append(queue, node)
		}
	}
	for _, r := range roots {
		obj, id, ok := g.node(r)
		if !ok || seen[r] {
			continue
		}
		seen[r] = true
		if id < 0 {
			alone = append(alone, Affected{Ref: r, Object: obj, Causes: []store.Ref{r}})
			continue
		}
		rootRefs = append(rootRefs, r)
		add(id, int32(len(rootRefs)-1))
	}
	for len(queue) > 0 {
		u := queue[0]
		queue, queued[u] = queue[1:], false
		fresh := causes[u][sent[u]:]
		sent[u] = len(causes[u])
		for _, v := range g.edges[g.first[u]:g.first[u+1]] {
			for _, c := range fresh {
				add(v, c)
			}
		}
	}
	return g.affected(causes, rootRefs, alone)
}

// affected turns the walk's result into sorted Affected values.
func (g *Graph) affected(causes map[int32][]int32, rootRefs []store.Ref, alone []Affected) []Affected {
	out := make([]Affected, 0, len(causes)+len(alone))
	out = append(out, alone...)
	for node, cs := range causes {
		a := Affected{Ref: g.refs[node], Object: g.objs[node], Causes: make([]store.Ref, len(cs))}
		for i, c := range cs {
			a.Causes[i] = rootRefs[c]
		}
		slices.SortFunc(a.Causes, CompareRefs)
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Affected) int { return CompareRefs(a.Ref, b.Ref) })
	return out
}

// CompareRefs orders refs by kind, namespace and name.
func CompareRefs(a, b store.Ref) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

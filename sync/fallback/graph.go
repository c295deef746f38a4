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
// object finds what it takes down).
type Graph struct {
	refs []store.Ref
	objs []store.Object
	ids  map[store.Ref]int32
	// first[i]:first[i+1] is the range of dependants of node i in edges, in node order.
	first []int32
	edges []int32
}

// NewGraph builds the dependants graph of every object snap holds.
func NewGraph(snap *store.Snapshot) *Graph { return newGraph(snap, rules) }

// newGraph builds the graph by the given rule table (tests give hostile ones).
func newGraph(snap *store.Snapshot, rules map[store.Kind]rule) *Graph {
	n := 0
	for _, k := range store.Kinds {
		n += snap.Len(k)
	}
	g := &Graph{refs: make([]store.Ref, 0, n), objs: make([]store.Object, 0, n), ids: make(map[store.Ref]int32, n)}
	for _, k := range store.Kinds {
		for _, o := range snap.Objects(k) {
			ref := store.Ref{Kind: k, Namespace: o.GetNamespace(), Name: o.GetName()}
			g.ids[ref] = int32(len(g.refs))
			g.refs = append(g.refs, ref)
			g.objs = append(g.objs, o)
		}
	}
	// from[j] → to[j]: dependency → dependant. last[d] is 1 + the last dependant given an edge
	// from d, so that an object naming one dependency many times adds one edge, in O(1) each.
	var from, to []int32
	last := make([]int32, n)
	for i, o := range g.objs {
		r := rules[g.refs[i].Kind]
		if r == nil {
			continue
		}
		r(snap, o, func(dep store.Ref) {
			d, ok := g.ids[dep]
			if !ok || last[d] == int32(i)+1 {
				return
			}
			last[d] = int32(i) + 1
			from, to = append(from, d), append(to, int32(i))
		})
	}
	g.first = make([]int32, n+1)
	for _, d := range from {
		g.first[d+1]++
	}
	for i := 0; i < n; i++ {
		g.first[i+1] += g.first[i]
	}
	g.edges = make([]int32, len(from))
	next := slices.Clone(g.first[:n])
	for j, d := range from {
		g.edges[next[d]] = to[j]
		next[d]++
	}
	return g
}

// Len is the number of objects (nodes) in the graph.
func (g *Graph) Len() int { return len(g.refs) }

// Edges is the number of dependency edges.
func (g *Graph) Edges() int { return len(g.edges) }

// Dependants lists the objects that depend on ref directly, in the snapshot's kind order.
func (g *Graph) Dependants(ref store.Ref) []store.Ref {
	i, ok := g.ids[ref]
	if !ok {
		return nil
	}
	out := make([]store.Ref, 0, g.first[i+1]-g.first[i])
	for _, d := range g.edges[g.first[i]:g.first[i+1]] {
		out = append(out, g.refs[d])
	}
	return out
}

// Object returns the graph's object for ref.
func (g *Graph) Object(ref store.Ref) (store.Object, bool) {
	i, ok := g.ids[ref]
	if !ok {
		return nil, false
	}
	return g.objs[i], true
}

// Affected is an object a walk reached, with the roots it was reached from.
type Affected struct {
	Ref    store.Ref
	Object store.Object
	// Causes are the roots whose dependants the object is (itself, for a root), at most
	// MaxCauses, sorted.
	Causes []store.Ref
}

// Reach returns every object reachable from the roots along dependant edges, roots included,
// sorted by ref. Roots the graph does not hold reach nothing (as in KIC, an object no longer in
// the cache takes nothing down). The walk propagates each node's causes once, capped at
// MaxCauses: O(MaxCauses × (objects + edges)) at worst.
func (g *Graph) Reach(roots []store.Ref) []Affected {
	causes := map[int32][]int32{} // node → indexes into rootIDs, in arrival order
	var rootIDs []int32
	isRoot := map[int32]bool{}
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
		if id, ok := g.ids[r]; ok && !isRoot[id] {
			isRoot[id] = true
			rootIDs = append(rootIDs, id)
			add(id, int32(len(rootIDs)-1))
		}
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
	return g.affected(causes, rootIDs)
}

// affected turns the walk's result into sorted Affected values.
func (g *Graph) affected(causes map[int32][]int32, rootIDs []int32) []Affected {
	out := make([]Affected, 0, len(causes))
	for node, cs := range causes {
		a := Affected{Ref: g.refs[node], Object: g.objs[node], Causes: make([]store.Ref, len(cs))}
		for i, c := range cs {
			a.Causes[i] = g.refs[rootIDs[c]]
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

package translator

import (
	"slices"
	"strings"

	"github.com/kongsync/kongsync/document"
)

// exprOrder orders the split matches of HTTPRoutes and GRPCRoutes that tie on their base
// priority, as KIC does across every route (gwexprtie.go), and gives the Kong routes of the
// second and later of each tie their lower priorities. gatewayPart keeps it between builds: a
// full pass groups every served piece's ties (a build that visits every route); a patch moves
// only the ties of the changed pieces, and re-prioritises the pieces whose ties' places in a
// group moved, so an edit that keeps a route's ties costs nothing beyond its own piece.
type exprOrder struct {
	groups map[uint64][]tieRef // by base priority, each in KIC's order
}

// tieRef is one split match in a group: the piece at position pos of the visiting order, and
// its tie t.
type tieRef struct {
	p   *routePiece
	pos int32
	t   int32
}

func (r tieRef) tie() *exprTie { return &r.p.ties[r.t] }

func compareRefs(a, b tieRef) int { return compareTies(&a.p.owner, a.tie(), &b.p.owner, b.tie()) }

// full groups the ties of the served pieces of all (servedPos[i] >= 0) and sets the
// priorities of their Kong services in svcs (sorted by name, descending; piece services
// replaced by prioritised copies where a tie is not the first of its group). A build that keeps
// nothing for a next one (inPlace: no piece outlives it) sets them on the pieces' routes.
func (o *exprOrder) full(all []*routePiece, servedPos []int32, svcs []*document.Service, inPlace bool) {
	o.groups = nil
	for i, p := range all {
		if servedPos[i] < 0 || len(p.ties) == 0 {
			continue
		}
		if o.groups == nil {
			o.groups = map[uint64][]tieRef{}
		}
		for ti := range p.ties {
			b := p.ties[ti].base
			o.groups[b] = append(o.groups[b], tieRef{p: p, pos: int32(i), t: int32(ti)})
		}
	}
	var touched []int32
	for _, g := range o.groups {
		if len(g) < 2 {
			continue
		}
		slices.SortFunc(g, compareRefs)
		for _, r := range g {
			touched = append(touched, r.pos)
		}
	}
	if !inPlace {
		o.reprioritise(all, touched, svcs)
		return
	}
	slices.Sort(touched)
	for _, pos := range slices.Compact(touched) {
		o.setInPlace(all[pos])
	}
}

// setInPlace gives a piece's own Kong routes the priorities of this order (the piece is this
// build's alone).
func (o *exprOrder) setInPlace(p *routePiece) {
	for _, s := range p.services {
		for _, r := range s.Routes {
			if prio, ok := o.priority(p, *r.Name); ok && r.Priority != nil {
				*r.Priority = prio
			}
		}
	}
}

// patch moves the ties of the pieces at changed positions from olds to all's pieces, and
// re-prioritises the Kong services in svcs of every piece whose place in a group may have
// moved (the changed ones always).
func (o *exprOrder) patch(olds []*routePiece, changed []int, all []*routePiece, servedPos []int32, svcs []*document.Service) {
	var touched []int32
	for k, i := range changed {
		old, cur := olds[k], all[i]
		if servedPos[i] < 0 || len(old.ties) == 0 && len(cur.ties) == 0 {
			continue
		}
		touched = append(touched, int32(i))
		if o.groups == nil {
			o.groups = map[uint64][]tieRef{}
		}
		if sameTies(old, cur) {
			for ti := range cur.ties {
				g := o.groups[cur.ties[ti].base]
				if at, found := slices.BinarySearchFunc(g, tieRef{p: old, t: int32(ti)}, compareRefs); found {
					g[at].p = cur
				}
			}
			continue
		}
		for ti := range old.ties {
			b := old.ties[ti].base
			g := o.groups[b]
			if at, found := slices.BinarySearchFunc(g, tieRef{p: old, t: int32(ti)}, compareRefs); found {
				o.groups[b] = slices.Delete(g, at, at+1)
				touched = appendMoved(touched, o.groups[b], at)
			}
		}
		for ti := range cur.ties {
			b := cur.ties[ti].base
			r := tieRef{p: cur, pos: int32(i), t: int32(ti)}
			g := o.groups[b]
			at, _ := slices.BinarySearchFunc(g, r, compareRefs)
			o.groups[b] = slices.Insert(g, at, r)
			touched = appendMoved(touched, o.groups[b], at)
		}
	}
	o.reprioritise(all, touched, svcs)
}

// appendMoved appends the positions of the members of a group whose priority may have changed
// when a member left or joined it at index at: those from at on, up to the last index with
// relative bits left (all later ones have none, before and after). At most 4,096 pieces, however
// large the group.
func appendMoved(dst []int32, g []tieRef, at int) []int32 {
	if len(g) == 0 {
		return dst
	}
	end := min(len(g), int(relativeMax(g[0].tie().base))+1)
	for i := at; i < end; i++ {
		dst = append(dst, g[i].pos)
	}
	return dst
}

// sameTies reports whether two pieces of one route have the same owner keys and ties with the
// same names, bases and keys (an edit that keeps every match's traits): their places in the
// groups are the same. (A route's creation timestamp does not change in a cluster; a manifest
// can change it.)
func sameTies(a, b *routePiece) bool {
	return a.owner.created.Equal(b.owner.created) &&
		slices.EqualFunc(a.ties, b.ties, func(x, y exprTie) bool { return x == y })
}

// reprioritise puts, for each piece at the positions touched, its Kong services with the
// priorities of this order into svcs.
func (o *exprOrder) reprioritise(all []*routePiece, touched []int32, svcs []*document.Service) {
	slices.Sort(touched)
	for _, pos := range slices.Compact(touched) {
		p := all[pos]
		replaceByName(svcs, o.prioritised(p), func(s *document.Service) string { return *s.Name })
	}
}

// prioritised are a piece's Kong services, each route with the priority of its tie's place in
// its group (copies of those whose priority differs from the piece's default).
func (o *exprOrder) prioritised(p *routePiece) []*document.Service {
	out, cloned := p.services, false
	for si, s := range p.services {
		var routes []*document.Route
		for ri, r := range s.Routes {
			prio, ok := o.priority(p, *r.Name)
			if !ok || r.Priority != nil && *r.Priority == prio {
				continue
			}
			if routes == nil {
				routes = slices.Clone(s.Routes)
			}
			cp := *r
			cp.Priority = &prio
			routes[ri] = &cp
		}
		if routes == nil {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(p.services), true
		}
		cs := *s
		cs.Routes = routes
		out[si] = &cs
	}
	return out
}

// priority is the priority of the piece's Kong route name: its tie's base with the relative
// bits of its place in its group.
func (o *exprOrder) priority(p *routePiece, name string) (uint64, bool) {
	ti, found := slices.BinarySearchFunc(p.ties, name, func(t exprTie, n string) int { return strings.Compare(t.name, n) })
	if !found {
		return 0, false
	}
	t := &p.ties[ti]
	g := o.groups[t.base]
	if len(g) < 2 {
		return tiePriority(t.base, 0), true
	}
	at, _ := slices.BinarySearchFunc(g, tieRef{p: p, t: int32(ti)}, compareRefs)
	return tiePriority(t.base, at), true
}

// replaceByName puts each of items at the place of the item of the same name in list (sorted
// by name, descending; every name is there).
func replaceByName[T any](list, items []T, name func(T) string) {
	for _, it := range items {
		n := name(it)
		i, _ := slices.BinarySearchFunc(list, n, func(x T, n string) int { return strings.Compare(n, name(x)) })
		list[i] = it
	}
}

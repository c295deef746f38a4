package translator

import (
	"cmp"
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
	// names are the positions of the Kong services in the kept list by name, made when a
	// patch moves many (patches keep the names in place); a full pass drops them.
	names map[string]int32
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
	o.groups, o.names = nil, nil
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
	var touched []tieAt
	for _, g := range o.groups {
		if len(g) < 2 {
			continue
		}
		slices.SortFunc(g, compareRefs)
		for i, r := range g {
			touched = append(touched, tieAt{pos: r.pos, t: r.t, idx: int32(i)})
		}
	}
	if !inPlace {
		o.reprioritise(all, touched, svcs)
		return
	}
	var several []int32 // pieces of several split matches, each prioritised once
	for _, ta := range touched {
		if p := all[ta.pos]; len(p.ties) == 1 {
			o.setInPlace(p, ta.t, tiePriority(p.ties[ta.t].base, int(ta.idx)))
		} else {
			several = append(several, ta.pos)
		}
	}
	slices.Sort(several)
	for _, pos := range slices.Compact(several) {
		o.setAllInPlace(all[pos])
	}
}

// setInPlace gives the Kong route of a piece's tie t the priority prio, on the piece's own
// route (the piece is this build's alone).
func (o *exprOrder) setInPlace(p *routePiece, t int32, prio uint64) {
	name := p.ties[t].name
	for _, s := range p.services {
		for _, r := range s.Routes {
			if *r.Name == name && r.Priority != nil {
				*r.Priority = prio
				return
			}
		}
	}
}

// setAllInPlace is setInPlace for every route of a piece of several split matches.
func (o *exprOrder) setAllInPlace(p *routePiece) {
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
	var touched []tieAt
	moved := map[uint64]int{} // the groups changed, with the first index whose members may have moved
	for k, i := range changed {
		old, cur := olds[k], all[i]
		if servedPos[i] < 0 || len(old.ties) == 0 && len(cur.ties) == 0 {
			continue
		}
		touched = append(touched, tieAt{pos: int32(i), idx: -1})
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
				movedFrom(moved, b, at)
			}
		}
		for ti := range cur.ties {
			b := cur.ties[ti].base
			r := tieRef{p: cur, pos: int32(i), t: int32(ti)}
			g := o.groups[b]
			at, _ := slices.BinarySearchFunc(g, r, compareRefs)
			o.groups[b] = slices.Insert(g, at, r)
			movedFrom(moved, b, at)
		}
	}
	for b, from := range moved {
		touched = appendMoved(touched, o.groups[b], from)
	}
	o.reprioritise(all, touched, svcs)
}

// tieAt is a piece whose priorities may have moved: its position in the visiting order and,
// when known, the final index in its group of its tie t (-1: look the piece's ties up).
type tieAt struct{ pos, t, idx int32 }

// movedFrom notes that the members of group b from index at on may have moved.
func movedFrom(moved map[uint64]int, b uint64, at int) {
	if from, ok := moved[b]; !ok || at < from {
		moved[b] = at
	}
}

// appendMoved appends the members of a group whose priority may have changed when members
// left or joined it from index at on: those from at on, up to the last index with relative
// bits left (all later ones have none, before and after). At most 4,096 pieces, however large
// the group.
func appendMoved(dst []tieAt, g []tieRef, at int) []tieAt {
	if len(g) == 0 {
		return dst
	}
	end := min(len(g), int(relativeMax(g[0].tie().base))+1)
	for i := at; i < end; i++ {
		dst = append(dst, tieAt{pos: g[i].pos, t: g[i].t, idx: int32(i)})
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

// reprioritise puts, for each piece touched, its Kong services with the priorities of this
// order into svcs. A piece of one split match whose index in its group is known takes it
// without a search.
func (o *exprOrder) reprioritise(all []*routePiece, touched []tieAt, svcs []*document.Service) {
	slices.SortFunc(touched, func(a, b tieAt) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(b.idx, a.idx)) })
	if len(touched) > 64 && o.names == nil {
		o.names = make(map[string]int32, len(svcs))
		for i, s := range svcs {
			o.names[*s.Name] = int32(i)
		}
	}
	for i, ta := range touched {
		if i > 0 && touched[i-1].pos == ta.pos {
			continue
		}
		p := all[ta.pos]
		var items []*document.Service
		if ta.idx >= 0 && len(p.ties) == 1 {
			items = o.prioritisedOne(p, tiePriority(p.ties[0].base, int(ta.idx)))
		} else {
			items = o.prioritised(p)
		}
		for _, it := range items {
			if at, ok := o.names[*it.Name]; ok {
				svcs[at] = it
				continue
			}
			replaceByName(svcs, []*document.Service{it}, func(s *document.Service) string { return *s.Name })
		}
	}
}

// prioritisedOne is prioritised for a piece of one split match of priority prio: its Kong
// service and route copied in one allocation when the priority is not the route's own.
func (o *exprOrder) prioritisedOne(p *routePiece, prio uint64) []*document.Service {
	if len(p.services) != 1 || len(p.services[0].Routes) != 1 || *p.services[0].Routes[0].Name != p.ties[0].name {
		return o.prioritised(p)
	}
	s, r := p.services[0], p.services[0].Routes[0]
	if r.Priority != nil && *r.Priority == prio {
		return p.services
	}
	c := &prioritisedCopy{svc: *s, route: *r, prio: prio}
	c.route.Priority = &c.prio
	c.routes[0] = &c.route
	c.svc.Routes = c.routes[:]
	c.svcs[0] = &c.svc
	return c.svcs[:]
}

// prioritisedCopy is a piece's one Kong service with its one route of another priority.
type prioritisedCopy struct {
	svcs   [1]*document.Service
	svc    document.Service
	routes [1]*document.Route
	route  document.Route
	prio   uint64
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

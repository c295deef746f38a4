package translator

import (
	"strings"
	"time"
)

// exprTie is one split match of an HTTPRoute or GRPCRoute under Kong's expressions router (one
// hostname, one rule, one match: one Kong route). Its priority is base plus KIC's
// relative-order bits, which depend on every other split match with the same base
// (gwexprorder.go); alone, it takes all of them.
type exprTie struct {
	name string // the Kong route's name
	base uint64 // the priority from the match's own traits (KIC's bit layout, relative bits zero)
	// rule, match and host are the rule's index, the match's index in it, and the hostname's
	// index in the route's hostnames: the last keys of KIC's order between ties.
	rule, match, host int32
}

// tieOwner is what KIC orders the split matches of different routes by, on a tie: the route's
// creation timestamp (oldest first), then namespace and name.
type tieOwner struct {
	created  time.Time
	ns, name string
}

// compareTies orders two split matches of one base as KIC does: older route first, then
// namespace, name, rule index and match index. Two split matches of one route, rule and match
// (two hostnames of one length) come in the reverse of their hostnames' order: KIC's comparator
// calls them ordered both ways, and its stable sort (an insertion sort for groups of up to 20)
// then moves each before the earlier ones.
func compareTies(oa *tieOwner, a *exprTie, ob *tieOwner, b *exprTie) int {
	if !oa.created.Equal(ob.created) {
		if oa.created.Before(ob.created) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(oa.ns, ob.ns); c != 0 {
		return c
	}
	if c := strings.Compare(oa.name, ob.name); c != 0 {
		return c
	}
	switch {
	case a.rule != b.rule:
		return int(a.rule - b.rule)
	case a.match != b.match:
		return int(a.match - b.match)
	}
	return int(b.host - a.host)
}

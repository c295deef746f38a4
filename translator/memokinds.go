package translator

import (
	"math/bits"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kongsync/kongsync/store"
)

// What changed between two builds, per kind: the engine diffs each kind's sorted list once
// per build (kindGens.update), so that reuse checks and the stages' readers indexes
// (memoreaders.go) look up only the reads of changed kinds and objects.

// followedKinds is how many kinds have a bit of their own in reads.mask and are followed by
// kindGens; bit followedKinds stands for every other kind and counts as always changed, so a
// kind beyond the limit would silently lose reuse. TestEveryKindHasItsBit fails before that.
const followedKinds = 31

// kindBit is a kind's bit in reads.mask: its index in store.Kinds, or bit followedKinds for a
// kind store.Kinds does not list (or lists beyond the limit).
func kindBit(k store.Kind) uint32 {
	for i, sk := range store.Kinds {
		if sk == k && i < followedKinds {
			return 1 << i
		}
	}
	return 1 << followedKinds
}

// kindIndex is a kind's index in kindGens (followedKinds for a kind it does not follow).
func kindIndex(k store.Kind) int { return bits.TrailingZeros32(kindBit(k)) }

// kindGens knows, per kind, the last build whose snapshot had a different list of it than the
// build before (no object of a kind whose list is the same changed) and, for that build, which
// objects changed when they are few: a piece checked at the build before then needs lookups
// only for what it read of those.
type kindGens struct {
	lists [followedKinds][]store.Object
	gen   [followedKinds + 1]uint64
	// delta holds the namespace/name of the objects of each kind that changed in build gen[i]
	// (nil: unknown, many); sliceSvcs the Services whose EndpointSlices those were.
	delta     [followedKinds]*refSet
	changes   [followedKinds][]objectChange // the changes delta names, old and new versions
	sliceSvcs *refSet
}

// update records which kinds changed in build gen's snapshot, and how.
func (k *kindGens) update(snap *store.Snapshot, gen uint64) {
	for i, kind := range store.Kinds[:min(len(store.Kinds), followedKinds)] {
		l := snap.Objects(kind)
		if sameList(l, k.lists[i]) {
			continue
		}
		changed := diffSorted(k.lists[i], l, maxDelta)
		k.delta[i], k.changes[i] = nil, changed
		if changed != nil {
			keys := make([][2]string, len(changed))
			for j, c := range changed {
				o := c.versions()[0]
				keys[j] = [2]string{o.GetNamespace(), o.GetName()}
			}
			k.delta[i] = newRefSet(keys)
		}
		if kind == store.KindEndpointSlice {
			k.sliceSvcs = sliceServices(changed)
		}
		k.lists[i], k.gen[i] = l, gen
	}
	k.gen[followedKinds] = gen
}

// unchangedSince reports whether no kind in mask changed after build checked.
func (k *kindGens) unchangedSince(mask uint32, checked uint64) bool {
	for mask != 0 {
		i := bits.TrailingZeros32(mask)
		if k.gen[i] > checked {
			return false
		}
		mask &^= 1 << i
	}
	return true
}

// sliceServices are the Services whose EndpointSlices changed (nil: unknown).
func sliceServices(changed []objectChange) *refSet {
	if changed == nil {
		return nil
	}
	keys := make([][2]string, 0, len(changed))
	for _, c := range changed {
		for _, o := range c.versions() {
			keys = append(keys, [2]string{o.GetNamespace(), o.GetLabels()[discoveryv1.LabelServiceName]})
		}
	}
	return newRefSet(keys)
}

// refSet is a set of namespace/name pairs; a few are compared one by one, without hashing.
type refSet struct {
	small [][2]string
	m     map[[2]string]struct{}
}

func newRefSet(keys [][2]string) *refSet {
	if len(keys) <= 8 {
		return &refSet{small: keys}
	}
	m := make(map[[2]string]struct{}, len(keys))
	for _, k := range keys {
		m[k] = struct{}{}
	}
	return &refSet{m: m}
}

// keys lists the set's members.
func (s *refSet) keys() [][2]string {
	if s.m == nil {
		return s.small
	}
	out := make([][2]string, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	return out
}

func (s *refSet) has(k [2]string) bool {
	if s.m != nil {
		_, ok := s.m[k]
		return ok
	}
	for _, x := range s.small {
		if x == k {
			return true
		}
	}
	return false
}

// maxDelta bounds the changed objects of a kind that validation checks one by one.
const maxDelta = 64

// objectChange is one object that differs between two snapshots: its old and new versions
// (nil: absent).
type objectChange struct{ old, cur store.Object }

// diffSorted lists the objects that differ between two lists sorted by namespace/name, or nil
// when more than limit do.
func diffSorted(a, b []store.Object, limit int) []objectChange {
	out := []objectChange{}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && a[i] == b[j] {
			i, j = i+1, j+1
			continue
		}
		switch c := compareAt(a, b, i, j); {
		case c == 0:
			out = append(out, objectChange{a[i], b[j]})
			i, j = i+1, j+1
		case c < 0:
			out = append(out, objectChange{old: a[i]})
			i++
		default:
			out = append(out, objectChange{cur: b[j]})
			j++
		}
		if len(out) > limit {
			return nil
		}
	}
	return out
}

// versions are a change's non-nil versions.
func (c objectChange) versions() []store.Object {
	switch {
	case c.old == nil:
		return []store.Object{c.cur}
	case c.cur == nil:
		return []store.Object{c.old}
	}
	return []store.Object{c.old, c.cur}
}

// compareAt orders a[i] and b[j] by namespace, then name; a missing element sorts last.
func compareAt(a, b []store.Object, i, j int) int {
	switch {
	case i >= len(a):
		return 1
	case j >= len(b):
		return -1
	}
	if c := strings.Compare(a[i].GetNamespace(), b[j].GetNamespace()); c != 0 {
		return c
	}
	return strings.Compare(a[i].GetName(), b[j].GetName())
}

// sameList reports whether two object lists are the same list.
func sameList(a, b []store.Object) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// kindMemos are the engine's memory of what changed between builds, which every stage reads.
type kindMemos struct {
	kinds kindGens
}

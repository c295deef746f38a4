package translator

import (
	"math/bits"
	"slices"

	"github.com/kongsync/kongsync/store"
)

// A piece is what one object contributes to the configuration, computed by a pure function of
// that object and of the objects it looks up on the way. Pieces see the snapshot only through a
// view, which records every lookup; the memo keeps a piece with what it read and hands it out
// again while every lookup still gives the same answer. Invalidation therefore follows what a
// piece actually read, not hand-written rules per kind: a piece that starts reading a new kind
// is invalidated by it without anything else to change.
//
// Objects are compared by pointer. The store hands out a new pointer for every new version of an
// object (and ignores updates that do not change its resourceVersion), and snapshot objects are
// immutable, so the same pointer means the same identity and resourceVersion, for objects read
// from manifests (which have none) as well.

// validSince reports whether r, valid at build checked, is valid in snap (build cur): only reads
// of kinds that changed since are looked up, and of those, when checked is the build before
// and the kind's changes are known, only reads of changed objects.
func (r *reads) validSince(snap *store.Snapshot, k *kindGens, checked, cur uint64) bool {
	skip := func(kind store.Kind, key [2]string) bool {
		i := bits.TrailingZeros32(kindBit(kind))
		if i == followedKinds {
			return false
		}
		if k.gen[i] <= checked {
			return true
		}
		if d := k.delta[i]; d != nil && checked+1 == cur && !d.has(key) {
			return true
		}
		return false
	}
	for i := range r.objs {
		o := &r.objs[i]
		if skip(o.ref.Kind, [2]string{o.ref.Namespace, o.ref.Name}) {
			continue
		}
		if cur, _ := lookup(snap, o.ref); cur != o.obj {
			return false
		}
	}
	es := bits.TrailingZeros32(kindBit(store.KindEndpointSlice))
	for i := range r.lists {
		l := &r.lists[i]
		if k.gen[es] <= checked {
			continue
		}
		if d := k.sliceSvcs; d != nil && checked+1 == cur && !d.has([2]string{l.ns, l.svc}) {
			continue
		}
		if !slices.Equal(snap.EndpointSlicesFor(l.ns, l.svc), l.list) {
			return false
		}
	}
	for i := range r.kinds {
		if !sameList(snap.Objects(r.kinds[i].kind), r.kinds[i].list) {
			return false
		}
	}
	return true
}

// add makes r's reads part of the reads of a piece that used the piece r belongs to.
func (r *reads) add(o *reads) {
	r.objs = append(r.objs, o.objs...)
	r.lists = append(r.lists, o.lists...)
	r.kinds = append(r.kinds, o.kinds...)
	r.mask |= o.mask
}

// entry is one memoised piece: its value, the problems computing it reported, what it read,
// the build that last used it and the last build at which its reads were checked.
type entry[V any] struct {
	val      V
	problems []Problem
	reads    reads
	gen      uint64
	checked  uint64
	pos      int // its place in the memo's sequence of the build gen
}

// memo keeps pieces of one sort by key (the object they are made from). Entries not used by a
// build are dropped once they make up a fifth of the table, so one change costs no scan.
type memo[K comparable, V any] struct {
	m    map[K]*entry[V]
	used int
	// alive, if set, must hold for a kept piece to be reused: what it refers to outside the
	// snapshot (a Kong service identity) still exists.
	alive func(V) bool
	// mask gathers the kinds the pieces handed out read, until takeMask.
	mask uint32
	// seq are the keys asked for by the current build, in order, and prev the previous build's:
	// builds ask for pieces in nearly the same order, so the key at the same place (after the
	// shift an insertion or deletion caused) is found without hashing.
	seq, prev []seqItem[K, V]
	seqGen    uint64
	shift     int
}

type seqItem[K comparable, V any] struct {
	key K
	e   *entry[V]
}

// find returns the kept entry for key, if any, looking at the previous build's sequence first.
func (m *memo[K, V]) find(gen uint64, key K) (*entry[V], bool) {
	if m.seqGen != gen {
		m.prev, m.seq, m.seqGen, m.shift = m.seq, m.prev[:0], gen, 0
	}
	if i := len(m.seq) + m.shift; i >= 0 && i < len(m.prev) && m.prev[i].key == key {
		return m.prev[i].e, true
	}
	e, ok := m.m[key]
	if ok && e.gen == gen-1 {
		m.shift = e.pos - len(m.seq) // realign with the previous sequence
	}
	return e, ok
}

// put appends key's entry to this build's sequence.
func (m *memo[K, V]) put(key K, e *entry[V]) {
	e.pos = len(m.seq)
	m.seq = append(m.seq, seqItem[K, V]{key, e})
}

func newMemo[K comparable, V any]() *memo[K, V] { return &memo[K, V]{m: map[K]*entry[V]{}} }

// piece returns the piece for key, computing it with compute when there is none, or when what
// the kept one read changed. compute reads through t.snap and reports through t.problem; the
// problems it reported are replayed whenever the piece is reused. Without a memo (a build that
// keeps nothing) it just computes.
func piece[K comparable, V any](t *translation, m *memo[K, V], key K, compute func() V) V {
	if m == nil {
		return compute()
	}
	m.used++
	if e, ok := m.find(t.gen, key); ok && (m.alive == nil || m.alive(e.val)) && t.reuse(&e.checked, &e.reads) {
		if e.gen != t.gen {
			e.gen = t.gen
			m.put(key, e)
		}
		t.replay(e.problems, &e.reads)
		m.mask |= e.reads.mask
		return e.val
	}
	e := record(t, compute)
	m.m[key] = e
	m.put(key, e)
	m.mask |= e.reads.mask
	return e.val
}

// takeMask returns the kinds read by the pieces handed out since the last call.
func (m *memo[K, V]) takeMask() uint32 {
	if m == nil {
		return 0
	}
	mask := m.mask
	m.mask = 0
	return mask
}

// slot is a memo of one piece held by what it belongs to (a Kong service identity), for pieces
// made from inputs that are not all objects: reused while the inputs are equal and what the
// piece read is unchanged.
type slot[I comparable, V any] struct {
	in I
	e  *entry[V]
}

// slotPiece is piece for a slot.
func slotPiece[I comparable, V any](t *translation, s *slot[I, V], in I, compute func() V) V {
	if !t.keep {
		return compute()
	}
	if e := s.e; e != nil && s.in == in && t.reuse(&e.checked, &e.reads) {
		e.gen = t.gen
		t.replay(e.problems, &e.reads)
		return e.val
	}
	s.in, s.e = in, record(t, compute)
	return s.e.val
}

// reuse reports whether a piece last checked at build *checked, with reads r, still holds.
func (t *translation) reuse(checked *uint64, r *reads) bool {
	if *checked == t.gen {
		return true
	}
	k := t.kinds
	if !k.unchangedSince(r.mask, *checked) && !r.validSince(t.snap.snap, k, *checked, t.gen) {
		return false
	}
	*checked = t.gen
	return true
}

// replay reports a reused piece's problems again and, inside another piece, adds its reads.
func (t *translation) replay(problems []Problem, r *reads) {
	t.problems = append(t.problems, problems...)
	if outer := t.snap.rec; outer != nil {
		outer.add(r)
	}
}

// record computes a piece, recording what it reads and the problems it reports.
func record[V any](t *translation, compute func() V) *entry[V] {
	e := &entry[V]{gen: t.gen, checked: t.gen}
	before, outer := len(t.problems), t.snap.rec
	t.snap.rec = &e.reads
	e.val = compute()
	t.snap.rec = outer
	if outer != nil {
		outer.add(&e.reads)
	}
	e.problems = slices.Clip(slices.Clone(t.problems[before:]))
	return e
}

// stale reports whether the entries of a table of n that the last build did not use (n - *used)
// are many enough to drop: a fifth of the table, and at least 64. It restarts the count.
func stale(n int, used *int) bool {
	u := *used
	*used = 0
	return n-u > max(64, u/4)
}

// sweep drops the entries the build gen did not use, when they are many.
func (m *memo[K, V]) sweep(gen uint64) {
	if m == nil {
		return
	}
	if !stale(len(m.m), &m.used) {
		return
	}
	for k, e := range m.m {
		if e.gen != gen {
			delete(m.m, k)
		}
	}
	m.prev = nil // it may name deleted entries
}

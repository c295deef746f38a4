package translator

import (
	"math/bits"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
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

// reads is what one piece looked up. mask has the bit of every kind read (kindBit): a piece
// whose kinds all kept their lists since it was last checked needs no lookups to be reused.
type reads struct {
	objs  []objRead
	lists []listRead
	kinds []kindRead
	mask  uint32
}

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

// kindIndex is a kind's index in kindGens (followedKinds for a kind it does not follow).
func kindIndex(k store.Kind) int { return bits.TrailingZeros32(kindBit(k)) }

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

// objRead is one object looked up by kind, namespace and name, as found (nil: missing).
type objRead struct {
	ref store.Ref
	obj store.Object
}

// listRead is one EndpointSlice index lookup, as found.
type listRead struct {
	ns, svc string
	list    []*discoveryv1.EndpointSlice
}

// kindRead is a scan of a whole kind: valid while the kind's list is the same list (snapshots
// share the lists of kinds that did not change).
type kindRead struct {
	kind store.Kind
	list []store.Object
}

// add makes r's reads part of the reads of a piece that used the piece r belongs to.
func (r *reads) add(o *reads) {
	r.objs = append(r.objs, o.objs...)
	r.lists = append(r.lists, o.lists...)
	r.kinds = append(r.kinds, o.kinds...)
	r.mask |= o.mask
}

// lookup is snap.Get with the typed fast paths for the kinds pieces read most; a missing object
// is a nil interface, never a typed nil.
func lookup(snap *store.Snapshot, ref store.Ref) (store.Object, bool) {
	if ref.Kind == store.KindService {
		if s, ok := snap.Service(ref.Namespace, ref.Name); ok {
			return s, true
		}
		return nil, false
	}
	return snap.Get(ref)
}

// sameList reports whether two object lists are the same list.
func sameList(a, b []store.Object) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// view is the snapshot as a piece sees it: lookups are recorded in rec while a piece runs
// (rec is nil in assemble, whose reads are redone on every build anyway).
type view struct {
	snap *store.Snapshot
	rec  *reads
}

func (v *view) note(kind store.Kind, ns, name string, o store.Object) {
	if v.rec != nil {
		v.rec.objs = append(v.rec.objs, objRead{ref: store.Ref{Kind: kind, Namespace: ns, Name: name}, obj: o})
		v.rec.mask |= kindBit(kind)
	}
}

// noted records a typed lookup's answer: the object, or a nil interface when missing (never a
// typed nil, which would not equal a later "missing").
func noted[T store.Object](v *view, kind store.Kind, ns, name string, o T, ok bool) (T, bool) {
	var obj store.Object
	if ok {
		obj = o
	}
	v.note(kind, ns, name, obj)
	return o, ok
}

// Service looks up a Service.
func (v *view) Service(ns, name string) (*corev1.Service, bool) {
	s, ok := v.snap.Service(ns, name)
	return noted(v, store.KindService, ns, name, s, ok)
}

// Secret looks up a Secret.
func (v *view) Secret(ns, name string) (*corev1.Secret, bool) {
	s, ok := v.snap.Secret(ns, name)
	return noted(v, store.KindSecret, ns, name, s, ok)
}

// KongUpstreamPolicy looks up a KongUpstreamPolicy.
func (v *view) KongUpstreamPolicy(ns, name string) (*kup.KongUpstreamPolicy, bool) {
	p, ok := v.snap.KongUpstreamPolicy(ns, name)
	return noted(v, store.KindKongUpstreamPolicy, ns, name, p, ok)
}

// KongIngress looks up a KongIngress.
func (v *view) KongIngress(ns, name string) (*configurationv1.KongIngress, bool) {
	k, ok := v.snap.KongIngress(ns, name)
	return noted(v, store.KindKongIngress, ns, name, k, ok)
}

// Get looks up any object.
func (v *view) Get(ref store.Ref) (store.Object, bool) {
	o, ok := v.snap.Get(ref)
	v.note(ref.Kind, ref.Namespace, ref.Name, o)
	return o, ok
}

// EndpointSlicesFor looks up a Service's EndpointSlices.
func (v *view) EndpointSlicesFor(ns, svc string) []*discoveryv1.EndpointSlice {
	l := v.snap.EndpointSlicesFor(ns, svc)
	if v.rec != nil {
		v.rec.lists = append(v.rec.lists, listRead{ns: ns, svc: svc, list: l})
		v.rec.mask |= kindBit(store.KindEndpointSlice)
	}
	return l
}

// Objects scans a whole kind.
func (v *view) Objects(k store.Kind) []store.Object {
	l := v.snap.Objects(k)
	if v.rec != nil {
		v.rec.kinds = append(v.rec.kinds, kindRead{kind: k, list: l})
		v.rec.mask |= kindBit(k)
	}
	return l
}

// Secrets scans every Secret.
func (v *view) Secrets() []*corev1.Secret {
	v.Objects(store.KindSecret)
	return v.snap.Secrets()
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
	alive func(*translation, V) bool
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
	if e, ok := m.find(t.gen, key); ok && (m.alive == nil || m.alive(t, e.val)) && t.reuse(&e.checked, &e.reads) {
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
	k := &t.memos.kinds
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

// kindMemos are the engine's memory of what changed between builds, which every stage reads.
type kindMemos struct {
	kinds kindGens
}

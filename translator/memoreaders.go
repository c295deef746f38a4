package translator

import (
	"math/bits"
	"slices"

	"github.com/kongsync/kongsync/store"
)

// A stage that keeps its output between builds must find, after a change, the pieces that read
// what changed: walking every piece to ask would cost more than the change at 10,000 objects.
// readersIndex is that reverse index, from each read (an object, an EndpointSlice index entry,
// a whole kind) to who made it: the Ingress stages' Kong services (ingressstage.go), the Gateway API
// stage's route positions (gwstage.go) and the consumer stage's entries (consumerstage.go).

// readKey names one read a piece made: an object (its kind, namespace and name), or an
// EndpointSlice index entry (kind indexRead, the Service's namespace and name).
type readKey struct {
	kind     store.Kind
	ns, name string
}

// indexRead is the readKey kind of an EndpointSlice index lookup (by Service).
const indexRead store.Kind = "EndpointSlice index"

// readersIndex maps each read to the readers that made it. The zero value is not built: a
// stage that needs the index only after a change builds it then.
type readersIndex[T comparable] struct {
	byRead map[readKey]readerSet[T]
	byKind map[store.Kind]readerSet[T] // whole-kind reads
}

// built reports whether the index was made (reset) since it was zero.
func (x *readersIndex[T]) built() bool { return x.byRead != nil }

// reset empties the index, leaving it built.
func (x *readersIndex[T]) reset() {
	x.byRead, x.byKind = map[readKey]readerSet[T]{}, map[store.Kind]readerSet[T]{}
}

// add records that who made the reads r; a reader is listed once per read however often it is
// added. A zero index is reset first.
func (x *readersIndex[T]) add(who T, r *reads) {
	if !x.built() {
		x.reset()
	}
	for _, o := range r.objs {
		k := readKey{o.ref.Kind, o.ref.Namespace, o.ref.Name}
		x.byRead[k] = x.byRead[k].add(who)
	}
	for _, l := range r.lists {
		k := readKey{indexRead, l.ns, l.svc}
		x.byRead[k] = x.byRead[k].add(who)
	}
	for _, kr := range r.kinds {
		x.byKind[kr.kind] = x.byKind[kr.kind].add(who)
	}
}

// remove takes who out of the readers of r's reads.
func (x *readersIndex[T]) remove(who T, r *reads) {
	if !x.built() {
		return
	}
	for _, o := range r.objs {
		removeReader(x.byRead, readKey{o.ref.Kind, o.ref.Namespace, o.ref.Name}, who)
	}
	for _, l := range r.lists {
		removeReader(x.byRead, readKey{indexRead, l.ns, l.svc}, who)
	}
	for _, kr := range r.kinds {
		removeReader(x.byKind, kr.kind, who)
	}
}

func removeReader[K comparable, T comparable](m map[K]readerSet[T], k K, who T) {
	if s, ok := m[k]; ok {
		if s = s.remove(who); s.len() == 0 {
			delete(m, k)
		} else {
			m[k] = s
		}
	}
}

// size is the number of (read, reader) pairs held.
func (x *readersIndex[T]) size() int {
	n := 0
	for _, s := range x.byRead {
		n += s.len()
	}
	for _, s := range x.byKind {
		n += s.len()
	}
	return n
}

// changed appends to out the readers of what changed, per kg, since build since in the kinds
// of mask: of each kind, the readers of the whole kind, of its changed objects and, for
// EndpointSlices, of their Services' index entries. A reader may be appended more than once.
// False when a changed kind's changes are not known (or a kind kindGens does not follow is in
// mask).
func (x *readersIndex[T]) changed(kg *kindGens, mask uint32, since uint64, out []T) ([]T, bool) {
	for ; mask != 0; mask &= mask - 1 {
		i := bits.TrailingZeros32(mask)
		if i == followedKinds {
			return nil, false // a kind kindGens does not follow
		}
		if kg.gen[i] <= since {
			continue
		}
		kind := store.Kinds[i]
		if kg.delta[i] == nil || (kind == store.KindEndpointSlice && kg.sliceSvcs == nil) {
			return nil, false
		}
		out = x.byKind[kind].appendTo(out)
		for _, key := range kg.delta[i].keys() {
			out = x.byRead[readKey{kind, key[0], key[1]}].appendTo(out)
		}
		if kind == store.KindEndpointSlice {
			for _, key := range kg.sliceSvcs.keys() {
				out = x.byRead[readKey{indexRead, key[0], key[1]}].appendTo(out)
			}
		}
	}
	return out, true
}

// readerSet are the readers of one read, in the order they were added: most reads have one,
// kept inline without allocating (a set is a map value: it stays small). A read every upstream
// makes (our IngressClass, for its parameters) has them all; seen keeps such a set free of
// repeats, without a quadratic search, as their pieces are recomputed one change after another.
type readerSet[T comparable] struct {
	first T
	one   bool           // first is set
	rest  *readerRest[T] // the readers after first; nil while there is one
}

// readerRest are the readers of a read after the first.
type readerRest[T comparable] struct {
	more []T
	seen map[T]struct{} // the members of more, once it is long
}

// readersSeenAt is the length of more from which seen is kept.
const readersSeenAt = 16

func (r readerSet[T]) add(who T) readerSet[T] {
	switch {
	case !r.one:
		r.first, r.one = who, true
		return r
	case r.first == who:
		return r
	case r.rest == nil:
		r.rest = &readerRest[T]{}
	}
	rest := r.rest
	switch {
	case rest.seen != nil:
		if _, ok := rest.seen[who]; !ok {
			rest.seen[who] = struct{}{}
			rest.more = append(rest.more, who)
		}
	case slices.Contains(rest.more, who): // fewer than readersSeenAt
	default:
		rest.more = append(rest.more, who)
		if len(rest.more) >= readersSeenAt {
			rest.seen = make(map[T]struct{}, len(rest.more))
			for _, m := range rest.more {
				rest.seen[m] = struct{}{}
			}
		}
	}
	return r
}

// remove takes who out, keeping the others' order.
func (r readerSet[T]) remove(who T) readerSet[T] {
	if !r.one {
		return r
	}
	if r.first == who {
		if r.rest == nil || len(r.rest.more) == 0 {
			return readerSet[T]{}
		}
		r.first = r.rest.more[0]
		r.rest.more = slices.Delete(r.rest.more, 0, 1)
		delete(r.rest.seen, r.first)
		return r
	}
	if r.rest != nil {
		r.rest.more = slices.DeleteFunc(r.rest.more, func(m T) bool { return m == who })
		delete(r.rest.seen, who)
	}
	return r
}

func (r readerSet[T]) len() int {
	switch {
	case !r.one:
		return 0
	case r.rest == nil:
		return 1
	}
	return 1 + len(r.rest.more)
}

// appendTo appends the readers to out.
func (r readerSet[T]) appendTo(out []T) []T {
	if !r.one {
		return out
	}
	out = append(out, r.first)
	if r.rest != nil {
		out = append(out, r.rest.more...)
	}
	return out
}

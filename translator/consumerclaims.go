package translator

import (
	"slices"
	"strings"
)

// Kong keeps some values unique across the whole configuration and rejects all of it
// otherwise: consumer usernames and custom_ids, key-auth and jwt keys, basic-auth and hmac-auth
// usernames, oauth2 client_ids. They are global names that any namespace can claim. KIC sends
// both consumers of a username (Kong then rejects the config) and skips every KongConsumer
// holding a credential value twice, so that a tenant can make another's consumer disappear by
// reusing its key. kongsync gives each value to the oldest KongConsumer holding it (by creation
// time, ties broken by "namespace/name": the claim order) and skips the younger ones, each with
// a problem naming the one that keeps it.
//
// A consumer is kept when none of its values is held by an older kept consumer; a skipped one
// claims nothing, so whether a consumer is kept depends on the older holders of its values
// only. Deciding changed consumers in claim order, and passing each change of a decision on to
// the younger holders of its values, decides every consumer a change reaches once. The kept
// holder of each value is looked up, never searched for, so that n consumers sharing a value
// cost O(n log n), not O(n²).

// claimCompare is the claim order.
func claimCompare(a, b *consumerEntry) int {
	ta, tb := &a.obj.CreationTimestamp, &b.obj.CreationTimestamp
	if !ta.Equal(tb) {
		if ta.Before(tb) {
			return -1
		}
		return 1
	}
	return compareNsName(a.obj.Namespace, a.obj.Name, b.obj.Namespace, b.obj.Name)
}

// claimKey is a global name: its space (usernames and custom_ids are unique separately, and a
// credential's ukey already names its kind) and its value. A struct, not a concatenated string,
// so that keying a consumer's names allocates nothing.
type claimKey struct {
	space claimSpace
	v     string
}

type claimSpace uint8

const (
	spaceUsername claimSpace = iota
	spaceCustomID
	spaceCredential
	claimSpaces // how many
)

// claimMaps are maps by global name, one per space, keyed by the value alone: plain string
// keys hash as fast as strings do, and need no key built.
type claimMaps[T any] [claimSpaces]map[string]T

// newClaimMaps makes the maps for about n consumers: most have a username and a credential,
// few a custom_id.
func newClaimMaps[T any](n int) claimMaps[T] {
	return claimMaps[T]{make(map[string]T, n), make(map[string]T), make(map[string]T, n)}
}

func (m claimMaps[T]) get(k claimKey) T    { return m[k.space][k.v] }
func (m claimMaps[T]) set(k claimKey, v T) { m[k.space][k.v] = v }
func (m claimMaps[T]) delete(k claimKey)   { delete(m[k.space], k.v) }

// set reports whether the key names a value ("" is no username, no custom_id, no ukey).
func (k claimKey) set() bool { return k.v != "" }

// valueHolder is one holding of a global name: the consumer, and the index of the credential
// in its piece (-1 for its username or custom_id).
type valueHolder struct {
	e *consumerEntry
	i int
}

// holderList is the holders of one global name, in no order: the claim queue orders decisions.
type holderList = few[valueHolder]

// eachValue calls f with every global name the entry holds: its username and custom_id, and,
// once its piece is made, its credential values (each once: the piece skips repeats).
func (e *consumerEntry) eachValue(f func(key claimKey, i int)) {
	if e.nameKey.set() {
		f(e.nameKey, -1)
	}
	if e.idKey.set() {
		f(e.idKey, -1)
	}
	if e.p == nil {
		return
	}
	for i, u := range e.p.val.creds {
		if u.cred.ukey != "" {
			f(claimKey{spaceCredential, u.cred.ukey}, i)
		}
	}
}

// addHolders adds the entry's values to the holder lists: its names when added, its credential
// values when its piece is set.
func (st *consumerStage) addHolders(e *consumerEntry, creds bool) {
	e.eachValue(func(k claimKey, i int) {
		if (i >= 0) == creds {
			st.holders.set(k, st.holders.get(k).add(valueHolder{e, i}))
		}
	})
}

// removeHolders takes the entry out of the holder lists.
func (st *consumerStage) removeHolders(e *consumerEntry) {
	e.eachValue(func(k claimKey, _ int) {
		fewRemove(st.holders[k.space], k.v, func(h valueHolder) bool { return h.e == e })
	})
}

// claimQueue holds the entries whose claims are to be decided, handed out in claim order: those
// queued before the decisions start are sorted once, those queued by a decision go to a heap.
type claimQueue struct {
	list    []*consumerEntry
	next    int
	more    claimHeap
	started bool
}

func (q *claimQueue) push(gen uint64, e *consumerEntry) {
	if e.queued == gen {
		return
	}
	e.queued = gen
	if !q.started {
		q.list = append(q.list, e)
		return
	}
	q.more.push(e)
}

// pop returns the oldest queued entry; nil when none is left.
func (q *claimQueue) pop() *consumerEntry {
	if !q.started {
		slices.SortFunc(q.list, claimCompare)
		q.started = true
	}
	switch {
	case q.next < len(q.list) && (len(q.more) == 0 || claimCompare(q.list[q.next], q.more[0]) < 0):
		q.next++
		return q.list[q.next-1]
	case len(q.more) > 0:
		return q.more.pop()
	}
	return nil
}

// claimHeap is a binary min-heap in claim order.
type claimHeap []*consumerEntry

func (h *claimHeap) push(e *consumerEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if claimCompare(s[i], s[p]) >= 0 {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *claimHeap) pop() *consumerEntry {
	s := *h
	top, n := s[0], len(s)-1
	s[0], s[n] = s[n], nil
	s = s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && claimCompare(s[c+1], s[c]) < 0 {
			c++
		}
		if claimCompare(s[c], s[i]) >= 0 {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// claims decides the queued entries in claim order.
func (w *consumerWork) claims() {
	for e := w.queue.pop(); e != nil; e = w.queue.pop() {
		if !e.removed {
			w.decide(e)
		}
	}
}

// decide decides whether an entry keeps its values, every older holder being decided.
func (w *consumerWork) decide(e *consumerEntry) {
	st, c := w.st, e.obj
	was := e.kept
	e.kept, e.claim = false, nil
	byName, byID := st.olderOwner(e.nameKey, e), st.olderOwner(e.idKey, e)
	switch {
	case c.Username == "" && c.CustomID == "":
		e.claim = []Problem{newProblem(e.ref, "", "neither username nor custom_id is set; KongConsumer skipped")}
	case byName.e != nil:
		e.claim = []Problem{newProblem(e.ref, "username", "username %q is already used by the older %s; "+
			"KongConsumer skipped", c.Username, byName.e.ref)}
	case byID.e != nil:
		e.claim = []Problem{newProblem(e.ref, "custom_id", "custom_id %q is already used by the older %s; "+
			"KongConsumer skipped", c.CustomID, byID.e.ref)}
	default:
		st.ensurePiece(w.t, e)
		e.claim = st.credentialClaims(e)
		if e.kept = len(e.claim) == 0; !e.kept {
			st.stats.refusedCreds++
		}
	}
	w.touch(e)
	if e.kept == was {
		return
	}
	e.eachValue(func(k claimKey, i int) {
		switch {
		case e.kept:
			st.owners.set(k, valueHolder{e, i}) // a younger owner it displaces is among those pushed
		case st.owners.get(k).e == e:
			st.owners.delete(k)
		}
	})
	w.pushYounger(e)
}

// olderOwner is the kept holder of a global name when it is older than e; zero otherwise.
func (st *consumerStage) olderOwner(key claimKey, e *consumerEntry) valueHolder {
	if !key.set() {
		return valueHolder{}
	}
	if o := st.owners.get(key); o.e != nil && o.e != e && claimCompare(o.e, e) < 0 {
		return o
	}
	return valueHolder{}
}

// credentialClaims are the problems of an entry whose credential values older consumers hold:
// one on the KongConsumer and one on the Secret for each such credential, each naming the
// consumer that keeps the value (never the others: the text does not grow with the holders).
func (st *consumerStage) credentialClaims(e *consumerEntry) []Problem {
	var out []Problem
	for _, u := range e.p.val.creds {
		o := st.olderOwner(claimKey{spaceCredential, u.cred.ukey}, e)
		if o.e == nil {
			continue
		}
		what := globalNameKind(u.cred.ukey)
		out = append(out,
			newProblem(e.ref, u.field(), "the %s of %s is already used by the older %s (%s); "+
				"KongConsumer skipped", what, u.secret, o.e.ref, o.e.p.val.creds[o.i].secret),
			newProblem(u.secret, "", "%s is already used by the older %s; %s, which lists this Secret, "+
				"is skipped", what, o.e.ref, e.ref))
	}
	return out
}

// globalNameKind is what a global name key names: "username", "key-auth key".
func globalNameKind(key string) string {
	kind, _, _ := strings.Cut(key, "\x00")
	return kind
}

// pushYounger queues the holders of e's values that are younger than e: the decision on e
// changed, and with it who keeps those values.
func (w *consumerWork) pushYounger(e *consumerEntry) {
	e.eachValue(func(k claimKey, _ int) {
		l := w.st.holders.get(k)
		for i := range l.len() {
			if h := l.at(i).e; h.queued != w.t.gen && claimCompare(e, h) < 0 {
				w.queue.push(w.t.gen, h)
				w.st.stats.cascades++
			}
		}
	})
}

// few is a short list, most often of one element, kept without allocating then. The zero
// value of T is no element.
type few[T comparable] struct {
	one  T
	more []T // two or more (one is zero then)
}

func (l few[T]) len() int {
	var zero T
	if l.one != zero {
		return 1
	}
	return len(l.more)
}

func (l few[T]) at(i int) T {
	var zero T
	if l.one != zero {
		return l.one
	}
	return l.more[i]
}

// add appends x.
func (l few[T]) add(x T) few[T] {
	var zero T
	switch {
	case l.one == zero && len(l.more) == 0:
		return few[T]{one: x}
	case l.one != zero:
		return few[T]{more: []T{l.one, x}}
	}
	l.more = append(l.more, x)
	return l
}

// without is the list without the elements del selects (a new list: the old one may be shared).
func (l few[T]) without(del func(T) bool) few[T] {
	var zero T
	if l.one != zero {
		if del(l.one) {
			return few[T]{}
		}
		return l
	}
	more := slices.DeleteFunc(slices.Clone(l.more), del)
	switch len(more) {
	case 0:
		return few[T]{}
	case 1:
		return few[T]{one: more[0]}
	}
	return few[T]{more: more}
}

// fewRemove removes the elements del selects from the list at m[k], deleting the key when none
// is left.
func fewRemove[K, T comparable](m map[K]few[T], k K, del func(T) bool) {
	if l := m[k].without(del); l.len() == 0 {
		delete(m, k)
	} else {
		m[k] = l
	}
}

package translator

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/store"
)

// Kong keeps usernames and custom_ids unique and rejects the whole config otherwise; KIC sends
// both consumers anyway, in map order. kongsync gives each value to the oldest KongConsumer (by
// creation time, ties broken by "namespace/name": the claim order) and skips the later ones
// with a problem. A skipped consumer claims nothing, so whether a consumer is kept depends on
// the older holders of its values only: deciding changed consumers in claim order, and passing
// each change of a decision on to the younger holders of its values, decides every consumer a
// change reaches once.

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

// claimQueue holds the entries whose claims are to be decided, handed out in claim order: those
// queued before the decisions start are sorted once, those queued by a decision kept sorted.
type claimQueue struct {
	list    []*consumerEntry
	next    int
	more    []*consumerEntry
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
	i, _ := slices.BinarySearchFunc(q.more, e, claimCompare)
	q.more = slices.Insert(q.more, i, e)
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
		e := q.more[0]
		q.more = q.more[1:]
		return e
	}
	return nil
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
	var byName, byID *consumerEntry
	if c.Username != "" {
		byName = keptBefore(st.usernames[c.Username], e)
	}
	if byName == nil && c.CustomID != "" {
		byID = keptBefore(st.customIDs[c.CustomID], e)
	}
	switch {
	case c.Username == "" && c.CustomID == "":
		e.claim = []Problem{newProblem(e.ref, "", "neither username nor custom_id is set; KongConsumer skipped")}
	case byName != nil:
		e.claim = []Problem{newProblem(e.ref, "username", "username %q is already used by the older %s; "+
			"KongConsumer skipped", c.Username, byName.ref)}
	case byID != nil:
		e.claim = []Problem{newProblem(e.ref, "custom_id", "custom_id %q is already used by the older %s; "+
			"KongConsumer skipped", c.CustomID, byID.ref)}
	default:
		e.kept = true
	}
	w.touch(e)
	if e.kept == was {
		return
	}
	if e.kept {
		st.ensurePiece(w.t, e)
		st.addCreds(w, e)
	} else {
		st.removeCreds(w, e)
		e.dropped, e.conflicts = false, nil
	}
	w.pushYounger(e)
}

// pushYounger queues the holders of e's values that are younger than e.
func (w *consumerWork) pushYounger(e *consumerEntry) {
	for _, l := range []entryList{w.st.usernames[e.obj.Username], w.st.customIDs[e.obj.CustomID]} {
		for i := range l.len() {
			if h := l.at(i); claimCompare(e, h) < 0 && h.queued != w.t.gen {
				w.queue.push(w.t.gen, h)
				w.st.stats.cascades++
			}
		}
	}
}

// credentialHolder is one use of a unique credential value: the consumer and the index of the
// credential in its piece.
type credentialHolder struct {
	e *consumerEntry
	i int
}

func (h credentialHolder) use() credentialUse { return h.e.p.val.creds[h.i] }

// holderList is the holders of one credential value.
type holderList = few[credentialHolder]

// addCreds adds a kept entry's credentials to the holders of their values, noting the values
// now held twice.
func (st *consumerStage) addCreds(w *consumerWork, e *consumerEntry) {
	for i, u := range e.p.val.creds {
		k := u.cred.ukey
		if k == "" {
			continue
		}
		l := st.creds[k].add(credentialHolder{e, i})
		st.creds[k] = l
		if l.len() > 1 {
			w.ukeys = append(w.ukeys, k)
		}
	}
}

// removeCreds takes an entry's credentials out of the holders, noting the values that were
// held twice.
func (st *consumerStage) removeCreds(w *consumerWork, e *consumerEntry) {
	if e.p == nil {
		return
	}
	for _, u := range e.p.val.creds {
		k := u.cred.ukey
		if k == "" || st.creds[k].len() == 0 {
			continue
		}
		if st.creds[k].len() > 1 {
			w.ukeys = append(w.ukeys, k)
		}
		fewRemove(st.creds, k, func(h credentialHolder) bool { return h.e == e })
	}
}

// conflicts decides again the holders of the credential values whose holders changed. A value
// held twice (key-auth key, basic-auth and hmac-auth username, jwt key, oauth2 client_id) skips,
// as in KIC, every KongConsumer holding it, with a problem on each Secret and KongConsumer.
func (w *consumerWork) conflicts() {
	if len(w.ukeys) == 0 {
		return
	}
	seen := map[*consumerEntry]bool{}
	w.st.stats.conflicts += len(w.ukeys)
	for _, k := range w.ukeys {
		l := w.st.creds[k]
		for i := range l.len() {
			if h := l.at(i); !seen[h.e] {
				seen[h.e] = true
				w.st.checkConflicts(h.e)
				w.touch(h.e)
			}
		}
	}
}

// checkConflicts decides whether a kept entry holds a value someone else holds too.
func (st *consumerStage) checkConflicts(e *consumerEntry) {
	e.dropped, e.conflicts = false, nil
	for _, u := range e.p.val.creds {
		l := st.creds[u.cred.ukey]
		if u.cred.ukey == "" || l.len() < 2 {
			continue
		}
		e.dropped = true
		what := strings.SplitN(u.cred.ukey, "\x00", 2)[0]
		others := otherHolders(l, e, u.secret)
		e.conflicts = append(e.conflicts,
			newProblem(u.secret, "", "credential used by %s conflicts on %s with %s; every KongConsumer "+
				"involved is skipped", e.ref, what, others),
			newProblem(e.ref, u.field(), "credential from %s conflicts on %s with %s; KongConsumer skipped",
				u.secret, what, others))
	}
}

// otherHolders names the other uses of a value than e's from secret: "Secret ns/a used by
// KongConsumer ns/b".
func otherHolders(l holderList, e *consumerEntry, secret store.Ref) string {
	var names []string
	for i := range l.len() {
		o := l.at(i)
		if s := o.use().secret; o.e != e || s != secret {
			names = append(names, fmt.Sprintf("%s used by %s", s, o.e.ref))
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// few is a short list, most often of one element, kept without allocating then. The zero
// value of T is no element.
type few[T comparable] struct {
	one  T
	more []T // two or more (one is zero then)
}

// entryList is a list of entries.
type entryList = few[*consumerEntry]

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

func (l few[T]) has(x T) bool {
	var zero T
	return x != zero && (l.one == x || slices.Contains(l.more, x))
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

// insert adds x in the order of cmp.
func (l few[T]) insert(x T, cmp func(a, b T) int) few[T] {
	var zero T
	if l.one != zero {
		if cmp(x, l.one) < 0 {
			return few[T]{more: []T{x, l.one}}
		}
		return few[T]{more: []T{l.one, x}}
	}
	if len(l.more) == 0 {
		return few[T]{one: x}
	}
	i, _ := slices.BinarySearchFunc(l.more, x, cmp)
	l.more = slices.Insert(l.more, i, x)
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

// listRemove removes e from the list at m[k].
func listRemove[K comparable](m map[K]entryList, k K, e *consumerEntry) {
	fewRemove(m, k, func(x *consumerEntry) bool { return x == e })
}

// keptBefore returns the kept entry of the list older than e, if any (there is at most one).
func keptBefore(l entryList, e *consumerEntry) *consumerEntry {
	for i := range l.len() {
		h := l.at(i)
		if h == e || claimCompare(h, e) > 0 {
			return nil
		}
		if h.kept {
			return h
		}
	}
	return nil
}

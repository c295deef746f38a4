package translator

import (
	"slices"
	"strconv"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// The consumer family's data: a consumer's piece and its credentials, the stage's entries and
// what it keeps between builds, the claim queue that orders decisions, and consumer groups.
// Types and their small methods only, below the code that uses them.

// consumerPiece is a KongConsumer's piece: its Kong consumer with the credentials of the
// Secrets it lists (read), where each came from, and its consumerGroups items with their
// membership entities.
type consumerPiece struct {
	out     *document.Consumer
	creds   []credentialUse
	members []groupMember
}

// credentialUse is a credential with the Secret it came from and its place in the consumer.
type credentialUse struct {
	secret store.Ref
	index  int // its place in credentials on the KongConsumer
	cred   *credential
}

// consumerList is the consumers part of the document: the Kong consumers and their
// memberships in consumer groups.
type consumerList struct {
	consumers []*document.Consumer
	members   []*document.ConsumerGroupConsumer
	// plugins are the consumers whose KongConsumer has konghq.com/plugins, in output order.
	plugins []*consumerEntry
}

// field is the credential's field on the KongConsumer (made only for a problem).
func (u credentialUse) field() string { return credentialField(u.index) }

func credentialField(i int) string { return "credentials[" + strconv.Itoa(i) + "]" }

// consumerGroupSet is the KongConsumerGroups this controller serves, as KIC v3.5.13 translates
// them (FillConsumerGroups): one Kong consumer group per served object, named after
// metadata.name, tagged like every object, with go-kong's UUIDv5 id of the name.
type consumerGroupSet struct {
	// list is the Kong consumer groups in KIC's deckgen order: by name, descending.
	list []*kong.ConsumerGroup
	// byRef holds every served group by namespace/name; those skipped for a name another group
	// took have no entity (out is nil) and the owner's ref.
	byRef map[[2]string]*groupEntry
	// plugins are the groups with konghq.com/plugins, in namespace/name order.
	plugins []*groupEntry
}

// groupEntry is one served KongConsumerGroup.
type groupEntry struct {
	obj   *kup.KongConsumerGroup
	ref   store.Ref
	out   *kong.ConsumerGroup // nil: skipped, its name is owner's
	owner store.Ref
}

// groupMember is one consumerGroups item of a KongConsumer: the group's name, the field it came
// from, and the membership entity it makes when the group is served.
type groupMember struct {
	name  string
	index int // its place in consumerGroups
	entry *document.ConsumerGroupConsumer
}

// field is the item's field on the KongConsumer (made only for a problem).
func (m groupMember) field() string { return "consumerGroups[" + strconv.Itoa(m.index) + "]" }

// consumerStage is what the last build's consumer stage kept.
type consumerStage struct {
	gen          uint64 // the build it describes (0: none)
	defaultClass bool
	groups       *consumerGroupSet // the groups its memberships were resolved against
	mask         uint32            // the kinds its pieces read
	unindexed    bool              // a piece read an EndpointSlice list or a whole kind
	byKey        map[[2]string]*consumerEntry
	// holders are the served consumers holding each global name (claimKey: a username, custom_id or a
	// credential's ukey: credentials count once the consumer's piece is made); owners the kept
	// one of them.
	holders      claimMaps[holderList]
	owners       claimMaps[valueHolder]
	out          []*consumerEntry // kept, in output order
	list         consumerList     // the document's part, as last built
	withProblems []*consumerEntry
	// readers are the consumers whose pieces made each read; built on the first change of a
	// kind pieces read (a cold build never needs it), then kept up to date.
	readers readersIndex[*consumerEntry]
	stats   consumerStats
}

// consumerStats count what the stage did, for tests to see that changes took the paths they
// were meant to.
type consumerStats struct {
	rebuilds, patches int // builds that started over, that followed changes
	cascades          int // decisions a changed decision passed on
	refusedCreds      int // decisions that skipped a consumer for a credential value
}

// consumerEntry is one served KongConsumer.
type consumerEntry struct {
	obj *configurationv1.KongConsumer
	ref store.Ref
	// nameKey and idKey are its username's and custom_id's global name keys ("" when unset).
	nameKey, idKey claimKey
	// p is its piece (Kong consumer, credentials, memberships), computed when it first claims
	// its values; nil until then.
	p       *entry[*consumerPiece]
	own     entry[*consumerPiece] // p's storage in a build that keeps nothing
	out     *document.Consumer
	kept    bool // it claimed every global name it holds
	inOut   bool // in the output list
	removed bool // replaced or gone
	plugins bool // has konghq.com/plugins
	members []*document.ConsumerGroupConsumer
	// claim and memberProbs are its problems from each decision; the piece's problems count
	// only while it is kept.
	claim, memberProbs []Problem
	probPos            int    // its place in withProblems plus one; 0: absent
	touched, queued    uint64 // the build that last touched or queued it
}

// problemCount counts an entry's problems now: its claim's, and, while kept, its piece's and
// its memberships'.
func (e *consumerEntry) problemCount() int {
	if e.removed {
		return 0
	}
	n := len(e.claim)
	if e.kept {
		n += len(e.p.problems) + len(e.memberProbs)
	}
	return n
}

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

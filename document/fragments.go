package document

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/kongsync/kongsync/internal/jsonstr"
)

// JSONCache encodes a sequence of documents whose entities are largely shared, as the
// translator's Engine produces them: the bytes of every list item (service with its routes,
// upstream with its targets, certificate, consumer ...) are kept, keyed by the item's pointer,
// and reused while the item appears in later documents. EncodeConfig returns exactly JSON's
// bytes (fragments_test.go and the translator's incremental tests check this) as a Config of
// pieces that are never joined: JSON is defined item by item, and an item's encoding does not
// depend on its neighbours.
//
// The hash is md5 (Kong's configuration_hash), which is sequential. EncodeConfig keeps the md5
// state after every piece that ends at least hashMarkEvery bytes after the previous mark and
// resumes from the last state within the run of pieces unchanged since the previous call.
//
// Items must not be modified once encoded: the cache cannot see changes behind a pointer.
type JSONCache struct {
	mu    sync.Mutex
	frags map[unsafe.Pointer]fragment
	marks []hashMark
	// pending is the previous call's Config while its md5 is not computed yet.
	pending *Config
	// prevPieces are the previous call's pieces; prevLists the items of each list field.
	prevPieces [][]byte
	prevLists  map[int]listItems
	// spareLists are the lists of the call before the previous one and spareMisses the previous
	// call's misses (cleared): nothing reads them any more, so a call fills them instead of
	// allocating (at 10k services, 1.7 MB per call that changes thousands).
	spareLists  map[int]listItems
	spareMisses []itemSlot
	// repriced is how many services the last call wrote from the bytes of those they replace
	// (reprice.go), for the tests.
	repriced int
}

// fragment is a cached item's bytes, what escaping them as a JSON string adds, and for a
// service, where its routes' priorities are (reprice.go).
type fragment struct {
	b     []byte
	extra int32
	nprio int32
	prio  *int32 // nprio int32s, in a slotEncoder's slab
}

func newFragment(b []byte, extra int, prios []int32) fragment {
	f := fragment{b: b, extra: int32(extra), nprio: int32(len(prios))}
	if len(prios) > 0 {
		f.prio = &prios[0]
	}
	return f
}

// prios are where the fragment's route priorities are (reprice.go), nil for other items.
func (f *fragment) prios() []int32 {
	if f.prio == nil {
		return nil
	}
	return unsafe.Slice(f.prio, f.nprio)
}

// listItems are a list field's item pointers and their fragments.
type listItems struct {
	ptrs  []unsafe.Pointer
	frags []fragment
}

// hashMark is the md5 state after pieces[:piece] of the previous call.
type hashMark struct {
	piece int
	state []byte
}

const hashMarkEvery = 64 << 10

// NewJSONCache returns an empty cache.
func NewJSONCache() *JSONCache {
	return &JSONCache{frags: map[unsafe.Pointer]fragment{}, prevLists: map[int]listItems{}}
}

// layoutPieces are a document's pieces and, per piece, the bytes escaping adds (-1: not known
// yet, computed at the end; only short pieces and misses are left unknown).
type layoutPieces struct {
	b     [][]byte
	extra []int32
}

func (l *layoutPieces) add(b []byte, extra int) {
	l.b, l.extra = append(l.b, b), append(l.extra, int32(extra))
}

// totalExtra sums the pieces' extras, computing those not known yet.
func (l *layoutPieces) totalExtra() int {
	n := 0
	for i, e := range l.extra {
		if e < 0 {
			n += jsonstr.Extra(l.b[i])
			continue
		}
		n += int(e)
	}
	return n
}

// itemSlot is a list item whose bytes go to pieces[at] and, for an item of a list of pointers,
// to out; key is its cache key (nil: uncached, or found cached by the worker); base the item
// it replaces at its index, with its bytes, when they note priorities.
type itemSlot struct {
	at    int
	item  any
	key   unsafe.Pointer
	out   *fragment
	base  unsafe.Pointer
	baseF *fragment
}

// listSlot is a list field's items, as the next call reads them.
type listSlot struct {
	field int
	items listItems
}

// Encode returns JSON(d) and Hash of it as one buffer; EncodeConfig without the join.
func (c *JSONCache) Encode(d *Document) ([]byte, string, error) {
	cfg, err := c.EncodeConfig(d)
	if err != nil {
		return nil, "", err
	}
	return cfg.Bytes(), cfg.Hash(), nil
}

// EncodeConfig returns JSON(d) as a Config, reusing the bytes of items seen in earlier calls.
// When the config differs from the previous call's, its md5 is left to its first Hash, or,
// when many items changed, computed by a goroutine that follows their encoding (fragmentpipe.go)
// and goes on after EncodeConfig returns: either way a caller can start sending the config
// first. The next EncodeConfig completes or waits for it (the marks it resumes from depend on it).
func (c *JSONCache) EncodeConfig(d *Document) (*Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending != nil {
		c.pending.Hash() // its hasher may read the previous call's misses until then
		c.pending = nil
	}
	clear(c.spareMisses) // no entity kept alive by a spare slot
	lp, misses, lists, err := c.layout(d)
	if err != nil {
		return nil, fmt.Errorf("encode config as JSON: %w", err)
	}
	cfg := &Config{pieces: lp.b}
	if err := c.encodeAndHash(cfg, lp, misses); err != nil {
		return nil, fmt.Errorf("encode config as JSON: %w", err)
	}
	next := c.spareLists
	if next == nil {
		next = make(map[int]listItems, len(lists))
	}
	clear(next)
	for _, l := range lists {
		next[l.field] = l.items
	}
	c.spareLists, c.prevLists, c.spareMisses = c.prevLists, next, misses[:0]
	cfg.extra = lp.totalExtra()
	for _, p := range lp.b {
		cfg.size += len(p)
	}
	c.sweep()
	c.prevPieces = lp.b
	return cfg, nil
}

// pipeMin is the fewest misses whose encoding the hasher follows: below it, encoding them
// first costs little, and lets short ones found equal to the previous call's bytes count as
// unchanged (a config rebuilt from new items of the same bytes is then not pushed again).
const pipeMin = 256

// encodeAndHash encodes the misses into cfg's pieces and hashes cfg: at once if it is the
// previous call's; else on its first Hash when the misses are few (the md5 resumes from a mark,
// and a caller can start sending first), or behind the caller, following the encoding of many
// misses (hashBehind).
func (c *JSONCache) encodeAndHash(cfg *Config, lp *layoutPieces, misses []itemSlot) error {
	var p *missPipe
	if len(misses) > 0 {
		p = newMissPipe(lp, misses, c.frags)
	}
	if len(misses) < pipeMin {
		if err := c.encodeMisses(p); err != nil {
			return err
		}
		head := c.samePrefix(lp.b)
		if head == len(lp.b) && head == len(c.prevPieces) {
			hashedConfig(cfg, c.hash(lp.b, head)) // unchanged: a few KiB to hash since the last mark
			return nil
		}
		pieces := lp.b
		cfg.hashFn = func() string { return c.hash(pieces, head) } // on the first Hash
		c.pending = cfg
		return nil
	}
	// A miss's bytes are not known before it is encoded: the same prefix ends before the first.
	c.hashBehind(cfg, c.samePrefix(lp.b[:misses[0].at]), p)
	if err := c.encodeMisses(p); err != nil {
		cfg.Hash() // the hasher stops, c.marks as they were
		return err
	}
	c.pending = cfg
	return nil
}

// samePrefix counts the pieces at the start that are the previous call's.
func (c *JSONCache) samePrefix(pieces [][]byte) int {
	head := 0
	for head < len(pieces) && head < len(c.prevPieces) && samePiece(pieces[head], c.prevPieces[head]) {
		head++
	}
	return head
}

var (
	pieceComma = []byte{','}
	pieceOpen  = []byte{'['}
	pieceClose = []byte{']'}
)

// layout lists the pieces of the document's JSON, as JSON writes it: '{', then for every field
// not omitted ",", "name":, and the value, where a list is '[', items separated by ',', ']'.
// Cached items are filled in; the others are returned as misses.
func (c *JSONCache) layout(d *Document) (*layoutPieces, []itemSlot, []listSlot, error) {
	fields := emittedFields(d)
	items := len(d.CACertificates) + len(d.Certificates) + len(d.ConsumerGroupConsumers) + len(d.ConsumerGroups) +
		len(d.Consumers) + len(d.Plugins) + len(d.Services) + len(d.Upstreams) + len(d.Vaults) + len(d.Licenses) +
		customCount(d)
	n := 2*items + 4*len(fields) + 2
	lp := &layoutPieces{b: make([][]byte, 0, n), extra: make([]int32, 0, n)}
	lp.add([]byte{'{'}, 0)
	misses := c.spareMisses[:0]
	var lists []listSlot
	for k, ef := range fields {
		i, f := ef.index, ef.value
		head, err := marshalNoEscape(ef.name)
		if err != nil {
			return nil, nil, nil, err
		}
		if k > 0 {
			lp.add(pieceComma, 0)
		}
		lp.add(append(head, ':'), -1)
		if f.Kind() != reflect.Slice || f.IsNil() {
			b, err := marshalNoEscape(f.Interface())
			if err != nil {
				return nil, nil, nil, err
			}
			lp.add(b, -1)
			continue
		}
		lp.add(pieceOpen, 0)
		if f.Type().Elem().Kind() == reflect.Pointer {
			var items listItems
			misses, items = c.pointerItems(i, f, lp, misses)
			lists = append(lists, listSlot{field: i, items: items})
		} else {
			for j := range f.Len() {
				if j > 0 {
					lp.add(pieceComma, 0)
				}
				misses = append(misses, itemSlot{at: len(lp.b), item: f.Index(j).Interface()})
				lp.add(nil, -1)
			}
		}
		lp.add(pieceClose, 0)
	}
	lp.add([]byte{'}'}, 0)
	return lp, misses, lists, nil
}

// pointerItems appends the items of a list of pointers: the previous call's piece when the
// item at that index is the same pointer, else a miss, which the workers look up in the cache
// before they encode it (that takes a random access per item, which the hasher need not wait
// for).
func (c *JSONCache) pointerItems(field int, f reflect.Value, lp *layoutPieces, misses []itemSlot) ([]itemSlot, listItems) {
	ptrs, frags := c.spareLists[field].reuse(f.Len())
	copy(ptrs, unsafe.Slice((*unsafe.Pointer)(f.UnsafePointer()), f.Len()))
	prev := c.prevLists[field]
	for j, p := range ptrs {
		if j > 0 {
			lp.add(pieceComma, 0)
		}
		if j < len(prev.ptrs) && p == prev.ptrs[j] && p != nil {
			frags[j] = prev.frags[j]
			lp.add(frags[j].b, int(frags[j].extra))
			continue
		}
		m := itemSlot{at: len(lp.b), item: f.Index(j).Interface(), key: p, out: &frags[j]}
		if j < len(prev.ptrs) && prev.ptrs[j] != nil && prev.frags[j].prio != nil {
			m.base, m.baseF = prev.ptrs[j], &prev.frags[j]
		}
		misses = append(misses, m)
		lp.add(nil, -1)
	}
	return misses, listItems{ptrs: ptrs, frags: frags}
}

// encodeMisses encodes the items not in the cache (p's misses; nil: none) and caches the
// pointer items among them.
func (c *JSONCache) encodeMisses(p *missPipe) error {
	c.repriced = 0
	if p == nil {
		return nil
	}
	err := p.encode()
	c.repriced = int(p.repriced.Load())
	if err != nil {
		return err
	}
	for _, m := range p.misses {
		if m.key != nil {
			c.frags[m.key] = *m.out
		}
	}
	return nil
}

// sweep drops the bytes of items not in the last document, when they may be a fifth of all.
func (c *JSONCache) sweep() {
	used := 0
	for _, l := range c.prevLists {
		used += len(l.ptrs)
	}
	if len(c.frags)-used <= max(64, used/4) {
		return
	}
	live := make(map[unsafe.Pointer]bool, used)
	for _, l := range c.prevLists {
		for _, p := range l.ptrs {
			live[p] = true
		}
	}
	for p := range c.frags {
		if !live[p] {
			delete(c.frags, p)
		}
	}
}

// samePiece reports whether two pieces are the same bytes: the same memory, or short and equal
// (field names and punctuation are rebuilt on every call).
func samePiece(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return len(a) <= 64 && bytes.Equal(a, b)
}

// reuse returns room for n items' pointers and fragments: l's arrays (a spare list's) when
// large enough, else new ones. Every entry is written before it is read.
func (l listItems) reuse(n int) ([]unsafe.Pointer, []fragment) {
	if cap(l.ptrs) < n || cap(l.frags) < n {
		return make([]unsafe.Pointer, n), make([]fragment, n)
	}
	return l.ptrs[:n], l.frags[:n]
}

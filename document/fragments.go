package document

import (
	"bytes"
	"crypto/md5"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"
	"unsafe"
)

// JSONCache encodes a sequence of documents whose entities are largely shared, as the
// translator's Cache produces them: the bytes of every list item (service with its routes,
// upstream with its targets, certificate, consumer ...) are kept, keyed by the item's pointer,
// and reused while the item appears in later documents. Encode returns exactly JSON's bytes
// (fragments_test.go and the translator's incremental tests check this): JSON is defined item
// by item, and an item's encoding does not depend on its neighbours.
//
// Unchanged runs of pieces at the start and end of the document are copied from the previous
// output in one move each. The hash is md5 (Kong's configuration_hash), which is sequential;
// Encode keeps the md5 state every hashMarkEvery bytes and restarts from the last state inside
// the unchanged start, hashing each new block right after writing it.
//
// Items must not be modified once encoded: the cache cannot see changes behind a pointer.
type JSONCache struct {
	mu    sync.Mutex
	frags map[unsafe.Pointer][]byte
	prev  []byte
	marks []hashMark
	// prevPieces are the pieces prev was joined from; prevLists the items of each list field.
	prevPieces [][]byte
	prevLists  map[int]listItems
}

// listItems are a list field's item pointers and the pieces holding their bytes.
type listItems struct {
	ptrs   []unsafe.Pointer
	pieces [][]byte
}

// hashMark is the md5 state after the first off bytes of prev.
type hashMark struct {
	off   int
	state []byte
}

const hashMarkEvery = 64 << 10

// NewJSONCache returns an empty cache.
func NewJSONCache() *JSONCache {
	return &JSONCache{frags: map[unsafe.Pointer][]byte{}, prevLists: map[int]listItems{}}
}

// itemSlot is a list item whose bytes go to pieces[at]; key is its cache key (nil: uncached).
type itemSlot struct {
	at   int
	item any
	key  unsafe.Pointer
}

// listSlot is where a list field's items start in the pieces (item j at at+2j).
type listSlot struct {
	field, at int
	ptrs      []unsafe.Pointer
}

// Encode returns JSON(d) and Hash of it, reusing the bytes of items seen in earlier calls.
func (c *JSONCache) Encode(d *Document) ([]byte, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pieces, misses, lists, err := c.layout(d)
	if err != nil {
		return nil, "", fmt.Errorf("encode config as JSON: %w", err)
	}
	if err := c.encodeMisses(pieces, misses); err != nil {
		return nil, "", fmt.Errorf("encode config as JSON: %w", err)
	}
	c.prevLists = make(map[int]listItems, len(lists))
	for _, l := range lists {
		li := listItems{ptrs: l.ptrs, pieces: make([][]byte, len(l.ptrs))}
		for j := range l.ptrs {
			li.pieces[j] = pieces[l.at+2*j]
		}
		c.prevLists[l.field] = li
	}
	out, hash := c.join(pieces)
	c.sweep()
	c.prevPieces, c.prev = pieces, out
	return out, hash, nil
}

var (
	pieceComma = []byte{','}
	pieceOpen  = []byte{'['}
	pieceClose = []byte{']'}
)

// layout lists the pieces of the document's JSON, as JSON writes it: '{', then for every field
// not omitted ",", "name":, and the value, where a list is '[', items separated by ',', ']'.
// Cached items are filled in; the others are returned as misses.
func (c *JSONCache) layout(d *Document) ([][]byte, []itemSlot, []listSlot, error) {
	v := reflect.ValueOf(d).Elem()
	items := len(d.CACertificates) + len(d.Certificates) + len(d.Consumers) + len(d.Plugins) +
		len(d.Services) + len(d.Upstreams)
	pieces := make([][]byte, 1, 2*items+4*v.NumField()+2)
	pieces[0] = []byte{'{'}
	var misses []itemSlot
	var lists []listSlot
	fields := 0
	for i := range v.NumField() {
		name, omitEmpty := jsonName(v.Type().Field(i))
		f := v.Field(i)
		if name == "" || omitEmpty && f.Kind() == reflect.Slice && f.Len() == 0 {
			continue
		}
		head, err := marshalNoEscape(name)
		if err != nil {
			return nil, nil, nil, err
		}
		if fields > 0 {
			pieces = append(pieces, pieceComma)
		}
		pieces, fields = append(pieces, append(head, ':')), fields+1
		if f.Kind() != reflect.Slice || f.IsNil() {
			b, err := marshalNoEscape(f.Interface())
			if err != nil {
				return nil, nil, nil, err
			}
			pieces = append(pieces, b)
			continue
		}
		pieces = append(pieces, pieceOpen)
		if f.Type().Elem().Kind() == reflect.Pointer {
			lists = append(lists, listSlot{field: i, at: len(pieces)})
			pieces, misses, lists[len(lists)-1].ptrs = c.pointerItems(i, f, pieces, misses)
		} else {
			for j := range f.Len() {
				if j > 0 {
					pieces = append(pieces, pieceComma)
				}
				misses = append(misses, itemSlot{at: len(pieces), item: f.Index(j).Interface()})
				pieces = append(pieces, nil)
			}
		}
		pieces = append(pieces, pieceClose)
	}
	return append(pieces, []byte{'}'}), misses, lists, nil
}

// pointerItems appends the items of a list of pointers: the previous call's piece when the
// item at that index is the same pointer, else the cached bytes, else a miss.
func (c *JSONCache) pointerItems(field int, f reflect.Value, pieces [][]byte, misses []itemSlot) ([][]byte, []itemSlot, []unsafe.Pointer) {
	ptrs := slices.Clone(unsafe.Slice((*unsafe.Pointer)(f.UnsafePointer()), f.Len()))
	prev := c.prevLists[field]
	for j, p := range ptrs {
		if j > 0 {
			pieces = append(pieces, pieceComma)
		}
		if j < len(prev.ptrs) && p == prev.ptrs[j] && p != nil {
			pieces = append(pieces, prev.pieces[j])
			continue
		}
		if b, ok := c.frags[p]; ok && p != nil {
			pieces = append(pieces, b)
			continue
		}
		misses = append(misses, itemSlot{at: len(pieces), item: f.Index(j).Interface(), key: p})
		pieces = append(pieces, nil)
	}
	return pieces, misses, ptrs
}

// encodeMisses encodes the items not in the cache, in parallel runs as JSON does, and caches
// the pointer items among them.
func (c *JSONCache) encodeMisses(pieces [][]byte, misses []itemSlot) error {
	n := len(misses)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = encodeSlots(pieces, misses[w*n/workers:(w+1)*n/workers])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, m := range misses {
		if m.key != nil {
			c.frags[m.key] = pieces[m.at]
		}
	}
	return nil
}

// encodeSlots encodes items into shared buffers of about runPiece bytes; each item's bytes are
// a capacity-limited slice of one buffer, never written again.
func encodeSlots(pieces [][]byte, slots []itemSlot) error {
	var buf *bytes.Buffer
	var enc *json.Encoder
	for _, s := range slots {
		if buf == nil || buf.Len() >= runPiece {
			buf = bytes.NewBuffer(make([]byte, 0, runPiece+runPiece/4))
			enc = json.NewEncoder(buf)
			enc.SetEscapeHTML(false)
		}
		start := buf.Len()
		if err := encodeItem(buf, enc, s.item); err != nil {
			return err
		}
		end := buf.Len()
		pieces[s.at] = buf.Bytes()[start:end:end]
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

// join concatenates the pieces and hashes the result. The runs of pieces at the start and at
// the end that are the previous call's pieces are copied from the previous output in one move
// each; md5 resumes from the last saved state within the unchanged start.
func (c *JSONCache) join(pieces [][]byte) ([]byte, string) {
	prev := c.prevPieces
	head, headBytes := 0, 0
	for head < len(pieces) && head < len(prev) && samePiece(pieces[head], prev[head]) {
		headBytes += len(pieces[head])
		head++
	}
	tail, tailBytes := 0, 0
	for tail < len(pieces)-head && tail < len(prev)-head &&
		samePiece(pieces[len(pieces)-1-tail], prev[len(prev)-1-tail]) {
		tailBytes += len(pieces[len(pieces)-1-tail])
		tail++
	}
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	h := c.resumeHash(headBytes)
	out := make([]byte, size)
	at := copy(out, c.prev[:headBytes])
	for _, p := range pieces[head : len(pieces)-tail] {
		at += copy(out[at:], p)
		h.feed(out[:at], false)
	}
	for rest := c.prev[len(c.prev)-tailBytes:]; len(rest) > 0; {
		n := copy(out[at:], rest[:min(len(rest), hashMarkEvery)])
		at, rest = at+n, rest[n:]
		h.feed(out[:at], false)
	}
	h.feed(out, true)
	c.marks = h.marks
	return out, hex.EncodeToString(h.h.Sum(nil))
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

// chainHash is md5 over a growing buffer, saving its state at every hashMarkEvery boundary.
type chainHash struct {
	h     hash.Hash
	pos   int
	marks []hashMark
}

// resumeHash restores the state of the last mark within the first same bytes.
func (c *JSONCache) resumeHash(same int) *chainHash {
	k := sort.Search(len(c.marks), func(i int) bool { return c.marks[i].off > same })
	ch := &chainHash{h: md5.New()}
	if k > 0 {
		if err := ch.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(c.marks[k-1].state); err == nil {
			ch.pos = c.marks[k-1].off
		} else {
			ch.h, k = md5.New(), 0
		}
	}
	ch.marks = c.marks[:k:k]
	return ch
}

// feed hashes out[pos:] up to the last mark boundary it reaches, or to the end when final.
func (ch *chainHash) feed(out []byte, final bool) {
	for {
		end := (ch.pos/hashMarkEvery + 1) * hashMarkEvery
		if end > len(out) {
			if !final || ch.pos == len(out) {
				return
			}
			end = len(out)
		}
		ch.h.Write(out[ch.pos:end])
		ch.pos = end
		if state, err := ch.h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
			ch.marks = append(ch.marks, hashMark{off: end, state: state})
		}
	}
}

package document

import (
	"bytes"
	"crypto/md5"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"sync"
)

// JSONCache encodes a sequence of documents whose entities are largely shared, as the
// translator's Cache produces them: the bytes of every list item (service with its routes,
// upstream with its targets, certificate, consumer ...) are kept, keyed by the item's pointer,
// and reused while the item appears in later documents. Encode returns exactly JSON's bytes
// (fragments_test.go and the translator's incremental tests check this): JSON is defined item
// by item, and an item's encoding does not depend on its neighbours.
//
// The hash is md5 (Kong's configuration_hash), which is sequential; Encode keeps the md5 state
// every hashMarkEvery bytes and restarts from the last state before the first byte that differs
// from the previous output, so a change near the end of the document re-hashes only the end.
//
// Items must not be modified once encoded: the cache cannot see changes behind a pointer.
type JSONCache struct {
	mu    sync.Mutex
	gen   uint64
	used  int
	frags map[any]*fragment
	prev  []byte
	marks []hashMark
	// prevPieces are the pieces prev was joined from.
	prevPieces [][]byte
}

type fragment struct {
	gen uint64
	b   []byte
}

// hashMark is the md5 state after the first off bytes of prev.
type hashMark struct {
	off   int
	state []byte
}

const hashMarkEvery = 64 << 10

// NewJSONCache returns an empty cache.
func NewJSONCache() *JSONCache { return &JSONCache{frags: map[any]*fragment{}} }

// itemSlot is a list item whose bytes go to pieces[at]; key is its cache key (nil: uncached).
type itemSlot struct {
	at   int
	item any
	key  any
}

// Encode returns JSON(d) and Hash of it, reusing the bytes of items seen in earlier calls.
func (c *JSONCache) Encode(d *Document) ([]byte, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.used = 0
	pieces, misses, err := c.layout(d)
	if err != nil {
		return nil, "", fmt.Errorf("encode config as JSON: %w", err)
	}
	if err := c.encodeMisses(pieces, misses); err != nil {
		return nil, "", fmt.Errorf("encode config as JSON: %w", err)
	}
	out, same := c.join(pieces)
	c.sweep()
	hash := c.hash(out, same)
	c.prevPieces = pieces
	return out, hash, nil
}

// join concatenates the pieces. The runs of pieces at the start and at the end that are the
// previous call's pieces are copied from the previous output in one move each; join also
// returns the length of the unchanged start.
func (c *JSONCache) join(pieces [][]byte) ([]byte, int) {
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
	out := make([]byte, 0, size)
	out = append(out, c.prev[:headBytes]...)
	for _, p := range pieces[head : len(pieces)-tail] {
		out = append(out, p...)
	}
	out = append(out, c.prev[len(c.prev)-tailBytes:]...)
	return out, headBytes
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

var (
	pieceComma = []byte{','}
	pieceOpen  = []byte{'['}
	pieceClose = []byte{']'}
)

// layout lists the pieces of the document's JSON, as JSON writes it: '{', then for every field
// not omitted ",", "name":, and the value, where a list is '[', items separated by ',', ']'.
// Cached items are filled in; the others are returned as misses.
func (c *JSONCache) layout(d *Document) ([][]byte, []itemSlot, error) {
	v := reflect.ValueOf(d).Elem()
	pieces := [][]byte{{'{'}}
	var misses []itemSlot
	fields := 0
	for i := range v.NumField() {
		name, omitEmpty := jsonName(v.Type().Field(i))
		f := v.Field(i)
		if name == "" || omitEmpty && f.Kind() == reflect.Slice && f.Len() == 0 {
			continue
		}
		head, err := marshalNoEscape(name)
		if err != nil {
			return nil, nil, err
		}
		if fields > 0 {
			pieces = append(pieces, pieceComma)
		}
		pieces, fields = append(pieces, append(head, ':')), fields+1
		if f.Kind() != reflect.Slice || f.IsNil() {
			b, err := marshalNoEscape(f.Interface())
			if err != nil {
				return nil, nil, err
			}
			pieces = append(pieces, b)
			continue
		}
		pieces = append(pieces, pieceOpen)
		for j := range f.Len() {
			if j > 0 {
				pieces = append(pieces, pieceComma)
			}
			pieces, misses = c.item(f.Index(j), pieces, misses)
		}
		pieces = append(pieces, pieceClose)
	}
	return append(pieces, []byte{'}'}), misses, nil
}

// item appends a list item's cached bytes, or a placeholder and a miss.
func (c *JSONCache) item(v reflect.Value, pieces [][]byte, misses []itemSlot) ([][]byte, []itemSlot) {
	it := v.Interface()
	var key any
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		key = it
		if fr, ok := c.frags[key]; ok {
			if fr.gen != c.gen {
				fr.gen = c.gen
				c.used++
			}
			return append(pieces, fr.b), misses
		}
	}
	misses = append(misses, itemSlot{at: len(pieces), item: it, key: key})
	return append(pieces, nil), misses
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
			c.frags[m.key] = &fragment{gen: c.gen, b: pieces[m.at]}
			c.used++
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

// sweep drops fragments of items not in the last document, when they may be a fifth of all.
func (c *JSONCache) sweep() {
	if len(c.frags)-c.used <= max(64, c.used/4) {
		return
	}
	for k, fr := range c.frags {
		if fr.gen != c.gen {
			delete(c.frags, k)
		}
	}
}

// hash is Hash(js), resumed from the md5 state saved at the last mark within the first same
// bytes, which js shares with the previous output.
func (c *JSONCache) hash(js []byte, same int) string {
	k := sort.Search(len(c.marks), func(i int) bool { return c.marks[i].off > same })
	h := md5.New()
	start := 0
	if k > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(c.marks[k-1].state); err == nil {
			start = c.marks[k-1].off
		} else {
			h, k = md5.New(), 0
		}
	}
	c.marks = c.marks[:k]
	for off := start; off < len(js); {
		end := min(len(js), (off/hashMarkEvery+1)*hashMarkEvery)
		h.Write(js[off:end])
		off = end
		if state, err := h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
			c.marks = append(c.marks, hashMark{off: off, state: state})
		}
	}
	c.prev = js
	return hex.EncodeToString(h.Sum(nil))
}

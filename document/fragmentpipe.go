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
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kongsync/kongsync/internal/jsonstr"
)

// When a change moves many items (a route into or out of a large tie of KIC's relative order
// re-prioritises thousands of services), JSONCache has two jobs of similar size: encoding the
// misses, which splits across CPUs, and the md5 from the first changed piece to the end, which
// is sequential. As the cold EncodeConfig does (encodepipe.go), they overlap: the misses are
// encoded in chunks that workers take in order, and a hasher goroutine hashes each piece as
// soon as it and every piece before it are encoded, so that the md5 costs the wall time of
// the longer job instead of both. EncodeConfig returns once the misses are encoded; the hasher
// goes on behind it, and the Config's Hash waits for it.

// missPipe is one EncodeConfig's misses in chunks of consecutive misses, taken by workers in
// order and followed by the hasher.
type missPipe struct {
	lp     *layoutPieces
	misses []itemSlot
	per    int // misses per chunk
	cached map[unsafe.Pointer]fragment
	next   atomic.Int64
	// repriced counts the services written from the bytes they replace (reprice.go).
	repriced atomic.Int64

	mu      sync.Mutex
	ready   sync.Cond
	done    []bool // per chunk
	err     error
	waiting int // the chunk the hasher waits for; -1: none
}

// minChunk is the fewest misses a chunk holds; chunksPerWorker chunks per CPU let the hasher
// start soon after the first misses, and follow closely.
const (
	minChunk        = 16
	chunksPerWorker = 16
)

// newMissPipe plans the encoding of misses; cached, the bytes of items seen before, is only
// read until the workers are done.
func newMissPipe(lp *layoutPieces, misses []itemSlot, cached map[unsafe.Pointer]fragment) *missPipe {
	per := max(minChunk, len(misses)/(chunksPerWorker*runtime.GOMAXPROCS(0)))
	p := &missPipe{lp: lp, misses: misses, per: per, cached: cached, done: make([]bool, (len(misses)+per-1)/per), waiting: -1}
	p.ready.L = &p.mu
	return p
}

// bounds are chunk k's misses.
func (p *missPipe) bounds(k int) (int, int) { return k * p.per, min((k+1)*p.per, len(p.misses)) }

// encode encodes every chunk, on the caller's goroutine and one more per further CPU, and
// returns the errors (a worker's panic among them) once every worker stopped.
func (p *missPipe) encode() error {
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(p.done)) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work()
		}()
	}
	p.work()
	wg.Wait()
	return p.err
}

// work encodes the next chunk not taken until none is left.
func (p *missPipe) work() {
	e := slotEncoder{cached: p.cached, repriced: &p.repriced}
	for k := int(p.next.Add(1) - 1); k < len(p.done); k = int(p.next.Add(1) - 1) {
		from, to := p.bounds(k)
		p.finish(k, e.encodeRecovering(p.lp, p.misses[from:to]))
	}
}

// finish marks chunk k encoded. A hasher waiting for it is the critical path (the md5 is
// sequential, the encoding is not): the worker yields its CPU to it, as encRun.publish does.
func (p *missPipe) finish(k int, err error) {
	p.mu.Lock()
	p.done[k] = true
	p.err = errors.Join(p.err, err)
	wake := p.waiting == k || err != nil && p.waiting >= 0
	p.mu.Unlock()
	if wake {
		p.ready.Signal()
		runtime.Gosched()
	}
}

// wait waits until chunk k is encoded. It reports false once any chunk failed: the call's
// pieces will never be complete.
func (p *missPipe) wait(k int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.done[k] && p.err == nil {
		p.waiting = k
		p.ready.Wait()
	}
	p.waiting = -1
	return p.err == nil
}

// slotEncoder encodes items into shared buffers of runPiece bytes (whole pages), kept from one
// chunk to the next and replaced once the room left is less than the largest item so far
// needs; each item's bytes are a capacity-limited slice of a buffer, never written again.
type slotEncoder struct {
	buf     *bytes.Buffer
	enc     *json.Encoder
	largest int
	slab    []int32 // where the priorities are of the services encoded
	// cached are the bytes of items seen before (missPipe.cached).
	cached map[unsafe.Pointer]fragment
	// repriced counts the services written from the bytes they replace.
	repriced *atomic.Int64
}

// encodeRecovering is encode on a worker goroutine, where a panic would end the process: it
// becomes the chunk's error instead.
func (e *slotEncoder) encodeRecovering(lp *layoutPieces, slots []itemSlot) (err error) {
	defer func() {
		if v := recover(); v != nil {
			e.buf = nil // it may hold a partial item
			err = fmt.Errorf("list item: panic: %v", v)
		}
	}()
	return e.encode(lp, slots)
}

func (e *slotEncoder) encode(lp *layoutPieces, slots []itemSlot) error {
	for i := range slots {
		s := &slots[i]
		if fr, ok := e.cached[s.key]; ok && s.key != nil {
			lp.b[s.at], lp.extra[s.at], *s.out = fr.b, fr.extra, fr
			s.key = nil // cached already
			continue
		}
		if e.buf == nil || e.buf.Available() < e.largest+64 {
			e.buf = bytes.NewBuffer(make([]byte, 0, runPiece))
			e.enc = json.NewEncoder(e.buf)
			e.enc.SetEscapeHTML(false)
		}
		if len(e.slab) > slabSize-64 {
			e.slab = make([]int32, 0, slabSize)
		}
		start, extra := e.buf.Len(), -1
		var prios []int32
		var err error
		if svc, ok := s.item.(*Service); ok && svc != nil {
			extra, prios, err = e.service(s, svc)
		} else {
			err = encodeItem(e.buf, e.enc, s.item)
		}
		if err != nil {
			return err
		}
		end := e.buf.Len()
		e.largest = max(e.largest, end-start)
		lp.b[s.at] = e.buf.Bytes()[start:end:end]
		if extra < 0 {
			extra = jsonstr.Extra(lp.b[s.at])
		}
		lp.extra[s.at] = int32(extra)
		if s.out != nil {
			*s.out = newFragment(lp.b[s.at], extra, prios)
		}
	}
	return nil
}

// slabSize is the int32s a slotEncoder allocates at once for the services' priority offsets.
const slabSize = 4096

// service writes a service: from the bytes of the item it replaces when only its routes'
// priorities differ (then its escaping adds what theirs does: the extra returned), else
// encoded, noting where its priorities are unless escaping moved them.
func (e *slotEncoder) service(s *itemSlot, svc *Service) (int, []int32, error) {
	dst := e.buf.AvailableBuffer()
	if s.base != nil {
		if b, prios, slab, ok := appendRepriced(dst, svc, (*Service)(s.base), *s.baseF, e.slab); ok {
			e.buf.Write(b)
			e.slab = slab
			e.repriced.Add(1)
			return int(s.baseF.extra), prios, nil
		}
	}
	b, prios, slab, plain, err := appendServiceMarked(dst, svc, e.slab)
	if err != nil {
		return -1, nil, err
	}
	if !plain && yamlUnsafe(b) >= 0 {
		b, prios = appendYAMLSafe(nil, b), nil
	}
	e.buf.Write(b)
	e.slab = slab
	return -1, prios, nil
}

// markedHash is an md5 over a call's pieces that keeps its state every hashMarkEvery bytes.
type markedHash struct {
	h     hash.Hash
	marks []hashMark
	since int
}

func (m *markedHash) write(pieces [][]byte, from, to int) {
	for i := from; i < to; i++ {
		m.h.Write(pieces[i])
		if m.since += len(pieces[i]); m.since < hashMarkEvery {
			continue
		}
		if state, err := m.h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
			m.marks, m.since = append(m.marks, hashMark{piece: i + 1, state: state}), 0
		}
	}
}

// resume is the md5 state at the last mark within the first head pieces (those that are the
// previous call's) and that mark's piece. It reads c.marks without c.mu: EncodeConfig hashes,
// or waits for the hash, before it reads them.
func (c *JSONCache) resume(head int) (*markedHash, int) {
	k := sort.Search(len(c.marks), func(i int) bool { return c.marks[i].piece > head })
	if k > 0 {
		h := md5.New()
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(c.marks[k-1].state); err == nil {
			return &markedHash{h: h, marks: c.marks[:k:k]}, c.marks[k-1].piece
		}
	}
	return &markedHash{h: md5.New()}, 0
}

// hash returns the md5 of the pieces, resuming from the last mark within the first head
// pieces, and records the marks for the next call.
func (c *JSONCache) hash(pieces [][]byte, head int) string {
	m, from := c.resume(head)
	m.write(pieces, from, len(pieces))
	c.marks = m.marks
	return hex.EncodeToString(m.h.Sum(nil))
}

// hashBehind starts the hasher of cfg, whose pieces from the first of p's misses on (p nil: no
// misses) are being encoded: it hashes each piece once it and every piece before it are, and
// hands cfg its hash. If the encoding fails it stops, leaving c.marks as they were, and cfg's
// hash is "" (EncodeConfig waits for that, then returns the error and drops cfg).
func (c *JSONCache) hashBehind(cfg *Config, head int, p *missPipe) {
	set := hashedLater(cfg)
	pieces := cfg.pieces
	go func() {
		hash := ""
		defer func() {
			if v := recover(); v != nil { // a fault of the hasher's own: start over, no marks kept
				m, _ := c.resume(0)
				if p == nil || p.waitAll() {
					m.write(pieces, 0, len(pieces))
					hash = hex.EncodeToString(m.h.Sum(nil))
				}
				c.marks = nil
			}
			set(hash)
		}()
		hash = c.hashFollowing(pieces, head, p)
	}()
}

// hashFollowing is hash with the pieces of p's misses waited for, chunk by chunk.
func (c *JSONCache) hashFollowing(pieces [][]byte, head int, p *missPipe) string {
	m, at := c.resume(head)
	for k := 0; p != nil && k < len(p.done); k++ {
		from, to := p.bounds(k)
		m.write(pieces, at, p.misses[from].at) // the cached pieces up to the chunk
		if !p.wait(k) {
			return ""
		}
		at = p.misses[to-1].at + 1
		m.write(pieces, p.misses[from].at, at)
	}
	m.write(pieces, at, len(pieces))
	c.marks = m.marks
	return hex.EncodeToString(m.h.Sum(nil))
}

// waitAll waits until every chunk is encoded; false if one failed.
func (p *missPipe) waitAll() bool {
	for k := range p.done {
		if !p.wait(k) {
			return false
		}
	}
	return true
}

package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"reflect"
	"runtime"
	"sync"

	"github.com/kongsync/kongsync/internal/parallel"
)

// A cold encoding of a large config is two jobs of similar size: encoding the list items, which
// splits across CPUs, and its md5, which is sequential. Done one after the other, the md5 waits
// for the last item; here the caller's goroutine hashes each piece as soon as it and every piece
// before it are encoded, while the workers encode ahead. The pieces are the same as encoding
// first and hashing after would give (JSON is defined item by item), so is the hash.

// encSegment is a part of the config in order: fixed bytes, or a run of list items.
type encSegment struct {
	fixed []byte
	run   *encRun
}

// encRun is items [from, to) of a list, comma-separated (with a leading comma when it does not
// start the list), encoded by a worker into pieces of about runPiece bytes, which it publishes
// one by one for the hasher.
type encRun struct {
	list     reflect.Value
	from, to int

	mu      sync.Mutex
	ready   sync.Cond
	pieces  [][]byte
	done    bool
	err     error
	waiting bool // the hasher waits for the next piece
}

// minRunItems is the fewest items a run gets; runsPerWorker runs per CPU let the workers share
// the load evenly while the hasher takes its share of the CPUs.
const (
	minRunItems   = 64
	runsPerWorker = 4
)

// encodePieces encodes d as its JSON pieces and their total size, feeding them in order to h
// when h is given. Errors (of the items encoding/json encodes) are reported after every worker
// stopped.
func encodePieces(d *Document, h hash.Hash) ([][]byte, int, error) {
	segs, runs, err := plan(d)
	if err != nil {
		return nil, 0, fmt.Errorf("encode config as JSON: %w", err)
	}
	wait := parallel.Start(len(runs), runtime.GOMAXPROCS(0), func(i int) { runs[i].encodeRecovering() })
	var pieces [][]byte
	size := 0
	var errs []error
	for _, s := range segs {
		if s.run == nil {
			pieces = append(pieces, s.fixed)
			size += len(s.fixed)
			if h != nil {
				h.Write(s.fixed)
			}
			continue
		}
		pieces, size = s.run.follow(pieces, size, h)
		errs = append(errs, s.run.err)
	}
	wait()
	if err := errors.Join(errs...); err != nil {
		return nil, 0, fmt.Errorf("encode config as JSON: %w", err)
	}
	return pieces, size, nil
}

// plan lays the document out as segments: the fields encoding/json writes, in its order, each
// `[,]"name":` and, for a list, its items in runs between brackets; other values encoded here.
func plan(d *Document) ([]encSegment, []*encRun, error) {
	segs := []encSegment{{fixed: []byte{'{'}}}
	var runs []*encRun
	for k, f := range emittedFields(d) {
		head, err := marshalNoEscape(f.name)
		if err != nil {
			return nil, nil, err
		}
		if k > 0 {
			head = append([]byte{','}, head...)
		}
		head = append(head, ':')
		if f.value.Kind() != reflect.Slice || f.value.IsNil() {
			b, err := marshalNoEscape(f.value.Interface())
			if err != nil {
				return nil, nil, err
			}
			segs = append(segs, encSegment{fixed: append(head, b...)})
			continue
		}
		segs = append(segs, encSegment{fixed: append(head, '[')})
		n := f.value.Len()
		parts := max(1, min(n/minRunItems, runsPerWorker*runtime.GOMAXPROCS(0)))
		for p := range parts {
			r := &encRun{list: f.value, from: p * n / parts, to: (p + 1) * n / parts}
			r.ready.L = &r.mu
			runs = append(runs, r)
			segs = append(segs, encSegment{run: r})
		}
		segs = append(segs, encSegment{fixed: []byte{']'}})
	}
	return append(segs, encSegment{fixed: []byte{'}'}}), runs, nil
}

// encodeRecovering is encode on a worker goroutine, where a panic would end the process: it
// ends the run with an error instead, which the caller's goroutine returns (and the hasher,
// waiting for the run to be done, is released).
func (r *encRun) encodeRecovering() {
	defer func() {
		if v := recover(); v != nil {
			r.publish(nil, true, fmt.Errorf("items %d to %d: panic: %v", r.from, r.to-1, v))
		}
	}()
	r.encode()
}

// encode encodes the run's items, publishing each piece once full. Pieces are runPiece bytes of
// capacity (whole pages: the heap rounds large objects up to them), published once the room
// left is less than the largest item so far needs; the last one is sized from the mean item.
func (r *encRun) encode() {
	cur := make([]byte, 0, runPiece)
	var scratch bytes.Buffer
	enc := json.NewEncoder(&scratch)
	enc.SetEscapeHTML(false)
	var err error
	done, largest := 0, 0 // bytes of the items before cur, the largest item
	for i := r.from; i < r.to && err == nil; i++ {
		if i > 0 {
			cur = append(cur, ',')
		}
		at := len(cur)
		cur, err = appendItem(cur, &scratch, enc, r.list.Index(i).Interface())
		largest = max(largest, len(cur)-at)
		if cap(cur)-len(cur) < largest+64 && i+1 < r.to {
			r.publish(cur, false, nil)
			done += len(cur)
			rest := (done/(i+1-r.from) + 1) * (r.to - i - 1) // the mean item's size times the items left
			cur = make([]byte, 0, min(runPiece, (rest+rest/8+largest+pageSize)/pageSize*pageSize))
		}
	}
	r.publish(cur, true, err)
}

// pageSize is the heap's page: a large allocation takes a whole number of them.
const pageSize = 8 << 10

// publish hands the hasher a piece. The hasher is the build's critical path (the md5 is
// sequential, the encoding is not), and with a worker per CPU it is one goroutine more than
// there are CPUs: the scheduler would leave it waiting for a CPU up to a time slice (10 ms)
// whenever it preempts it for a worker. So the worker yields its CPU after every piece (about
// 0.1 ms of encoding), which lets a hasher that is ready run: EncodeConfig at 10k 20.56 →
// 19.84 ms (−3.5 %, 12 rounds, the same CPU time) against yielding only to a hasher that
// waits for this very piece.
func (r *encRun) publish(piece []byte, done bool, err error) {
	r.mu.Lock()
	r.pieces = append(r.pieces, piece)
	r.done, r.err = done, err
	waiting := r.waiting
	r.mu.Unlock()
	if waiting {
		r.ready.Signal()
	}
	runtime.Gosched()
}

// follow appends the run's pieces to pieces as the worker publishes them, hashing each, until
// the run is done.
func (r *encRun) follow(pieces [][]byte, size int, h hash.Hash) ([][]byte, int) {
	for taken := 0; ; {
		r.mu.Lock()
		for taken == len(r.pieces) && !r.done {
			r.waiting = true
			r.ready.Wait()
			r.waiting = false
		}
		fresh, done := r.pieces[taken:len(r.pieces):len(r.pieces)], r.done
		taken = len(r.pieces)
		r.mu.Unlock()
		for _, p := range fresh {
			pieces = append(pieces, p)
			size += len(p)
			if h != nil {
				h.Write(p)
			}
		}
		if done {
			return pieces, size
		}
	}
}

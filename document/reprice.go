package document

import (
	"bytes"
	"strconv"
	"unsafe"
)

// Under Kong's expressions router, KIC's relative order gives the routes of a large tie of
// equal base priority their own low bits: one route moved into or out of such a tie changes the
// priority of thousands of others, and the translator hands over copies of their services
// that differ from the previous build's only there. JSONCache then writes such a copy from the
// bytes of the item it replaces, with the new priorities written over the old ones, instead of
// encoding it again: a Service's bytes note where its routes' priority digits are.
//
// That a copy differs only in its priorities is checked on the structs' memory: every field but
// the routes (of the service) and the priority (of each route) must hold the same bits, so the
// same pointers, slices, strings and values. Under JSONCache's rule that encoded items are
// never modified, the same pointers mean the same contents, so the bytes are the same but for
// the priorities; any other difference (padding included) only means a full encoding.

// notePriority records where the priority digits appendRoute wrote from at on are.
func (e *fastState) notePriority(b []byte, at int, present bool) {
	if !present {
		e.noPrio = true
		return
	}
	start := at + bytes.IndexByte(b[at:], ':') + 1
	e.prios = append(e.prios, int32(start-e.markAt), int32(len(b)-e.markAt))
}

// appendServiceMarked is appendFastPlain of a service, with where its routes' priorities are
// (nil unless every route has one), appended to slab.
func appendServiceMarked(b []byte, s *Service, slab []int32) (out []byte, prios, slabOut []int32, plain bool, err error) {
	e := fastState{marking: true, markAt: len(b), prios: slab}
	b = appendService(b, &e, s)
	if e.noPrio || len(e.prios) == len(slab) {
		return b, nil, slab, !e.slow, e.err
	}
	return b, e.prios[len(slab):len(e.prios):len(e.prios)], e.prios, !e.slow, e.err
}

// appendRepriced appends the bytes of s made from f, the bytes of base, when s is base but
// for its routes' priorities, with where its priorities are (appended to slab).
func appendRepriced(b []byte, s, base *Service, f fragment, slab []int32) ([]byte, []int32, []int32, bool) {
	prios := f.prios()
	if len(s.Routes) != len(base.Routes) || len(prios) != 2*len(s.Routes) ||
		!sameMemoryBut(unsafe.Pointer(s), unsafe.Pointer(base), unsafe.Sizeof(*s), unsafe.Offsetof(s.Routes), unsafe.Sizeof(s.Routes)) {
		return b, nil, slab, false
	}
	for i, r := range s.Routes {
		rb := base.Routes[i]
		if r == nil || rb == nil || r.Priority == nil || rb.Priority == nil {
			return b, nil, slab, false
		}
		if r != rb && !sameMemoryBut(unsafe.Pointer(r), unsafe.Pointer(rb), unsafe.Sizeof(*r),
			unsafe.Offsetof(r.Priority), unsafe.Sizeof(r.Priority)) {
			return b, nil, slab, false
		}
	}
	at, from, used := len(b), int32(0), len(slab)
	for i, r := range s.Routes {
		start, end := prios[2*i], prios[2*i+1]
		b = append(b, f.b[from:start]...)
		digits := len(b) - at
		b = strconv.AppendUint(b, *r.Priority, 10)
		slab = append(slab, int32(digits), int32(len(b)-at))
		from = end
	}
	b = append(b, f.b[from:]...)
	return b, slab[used:len(slab):len(slab)], slab, true
}

// sameMemoryBut reports whether the size bytes at a and b are equal but for size skip from
// off on.
func sameMemoryBut(a, b unsafe.Pointer, size, off, skip uintptr) bool {
	x, y := unsafe.Slice((*byte)(a), size), unsafe.Slice((*byte)(b), size)
	return bytes.Equal(x[:off], y[:off]) && bytes.Equal(x[off+skip:], y[off+skip:])
}

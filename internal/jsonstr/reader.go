package jsonstr

import "io"

// Reader streams prefix, then pieces escaped as the content of one JSON string, then suffix,
// without materializing the escaped copy: the sync loop posts {"config":"<config>"} bodies of
// many megabytes to several replicas this way, escaping each piece as the connection takes it.
// The pieces must not change while a Reader reads them.
type Reader struct {
	prefix, suffix string
	pieces         [][]byte
	pre, suf       int    // bytes of prefix and suffix already read
	i, off         int    // the next unread input byte is pieces[i][off]
	carry          []byte // the part of an escape sequence that did not fit into the last Read
	tmp            [6]byte
}

// NewReader returns a Reader over the concatenation of pieces.
func NewReader(prefix string, pieces [][]byte, suffix string) *Reader {
	return &Reader{prefix: prefix, pieces: pieces, suffix: suffix}
}

// Len is the number of bytes the Reader yields in all (prefix, escaped pieces, suffix).
func Len(prefix string, pieces [][]byte, suffix string) int64 {
	n := int64(len(prefix) + len(suffix))
	for _, p := range pieces {
		n += int64(len(p) + Extra(p))
	}
	return n
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	n := 0
	if r.pre < len(r.prefix) {
		c := copy(p, r.prefix[r.pre:])
		r.pre, n = r.pre+c, c
	}
	if len(r.carry) > 0 {
		c := copy(p[n:], r.carry)
		r.carry, n = r.carry[c:], n+c
	}
	for n < len(p) && r.i < len(r.pieces) {
		n = r.escape(p, n)
	}
	if r.i == len(r.pieces) && len(r.carry) == 0 && r.pre == len(r.prefix) {
		c := copy(p[n:], r.suffix[r.suf:])
		r.suf, n = r.suf+c, n+c
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// escape writes the current piece, escaped, into p[n:] until either runs out, and returns the
// new n. An escape sequence cut off by the end of p is kept in carry.
func (r *Reader) escape(p []byte, n int) int {
	src := r.pieces[r.i][r.off:]
	j := 0
	for j < len(src) && n < len(p) {
		k, lim := j, min(len(src), j+len(p)-n)
		for k < lim && plain(src[k]) {
			k++
		}
		n += copy(p[n:], src[j:k])
		j = k
		if j == len(src) || n == len(p) {
			break
		}
		if c := src[j]; (c == '"' || c == '\\') && n+2 <= len(p) {
			p[n], p[n+1] = '\\', c
			n, j = n+2, j+1
			continue
		}
		esc := appendEscape(r.tmp[:0], src[j])
		c := copy(p[n:], esc)
		n, j = n+c, j+1
		if c < len(esc) {
			r.carry = append(r.carry[:0], esc[c:]...)
			break
		}
	}
	r.off += j
	if r.off == len(r.pieces[r.i]) {
		r.i, r.off = r.i+1, 0
	}
	return n
}

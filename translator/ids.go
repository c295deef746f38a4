package translator

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
)

// kongEntitiesNamespace is go-kong's root UUIDv5 namespace for entity ids; each entity type
// derives its own namespace from it and the type's plural name (go-kong's FillID scheme, which
// KIC uses with FillIDs on and the default workspace).
var kongEntitiesNamespace = uuid.MustParse("fd02801f-0957-4a15-a55a-c8d9606f30b5")

// idSpace computes KIC's entity ids without go-kong's reflection and per-call allocations: the
// same UUIDv5 of the entity name in the entity type's namespace.
type idSpace [16]byte

func newIDSpace(entityPlural string) idSpace {
	return idSpace(uuid.NewSHA1(kongEntitiesNamespace, []byte(entityPlural)))
}

// id returns the UUIDv5 (RFC 4122, SHA-1) of name in this space, as go-kong's FillID does.
func (s idSpace) id(name string) string {
	var out [36]byte
	s.put(&out, name)
	return string(out[:])
}

// put writes the id of name into out, allocating nothing for names up to 240 bytes.
func (s idSpace) put(out *[36]byte, name string) {
	var buf [256]byte
	sum := sha1.Sum(append(append(buf[:0], s[:]...), name...))
	sum[6] = (sum[6] & 0x0f) | 0x50 // version 5
	sum[8] = (sum[8] & 0x3f) | 0x80 // RFC 4122 variant
	hex.Encode(out[0:8], sum[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], sum[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], sum[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], sum[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], sum[10:16])
}

// strPack packs the few strings of one entity (name, id, host, ...) into one allocation, so that
// they live and die with the entity. A string it returns is a view of bytes strings.Builder never
// writes again (it only appends, and copies when it grows), so it stays valid.
type strPack struct {
	b   strings.Builder
	off int
}

func (p *strPack) grow(n int) { p.b.Grow(n) }

// reserve makes room for n more bytes: in the current buffer when it has them, else in a new
// buffer of n bytes (the strings taken so far keep the old one), so that a pack shared by an
// entity's parts grows by what they need, never copying what it holds.
func (p *strPack) reserve(n int) {
	if p.b.Cap()-p.b.Len() >= n {
		return
	}
	p.b, p.off = strings.Builder{}, 0
	p.b.Grow(n)
}
func (p *strPack) writeBytes(b []byte) { p.b.Write(b) }
func (p *strPack) add(s string) string { p.b.WriteString(s); return p.take() }
func (p *strPack) addID(s idSpace, name string) string {
	p.reserve(36)
	var out [36]byte
	s.put(&out, name)
	p.b.Write(out[:])
	return p.take()
}

// take returns what was written since the previous take.
func (p *strPack) take() string {
	s := p.b.String()[p.off:]
	p.off = p.b.Len()
	return s
}

// packJoin is the concatenation of parts, in p when given.
func packJoin(p *strPack, parts ...string) string {
	if p == nil {
		return strings.Join(parts, "")
	}
	n := 0
	for _, s := range parts {
		n += len(s)
	}
	p.reserve(n)
	for _, s := range parts {
		p.b.WriteString(s)
	}
	return p.take()
}

package translator

import (
	"crypto/sha1"
	"encoding/hex"

	"github.com/google/uuid"
)

// kongEntitiesNamespace is go-kong's root UUIDv5 namespace for entity ids; each entity type
// derives its own namespace from it and the type's plural name (go-kong's FillID scheme, which
// KIC uses with FillIDs on and the default workspace).
var kongEntitiesNamespace = uuid.MustParse("fd02801f-0957-4a15-a55a-c8d9606f30b5")

// idSpace computes KIC's entity ids without go-kong's reflection and per-call allocations: the
// same UUIDv5 of the entity name in the entity type's namespace, built with one allocation.
type idSpace [16]byte

func newIDSpace(entityPlural string) idSpace {
	return idSpace(uuid.NewSHA1(kongEntitiesNamespace, []byte(entityPlural)))
}

// id returns the UUIDv5 (RFC 4122, SHA-1) of name in this space, as go-kong's FillID does.
func (s idSpace) id(name string) string {
	var buf [256]byte
	sum := sha1.Sum(append(append(buf[:0], s[:]...), name...))
	sum[6] = (sum[6] & 0x0f) | 0x50 // version 5
	sum[8] = (sum[8] & 0x3f) | 0x80 // RFC 4122 variant
	var out [36]byte
	hex.Encode(out[0:8], sum[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], sum[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], sum[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], sum[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], sum[10:16])
	return string(out[:])
}

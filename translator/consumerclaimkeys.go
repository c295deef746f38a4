package translator

import (
	"slices"
	"strings"
)

// Global names as claim keys, the maps keyed by them (one per space), and few, the short list
// of holders one name has.

// claimKey is a global name: its space (usernames and custom_ids are unique separately, and a
// credential's ukey already names its kind) and its value. A struct, not a concatenated string,
// so that keying a consumer's names allocates nothing.
type claimKey struct {
	space claimSpace
	v     string
}

type claimSpace uint8

const (
	spaceUsername claimSpace = iota
	spaceCustomID
	spaceCredential
	claimSpaces // how many
)

// claimMaps are maps by global name, one per space, keyed by the value alone: plain string
// keys hash as fast as strings do, and need no key built.
type claimMaps[T any] [claimSpaces]map[string]T

// newClaimMaps makes the maps for about n consumers: most have a username and a credential,
// few a custom_id.
func newClaimMaps[T any](n int) claimMaps[T] {
	return claimMaps[T]{make(map[string]T, n), make(map[string]T), make(map[string]T, n)}
}

func (m claimMaps[T]) get(k claimKey) T { return m[k.space][k.v] }

func (m claimMaps[T]) set(k claimKey, v T) { m[k.space][k.v] = v }

func (m claimMaps[T]) delete(k claimKey) { delete(m[k.space], k.v) }

// set reports whether the key names a value ("" is no username, no custom_id, no ukey).
func (k claimKey) set() bool { return k.v != "" }

// globalNameKind is what a global name key names: "username", "key-auth key".
func globalNameKind(key string) string {
	kind, _, _ := strings.Cut(key, "\x00")
	return kind
}

// few is a short list, most often of one element, kept without allocating then. The zero
// value of T is no element.
type few[T comparable] struct {
	one  T
	more []T // two or more (one is zero then)
}

func (l few[T]) len() int {
	var zero T
	if l.one != zero {
		return 1
	}
	return len(l.more)
}

func (l few[T]) at(i int) T {
	var zero T
	if l.one != zero {
		return l.one
	}
	return l.more[i]
}

// add appends x.
func (l few[T]) add(x T) few[T] {
	var zero T
	switch {
	case l.one == zero && len(l.more) == 0:
		return few[T]{one: x}
	case l.one != zero:
		return few[T]{more: []T{l.one, x}}
	}
	l.more = append(l.more, x)
	return l
}

// without is the list without the elements del selects (a new list: the old one may be shared).
func (l few[T]) without(del func(T) bool) few[T] {
	var zero T
	if l.one != zero {
		if del(l.one) {
			return few[T]{}
		}
		return l
	}
	more := slices.DeleteFunc(slices.Clone(l.more), del)
	switch len(more) {
	case 0:
		return few[T]{}
	case 1:
		return few[T]{one: more[0]}
	}
	return few[T]{more: more}
}

// fewRemove removes the elements del selects from the list at m[k], deleting the key when none
// is left.
func fewRemove[K, T comparable](m map[K]few[T], k K, del func(T) bool) {
	if l := m[k].without(del); l.len() == 0 {
		delete(m, k)
	} else {
		m[k] = l
	}
}

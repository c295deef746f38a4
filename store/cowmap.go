package store

import "maps"

// cowMap is a map by namespace and name that snapshots share with the store without a copy of
// the whole map on the store's next write: a base map, and a small delta of the writes made
// since the base was shared (a removed key is a tombstone in it). A snapshot holds a frozen
// copy of the store's map of each kind (the two map pointers); the store's first write after
// that copies the delta alone, and once the delta holds more than limit entries it is folded
// into a copy of the base. One change to one of 10,000 Ingresses then copies at most 16
// entries, plus a 16th of the base's copy spread over the changes that filled the delta, where
// a whole map copied 10,000 (~870 KB) on every change. While nothing shares the base (a store
// being loaded, before its first snapshot), writes go to it directly, and a map without delta
// is looked up and walked as one map. The EndpointSlice index of a snapshot is one too,
// patched the same way.
//
// The base keeps the objects the delta replaced or removed until the delta folds: limit bounds
// how many (16 objects of up to 256 KiB of annotations, 4 MiB per kind, against a tenant who
// churns the largest objects the API server takes), and Secrets and ConfigMaps, up to 1 MiB of
// payload each, fold after 4.
type cowMap[V any] struct {
	base  map[nsName]V
	delta map[nsName]cowSlot[V] // non-empty only while base is shared
	n     int
	limit int // the most entries the delta holds before it folds
	// baseShared and deltaShared: a snapshot (or another copy) holds the map; copy before writing.
	baseShared, deltaShared bool
}

const (
	// cowDeltaLimit is a cowMap's delta limit for most kinds.
	cowDeltaLimit = 16
	// cowPayloadDeltaLimit is the delta limit of the kinds with payloads (Secrets, ConfigMaps).
	cowPayloadDeltaLimit = 4
)

// cowSlot is a delta entry: a value, or the removal of the base's (gone).
type cowSlot[V any] struct {
	v    V
	gone bool
}

func newCowMap[V any](limit int) *cowMap[V] { return &cowMap[V]{base: map[nsName]V{}, limit: limit} }

// cowMapOwning returns a cowMap of m's entries that takes m over as its base: the caller
// builds a large map as a plain one, then never touches m again.
func cowMapOwning[V any](m map[nsName]V, limit int) *cowMap[V] {
	return &cowMap[V]{base: m, n: len(m), limit: limit}
}

// get returns the value at key.
func (m *cowMap[V]) get(key nsName) (V, bool) {
	if len(m.delta) > 0 {
		if s, ok := m.delta[key]; ok {
			return s.v, !s.gone
		}
	}
	v, ok := m.base[key]
	return v, ok
}

// size is the number of entries.
func (m *cowMap[V]) size() int { return m.n }

// frozen returns a copy of m that never changes, and makes m copy what it shares before it
// next writes. Only the map's owner (the store, under its lock) calls it; a snapshot's maps
// are copied with copied.
func (m *cowMap[V]) frozen() *cowMap[V] {
	m.baseShared, m.deltaShared = true, true
	c := *m
	return &c
}

// copied returns a copy of m to patch into a new map, leaving m as it is (it only reads m).
func (m *cowMap[V]) copied() *cowMap[V] {
	c := *m
	c.baseShared, c.deltaShared = true, true
	return &c
}

// put sets the value at key.
func (m *cowMap[V]) put(key nsName, v V) {
	if _, ok := m.get(key); !ok {
		m.n++
	}
	if !m.baseShared {
		m.base[key] = v
		return
	}
	m.writableDelta()[key] = cowSlot[V]{v: v}
	m.fold()
}

// del removes key, if present.
func (m *cowMap[V]) del(key nsName) {
	if _, ok := m.get(key); !ok {
		return
	}
	m.n--
	if !m.baseShared {
		delete(m.base, key)
		return
	}
	if _, inBase := m.base[key]; inBase {
		m.writableDelta()[key] = cowSlot[V]{gone: true}
	} else {
		delete(m.writableDelta(), key)
	}
	m.fold()
}

func (m *cowMap[V]) writableDelta() map[nsName]cowSlot[V] {
	if m.deltaShared || m.delta == nil {
		d := make(map[nsName]cowSlot[V], len(m.delta)+1)
		maps.Copy(d, m.delta)
		m.delta, m.deltaShared = d, false
	}
	return m.delta
}

// fold makes the delta part of a copy of the base once it holds more than limit entries.
func (m *cowMap[V]) fold() {
	if len(m.delta) <= m.limit {
		return
	}
	b := make(map[nsName]V, m.n)
	m.all(func(k nsName, v V) { b[k] = v })
	m.base, m.delta, m.baseShared, m.deltaShared = b, nil, false, false
}

// all calls f for every entry, in no particular order.
func (m *cowMap[V]) all(f func(nsName, V)) {
	for k, v := range m.base {
		if len(m.delta) > 0 {
			if _, ok := m.delta[k]; ok {
				continue
			}
		}
		f(k, v)
	}
	for k, s := range m.delta {
		if !s.gone {
			f(k, s.v)
		}
	}
}

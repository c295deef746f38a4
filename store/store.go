package store

import "sync"

// Store is the mutable, concurrency-safe set of objects. Writers (informer handlers, the manifest
// loader) call Upsert and Delete; the sync loop calls Snapshot. A snapshot shares each kind's
// map with the store (cowMap), so taking one after a single change costs a copy of that kind's
// small delta of recent writes, and a snapshot taken with nothing changed is free.
type Store struct {
	mu      sync.Mutex
	kinds   map[Kind]*cowMap[Object]
	shared  map[Kind]bool // kinds unchanged since the last snapshot, whose views it can share
	version uint64
	last    *Snapshot
	// dirty holds the keys written since the last snapshot, per kind: a snapshot patches the
	// previous one's sorted lists and indexes for these instead of rebuilding them.
	dirty map[Kind]map[nsName]struct{}
}

type nsName struct{ ns, name string }

// New returns an empty store.
func New() *Store {
	s := &Store{kinds: map[Kind]*cowMap[Object]{}, shared: map[Kind]bool{}, dirty: map[Kind]map[nsName]struct{}{}}
	for _, k := range Kinds {
		limit := cowDeltaLimit
		if k == KindSecret || k == KindConfigMap {
			limit = cowPayloadDeltaLimit
		}
		s.kinds[k] = newCowMap[Object](limit)
	}
	return s
}

// Upsert adds or replaces an object and reports whether the store changed. An object whose
// resourceVersion equals the stored one is ignored (informer resyncs), unless both are empty
// (manifest files carry none). The store keeps the pointer: callers hand over ownership.
func (s *Store) Upsert(obj Object) (bool, error) {
	k, err := KindOf(obj)
	if err != nil {
		return false, err
	}
	key := nsName{obj.GetNamespace(), obj.GetName()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.kinds[k].get(key); ok {
		rv := obj.GetResourceVersion()
		if rv != "" && rv == old.GetResourceVersion() && old.GetUID() == obj.GetUID() {
			return false, nil
		}
	}
	s.kinds[k].put(key, obj)
	s.shared[k] = false
	s.markDirty(k, key)
	s.version++
	return true, nil
}

// Delete removes the object with that ref and reports whether it was there.
func (s *Store) Delete(ref Ref) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := nsName{ref.Namespace, ref.Name}
	m := s.kinds[ref.Kind]
	if m == nil {
		return false
	}
	if _, ok := m.get(key); !ok {
		return false
	}
	m.del(key)
	s.shared[ref.Kind] = false
	s.markDirty(ref.Kind, key)
	s.version++
	return true
}

// Get returns the stored object with that ref.
func (s *Store) Get(ref Ref) (Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.kinds[ref.Kind]
	if m == nil {
		return nil, false
	}
	return m.get(nsName{ref.Namespace, ref.Name})
}

// Version counts changes; it lets callers tell whether anything changed since a snapshot.
func (s *Store) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// markDirty records a written key; past patchLimit keys the kind is rebuilt anyway.
func (s *Store) markDirty(k Kind, key nsName) {
	d := s.dirty[k]
	if d == nil {
		d = map[nsName]struct{}{}
		s.dirty[k] = d
	}
	if len(d) <= patchLimit {
		d[key] = struct{}{}
	}
}

// Snapshot returns an immutable view of the store. Kinds unchanged since the previous snapshot
// share that snapshot's maps, sorted lists and indexes.
func (s *Store) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last != nil && s.last.version == s.version {
		return s.last
	}
	frozen := make(map[Kind]*cowMap[Object], len(Kinds))
	for _, k := range Kinds {
		if s.last == nil || !s.shared[k] {
			frozen[k] = s.kinds[k].frozen()
		}
	}
	snap := newSnapshot(s.version, frozen, s.last, s.shared, s.dirty)
	for _, k := range Kinds {
		s.shared[k] = true
	}
	clear(s.dirty)
	s.last = snap
	return snap
}

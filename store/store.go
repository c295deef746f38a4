package store

import (
	"maps"
	"sync"
)

// Store is the mutable, concurrency-safe set of objects. Writers (informer handlers, the manifest
// loader) call Upsert and Delete; the sync loop calls Snapshot. Snapshots are copy-on-write per
// kind, so taking one after a single change costs a copy of that kind's map only, and a snapshot
// taken with nothing changed is free.
type Store struct {
	mu      sync.Mutex
	kinds   map[Kind]map[nsName]Object
	shared  map[Kind]bool // kind maps referenced by the last snapshot: copy before writing
	version uint64
	last    *Snapshot
	// dirty holds the keys written since the last snapshot, per kind: a snapshot patches the
	// previous one's sorted lists and indexes for these instead of rebuilding them.
	dirty map[Kind]map[nsName]struct{}
}

type nsName struct{ ns, name string }

// New returns an empty store.
func New() *Store {
	s := &Store{kinds: map[Kind]map[nsName]Object{}, shared: map[Kind]bool{}, dirty: map[Kind]map[nsName]struct{}{}}
	for _, k := range Kinds {
		s.kinds[k] = map[nsName]Object{}
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
	if old, ok := s.kinds[k][key]; ok {
		rv := obj.GetResourceVersion()
		if rv != "" && rv == old.GetResourceVersion() && old.GetUID() == obj.GetUID() {
			return false, nil
		}
	}
	s.writable(k)[key] = obj
	s.markDirty(k, key)
	s.version++
	return true, nil
}

// Delete removes the object with that ref and reports whether it was there.
func (s *Store) Delete(ref Ref) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := nsName{ref.Namespace, ref.Name}
	if _, ok := s.kinds[ref.Kind][key]; !ok {
		return false
	}
	delete(s.writable(ref.Kind), key)
	s.markDirty(ref.Kind, key)
	s.version++
	return true
}

// Get returns the stored object with that ref.
func (s *Store) Get(ref Ref) (Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.kinds[ref.Kind][nsName{ref.Namespace, ref.Name}]
	return o, ok
}

// Version counts changes; it lets callers tell whether anything changed since a snapshot.
func (s *Store) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// writable returns the map of kind k, copying it first if a snapshot still references it.
func (s *Store) writable(k Kind) map[nsName]Object {
	if s.shared[k] {
		s.kinds[k] = maps.Clone(s.kinds[k])
		s.shared[k] = false
	}
	return s.kinds[k]
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
	snap := newSnapshot(s.version, s.kinds, s.last, s.shared, s.dirty)
	for _, k := range Kinds {
		s.shared[k] = true
	}
	clear(s.dirty)
	s.last = snap
	return snap
}

package translator

import (
	gosync "sync"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Engine is the one way a snapshot becomes a Kong configuration: `kongsync dump`, the live
// loop, the golden tests, the benchmarks (and, later, admission) all call Build. It keeps
// what earlier builds produced, per object and per entity, and reuses it while the objects it
// was made from are unchanged; a cold build is simply the first Build of a new Engine. Every
// Build returns exactly what a cold build of the same snapshot returns, byte for byte (the
// golden tests build every case cold and warm, the property tests after random changes).
//
// Entities in a Built are shared with later Builds: never modify them. An Engine is for one
// Options value; its methods serialize, so one Engine may be shared, but its caches follow
// one stream of snapshots best.
type Engine struct {
	mu    gosync.Mutex
	cache *Cache
	enc   *document.JSONCache
}

// NewEngine returns an Engine with nothing built yet.
func NewEngine(opts Options) *Engine {
	return &Engine{cache: NewCache(opts), enc: document.NewJSONCache()}
}

// Built is one translation of a snapshot, encoded.
type Built struct {
	Result
	// Config is the document's canonical JSON (document.JSON), as posted to Kong; its pieces
	// are shared with later Builds.
	Config *document.Config
}

// Hash is Kong's configuration_hash of Config (it may wait for a deferred md5).
func (b Built) Hash() string { return b.Config.Hash() }

// Build translates snap and encodes the result.
func (e *Engine) Build(snap *store.Snapshot) (Built, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	res := e.cache.Translate(snap)
	cfg, err := e.enc.EncodeConfig(res.Document)
	if err != nil {
		return Built{}, err
	}
	return Built{Result: res, Config: cfg}, nil
}

// BuildOnce is a cold Build: what `kongsync dump` and one-off callers run.
func BuildOnce(snap *store.Snapshot, opts Options) (Built, error) {
	return NewEngine(opts).Build(snap)
}

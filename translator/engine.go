package translator

import (
	"hash/maphash"
	"reflect"
	gosync "sync"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Engine is the one way a snapshot becomes a Kong configuration: `kongsync dump`, the live
// loop, the golden tests, the benchmarks (and, later, admission) all call Build.
//
// A build is pieces and one assemble pass (docs/architecture.md). Pieces are what single
// objects contribute, pure functions of the object and of what they read through the
// snapshot's view; the Engine memoises them by the objects they read (memo.go), so after a
// change only the pieces that read a changed object are computed again. Assemble then makes
// every decision across objects from the pieces, on every build. Entities assemble makes from
// unchanged pieces keep their pointers, so the encoder reuses their bytes and md5 state too.
// A cold build is the first Build of a new Engine: nothing to reuse, the same code.
//
// Every Build returns exactly what a cold build of the same snapshot returns, byte for byte (the
// golden tests build every case cold and warm, the property tests after random changes).
// Entities in a Built are shared with later Builds: never modify them. An Engine is for one
// Options value; its methods serialize.
type Engine struct {
	mu       gosync.Mutex
	opts     Options
	gen      uint64
	defaults *defaultValues
	ids      *idSpaces
	seed     maphash.Seed // of the match-key hashes pieces keep
	keep     bool         // false for BuildOnce: nothing is kept for a next build
	memos    *memos
	enc      *document.JSONCache // nil for BuildOnce: document.EncodeConfig
	par      parallelism         // used by BuildOnce, whose loops need no memo (parallel.go)
}

// NewEngine returns an Engine with nothing built yet.
func NewEngine(opts Options) *Engine {
	e := newEngine(opts)
	e.keep, e.memos, e.enc = true, newMemos(), document.NewJSONCache()
	return e
}

func newEngine(opts Options) *Engine {
	opts = normalOptions(opts)
	d := newDefaultValues()
	return &Engine{opts: opts, defaults: &d, ids: newIDSpaces(), seed: maphash.MakeSeed(), par: coldParallelism(),
		memos: &memos{ingressMemos: ingressMemos{idents: identTable{m: map[string]*ksIdent{}}}}}
}

// normalOptions fills in the defaults an Options value leaves unset.
func normalOptions(opts Options) Options {
	if opts.IngressClass == "" {
		opts.IngressClass = DefaultOptions().IngressClass
	}
	opts.KongVersion = kongVersionOrDefault(opts.KongVersion)
	return opts
}

// Options are the options the Engine translates with, defaults filled in.
func (e *Engine) Options() Options {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opts
}

// SetOptions makes the Engine translate with opts from the next Build on. Other options than
// the current ones make it start over, as a new Engine would: nothing built with the old
// options is reused, so the next Build is a cold one (the live loop calls it when the lowest
// Kong version among its replicas changes). The same options change nothing.
func (e *Engine) SetOptions(opts Options) {
	e.mu.Lock()
	defer e.mu.Unlock()
	opts = normalOptions(opts)
	a, b := opts, e.opts
	a.Now, b.Now = nil, nil // a func never equals another: the clock alone changes no build's pieces
	if reflect.DeepEqual(a, b) {
		e.opts.Now = opts.Now
		return
	}
	e.opts = opts
	e.startOver()
}

// startOver drops everything built so far, as a new Engine with the same options would have.
func (e *Engine) startOver() {
	n := newEngine(e.opts)
	e.defaults, e.ids, e.seed = n.defaults, n.ids, n.seed
	if e.keep {
		e.memos, e.enc = newMemos(), document.NewJSONCache()
	} else {
		e.memos = n.memos
	}
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
	res := e.translate(snap)
	var cfg *document.Config
	var err error
	if e.keep {
		cfg, err = e.enc.EncodeConfig(res.Document)
	} else {
		cfg, err = document.EncodeConfig(res.Document)
	}
	if err != nil {
		return Built{}, err
	}
	return Built{Result: res, Config: cfg}, nil
}

// Translate is Build without the encoding: the document and the problems. The admission
// webhook judges objects by their problems alone; an engine used only through Translate never
// holds an encoded configuration.
func (e *Engine) Translate(snap *store.Snapshot) Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.translate(snap)
}

// translate is one build's translation, memos updated and swept. Called with mu held. A panic
// (a defect; the sync loop turns it into a failed build) may leave the memos half updated, so
// it makes the Engine start over before it goes on: the next Build is a cold one.
func (e *Engine) translate(snap *store.Snapshot) Result {
	defer func() {
		if v := recover(); v != nil {
			e.startOver()
			panic(v)
		}
	}()
	e.gen++
	if e.keep {
		e.memos.kinds.update(snap, e.gen)
	}
	t := e.newTranslation(snap)
	res := (&build{translation: t, memos: e.memos}).assemble()
	if e.keep && t.complete {
		e.memos.sweep(e.gen)
	}
	return res
}

// newTranslation is the state of build e.gen of snap.
func (e *Engine) newTranslation(snap *store.Snapshot) *translation {
	t := &translation{
		snap:     view{snap: snap},
		opts:     e.opts,
		gen:      e.gen,
		kinds:    &e.memos.kinds,
		keep:     e.keep,
		defaults: e.defaults,
		ids:      e.ids,
		par:      e.par,
	}
	if snap != nil {
		t.defaultClass = snap.IsDefaultClass(e.opts.IngressClass)
	}
	return t
}

// BuildOnce is a cold build that keeps nothing for a next one: what `kongsync dump` runs. It is
// the same pieces and assemble as Engine.Build, without recording reads or memoising.
func BuildOnce(snap *store.Snapshot, opts Options) (Built, error) {
	return newEngine(opts).Build(snap)
}

// TranslateOnce is BuildOnce without the encoding, for a caller that writes the document some
// other way (`kongsync dump`'s YAML).
func TranslateOnce(snap *store.Snapshot, opts Options) Result {
	return newEngine(opts).Translate(snap)
}

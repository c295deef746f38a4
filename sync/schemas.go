package sync

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	gosync "sync"
	"time"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// Kong's schemas of the custom entity types the store holds (KongCustomEntity; docs/sync.md,
// "Custom entity schemas"). The translator takes them as an input (translator.Options
// .EntitySchemas); the loop reads them from a replica, GET /schemas/<type>, one request per
// distinct type, and keeps them: a type Kong does not know (404) until a replica restarts, a
// schema until then too, a failed read for schemaRetry. A type being read for the first time is
// Pending: its KongCustomEntities are left out of that translation, which no replica is sent;
// the loop translates again once the read is done, and whenever a schema changes.

// Bounds on what the store's KongCustomEntities make the loop read.
const (
	// MaxSchemaTypes is how many distinct custom entity types' schemas are read; the others'
	// KongCustomEntities get a problem.
	MaxSchemaTypes = 64
	// maxSchemaBytes bounds one schema answer.
	maxSchemaBytes = 1 << 20
	// schemaRetry is how long a failed read (Kong unreachable, or an error other than 404)
	// stands before the type is read again.
	schemaRetry = 10 * time.Second
)

// Schema reads Kong's schema of an entity type (GET /schemas/<type>). A type Kong does not know
// (404, "No entity named ...") is a schema whose Err says so, to be believed until Kong
// restarts; err is a failure to ask (Kong unreachable, another status, an unreadable answer).
func (r *Replica) Schema(ctx context.Context, typ string) (translator.EntitySchema, error) {
	path := "/schemas/" + url.PathEscape(typ)
	body, status, err := r.fetch(ctx, path, r.opts.ProbeTimeout, maxSchemaBytes)
	switch {
	case err != nil:
		return translator.EntitySchema{}, err
	case status == http.StatusNotFound:
		return translator.EntitySchema{Err: fmt.Sprintf("Kong has no entity type %s (GET %s: HTTP 404: %s)", typ, path,
			truncate(messageOf(body)))}, nil
	case status != http.StatusOK:
		return translator.EntitySchema{}, fmt.Errorf("GET %s: HTTP %d: %s", path, status, truncate(messageOf(body)))
	}
	s, err := translator.ParseEntitySchema(body)
	if err != nil {
		return translator.EntitySchema{}, fmt.Errorf("GET %s: %w", path, err)
	}
	return s, nil
}

// schemaBook is what the loop knows of the custom entity types' schemas.
type schemaBook struct {
	mu      gosync.Mutex
	entries map[string]schemaEntry
	stale   bool // a replica (re)started since the entries were read: read them again
	reading bool // a read is under way

	// applied is what SetEntitySchemas was last given, gen how many times it changed (loop
	// goroutine only).
	applied translator.EntitySchemas
	gen     uint64
}

// schemaEntry is one type's schema, or why it has none.
type schemaEntry struct {
	schema  translator.EntitySchema
	retryAt time.Time // when a failed read is tried again; zero for an answer Kong gave
}

// plan returns the schemas of types as known now (Pending for a type never read), the types to
// read (never read, read before a replica restarted, or failed and due), and whether a type is
// pending. Entries of types no longer held (or past MaxSchemaTypes) are forgotten.
func (b *schemaBook) plan(types []string, now time.Time) (translator.EntitySchemas, []string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(types) == 0 {
		clear(b.entries)
		return nil, nil, false
	}
	if b.entries == nil {
		b.entries = map[string]schemaEntry{}
	}
	out := make(translator.EntitySchemas, len(types))
	var want []string
	pending := false
	for i, t := range types {
		e, ok := b.entries[t]
		switch {
		case i >= MaxSchemaTypes:
			out[t] = translator.EntitySchema{Err: fmt.Sprintf("the cluster's KongCustomEntities name more than %d "+
				"types; Kong's schema of this one is not read", MaxSchemaTypes)}
		case !ok:
			want, pending = append(want, t), true
			out[t] = translator.EntitySchema{Pending: true}
		default:
			if b.stale || !e.retryAt.IsZero() && !now.Before(e.retryAt) {
				want = append(want, t)
			}
			out[t] = e.schema
		}
	}
	for t := range b.entries {
		if i, found := slices.BinarySearch(types, t); !found || i >= MaxSchemaTypes {
			delete(b.entries, t)
		}
	}
	return out, want, pending
}

// record keeps what a read found. A failed read keeps an earlier schema (and retries later).
func (b *schemaBook) record(read map[string]schemaEntry) (retry bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for t, e := range read {
		if old, ok := b.entries[t]; ok && !e.retryAt.IsZero() && old.retryAt.IsZero() && old.schema.Err == "" {
			old.retryAt = e.retryAt
			e = old
		}
		b.entries[t] = e
		retry = retry || !e.retryAt.IsZero()
	}
	b.reading = false
	return retry
}

// applySchemas hands the translator the schemas of the snapshot's custom entity types
// (Config.SetEntitySchemas, when they changed) and starts reading those it lacks; it returns
// the generation of the schemas applied. Loop goroutine.
func (l *Loop) applySchemas(snap *store.Snapshot) uint64 {
	b := &l.schemas
	if l.cfg.SetEntitySchemas == nil {
		return 0
	}
	cur, want, _ := b.plan(translator.CustomEntityTypes(snap), time.Now())
	if len(want) > 0 {
		l.readSchemas(want)
	}
	if !reflect.DeepEqual(cur, b.applied) {
		l.cfg.SetEntitySchemas(cur)
		b.applied = cur
		b.gen++
	}
	return b.gen
}

// readSchemas reads the types' schemas in the background, unless a read is under way (the loop
// asks again when it ends), and wakes the loop when done (and again when a failed read is due).
func (l *Loop) readSchemas(types []string) {
	b := &l.schemas
	b.mu.Lock()
	if b.reading {
		b.mu.Unlock()
		return
	}
	b.reading, b.stale = true, false
	b.mu.Unlock()
	reps := l.schemaReplicas()
	ctx := l.runContext()
	go func() {
		read := readSchemasOf(ctx, reps, types)
		if ctx.Err() != nil {
			return
		}
		retry := b.record(read)
		l.log.V(1).Info("custom entity schemas read", "types", len(types))
		l.wakeSchemas()
		if retry {
			time.AfterFunc(schemaRetry, l.wakeSchemas)
		}
	}()
}

// schemaReads is how many schemas are read at once: a Kong that does not answer costs
// ProbeTimeout per type, and 64 types one after the other would hold a first configuration back
// for minutes.
const schemaReads = 4

// readSchemasOf reads the types' schemas, schemaReads at a time.
func readSchemasOf(ctx context.Context, reps []*Replica, types []string) map[string]schemaEntry {
	read := make(map[string]schemaEntry, len(types))
	var mu gosync.Mutex
	var wg gosync.WaitGroup
	sem := make(chan struct{}, schemaReads)
	for _, t := range types {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			e := readSchema(ctx, reps, t)
			mu.Lock()
			read[t] = e
			mu.Unlock()
		}()
	}
	wg.Wait()
	return read
}

// readSchema asks the replicas in turn until one answers (reachable replicas first).
func readSchema(ctx context.Context, reps []*Replica, typ string) schemaEntry {
	err := fmt.Errorf("no Kong replica to read it from")
	for _, rep := range reps {
		var s translator.EntitySchema
		if s, err = rep.Schema(ctx, typ); err == nil {
			return schemaEntry{schema: s}
		}
		if !isTransport(err) {
			break
		}
	}
	return schemaEntry{schema: translator.EntitySchema{Err: "reading Kong's schema: " + err.Error()},
		retryAt: time.Now().Add(schemaRetry)}
}

// schemaReplicas are the replicas to read schemas from: those whose GET / answered first, then
// the others, by URL.
func (l *Loop) schemaReplicas() []*Replica {
	ws := l.workerList()
	slices.SortFunc(ws, func(a, b *worker) int {
		_, ka := a.version()
		_, kb := b.version()
		switch {
		case ka && !kb:
			return -1
		case kb && !ka:
			return 1
		}
		return strings.Compare(a.rep.URL(), b.rep.URL())
	})
	out := make([]*Replica, len(ws))
	for i, w := range ws {
		out[i] = w.rep
	}
	return out
}

// schemasStale marks every schema to be read again (a replica restarted, came back or joined:
// its Kong may have other plugins) and wakes the loop, when any was read.
func (l *Loop) schemasStale() {
	b := &l.schemas
	b.mu.Lock()
	some := len(b.entries) > 0
	b.stale = b.stale || some
	b.mu.Unlock()
	if some {
		l.wakeSchemas()
	}
}

func (l *Loop) wakeSchemas() {
	select {
	case l.schemaCh <- struct{}{}:
	default:
	}
}

// EntitySchemas returns the schemas of types as the loop knows them, reading those it lacks now
// (for the admission webhook, which judges a KongCustomEntity of a type the store does not hold
// yet). A type that cannot be read has Err set.
func (l *Loop) EntitySchemas(ctx context.Context, types []string) translator.EntitySchemas {
	b := &l.schemas
	out := make(translator.EntitySchemas, len(types))
	var missing []string
	b.mu.Lock()
	for _, t := range types {
		if e, ok := b.entries[t]; ok {
			out[t] = e.schema
		} else {
			missing = append(missing, t)
		}
	}
	b.mu.Unlock()
	if len(missing) > MaxSchemaTypes {
		missing = missing[:MaxSchemaTypes]
	}
	for t, e := range readSchemasOf(ctx, l.schemaReplicas(), missing) {
		out[t] = e.schema
	}
	return out
}

// schemasPending reports whether a type of the schemas applied is still being read.
func schemasPending(s translator.EntitySchemas) bool {
	for _, e := range s {
		if e.Pending {
			return true
		}
	}
	return false
}

// runContext is Run's context (Background before Run).
func (l *Loop) runContext() context.Context {
	if l.runCtx == nil {
		return context.Background()
	}
	return l.runCtx
}

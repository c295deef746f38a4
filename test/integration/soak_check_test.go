//go:build integration

package integration

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	gosync "sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// eventIndex keeps every Event of the cluster in memory (an informer), so that the checks read
// them by involved object and wait for one to arrive instead of polling.
type eventIndex struct {
	inf     cache.SharedIndexInformer
	mu      gosync.Mutex
	changed chan struct{}
}

func newEventIndex(ctx context.Context) *eventIndex {
	f := informers.NewSharedInformerFactory(admin, 0)
	e := &eventIndex{inf: f.Core().V1().Events().Informer(), changed: make(chan struct{})}
	wake := func(any) {
		e.mu.Lock()
		close(e.changed)
		e.changed = make(chan struct{})
		e.mu.Unlock()
	}
	_, _ = e.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: wake, UpdateFunc: func(_, n any) { wake(n) }})
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	return e
}

func (e *eventIndex) wait() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.changed
}

// on returns the Events whose involved object has uid.
func (e *eventIndex) on(uid types.UID) []*corev1.Event {
	var out []*corev1.Event
	for _, o := range e.inf.GetStore().List() {
		if ev := o.(*corev1.Event); ev.InvolvedObject.UID == uid {
			out = append(out, ev)
		}
	}
	return out
}

// rejected lists the objects Kong refused as they are now: an ApplyFailed Event names the
// object's uid and resourceVersion, and kongsync leaves an object out until it changes. An
// IngressClass is reported but never left out.
func (e *eventIndex) rejected(snap *store.Snapshot) []store.Ref {
	seen := map[store.Ref]bool{}
	for _, o := range e.inf.GetStore().List() {
		ev := o.(*corev1.Event)
		if ev.Reason != metrics.ReasonApplyFailed || ev.InvolvedObject.Kind == "IngressClass" {
			continue
		}
		ref := store.Ref{Kind: store.Kind(ev.InvolvedObject.Kind), Namespace: ev.InvolvedObject.Namespace, Name: ev.InvolvedObject.Name}
		if obj, ok := snap.Get(ref); ok && obj.GetUID() == ev.InvolvedObject.UID && obj.GetResourceVersion() == ev.InvolvedObject.ResourceVersion {
			seen[ref] = true
		}
	}
	out := make([]store.Ref, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// expectation is what every Kong must hold: the cold build of the cluster as read back now,
// without the objects Kong refused.
type expectation struct {
	snap     *store.Snapshot
	built    translator.Built
	doc      map[string]any
	rejected []store.Ref
}

func (s *soak) expect(snap *store.Snapshot, rejected []store.Ref) (*expectation, error) {
	opts := s.translatorOptions()
	opts.EntitySchemas = s.entitySchemas(snap)
	exp, took, err := coldBuild(snap, rejected, opts)
	if err == nil && took > soakBuildBound {
		err = fmt.Errorf("a cold build of the cluster took %s (bound %s)", took.Round(time.Millisecond), soakBuildBound)
	}
	s.mu.Lock()
	s.slowestBuild = max(s.slowestBuild, took)
	s.mu.Unlock()
	return exp, err
}

// routeKinds counts the routes of a Kong configuration written as expressions (an
// `expression`) and those written with traditional match fields: under the expressions router
// every route kongsync writes is an expression, under the others none is.
func routeKinds(doc map[string]any) (expr, trad int) {
	var walk func(v any, routes bool)
	walk = func(v any, routes bool) {
		switch v := v.(type) {
		case map[string]any:
			if routes {
				if e, _ := v["expression"].(string); e != "" {
					expr++
				} else {
					trad++
				}
			}
			for k, x := range v {
				if k != "config" { // a plugin's config is the user's data
					walk(x, k == "routes")
				}
			}
		case []any:
			for _, x := range v {
				walk(x, routes)
			}
		}
	}
	walk(doc, false)
	return expr, trad
}

// soakPlugins are the doubles' plugins: Kong's bundled ones and degraphql, whose custom entities
// (degraphql_routes) the world's KongCustomEntities make.
var soakPlugins = append(slices.Clone(kongdouble.BundledPlugins), "degraphql")

// entitySchemas are Kong's schemas of the custom entity types of snap, as the kongsyncs read
// them from their Kongs: read from the scratch double, whose plugins are theirs.
func (s *soak) entitySchemas(snap *store.Snapshot) translator.EntitySchemas {
	types := translator.CustomEntityTypes(snap)
	if len(types) == 0 {
		return nil
	}
	rep, err := kongsync.NewReplica(s.scratch.URL(), kongsync.ReplicaOptions{})
	out := translator.EntitySchemas{}
	for _, typ := range types {
		var sc translator.EntitySchema
		if err == nil {
			sc, err = rep.Schema(context.Background(), typ)
		}
		if err != nil {
			sc = translator.EntitySchema{Err: "reading Kong's schema: " + err.Error()}
		}
		out[typ] = sc
	}
	return out
}

// translatorOptions are the options every incarnation translates with once it has read its
// Kongs' GET /: runner.TranslatorOptions of its configuration, for the doubles' router flavor.
func (s *soak) translatorOptions() translator.Options {
	opts := runner.TranslatorOptions(s.cfg())
	opts.RouterFlavor = s.flavor
	return opts
}

// coldBuild translates snap without the rejected objects, and says how long that took.
func coldBuild(snap *store.Snapshot, rejected []store.Ref, opts translator.Options) (*expectation, time.Duration, error) {
	t0 := time.Now()
	b, err := translator.BuildOnce(snap.Without(rejected...), opts)
	took := time.Since(t0)
	if err != nil {
		return nil, took, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Config.Bytes(), &doc); err != nil {
		return nil, took, err
	}
	return &expectation{snap: snap, built: b, doc: doc, rejected: rejected}, took, nil
}

// converge waits until every double holds the expectation (recomputed whenever the set of
// refused objects changes), up to bound; it returns how long that took and the last
// expectation and differences.
func (s *soak) converge(ctx context.Context, snap *store.Snapshot, bound time.Duration) (time.Duration, *expectation, map[int][]document.Difference, error) {
	t0 := time.Now()
	deadline := time.After(bound)
	oracle, err := s.refusedByKong(snap)
	if err != nil {
		return 0, nil, nil, err
	}
	var exp *expectation
	key := "-"
	for {
		wakes := []<-chan struct{}{s.events.wait()}
		for _, d := range s.doubles {
			wakes = append(wakes, d.Changed())
		}
		rej := s.events.rejected(snap)
		if k := fmt.Sprint(rej); k != key {
			var err error
			if exp, err = s.expect(snap, rej); err != nil {
				return 0, nil, nil, err
			}
			key = k
		}
		diffs := map[int][]document.Difference{}
		for i, d := range s.doubles {
			if ds := document.Compare(exp.doc, d.Document(), document.CompareOptions{Strict: true}); len(ds) > 0 {
				diffs[i] = ds
			}
		}
		if len(diffs) == 0 {
			return time.Since(t0), exp, nil, nil
		}
		if s.holdAll(oracle) {
			s.count("check: matched through the scratch Kong's refusals")
			return time.Since(t0), oracle, nil, nil
		}
		select {
		case <-wakes[0]:
		case <-wakes[1]:
		case <-wakes[2]:
		case <-deadline:
			return time.Since(t0), exp, diffs, nil
		case <-ctx.Done():
			return time.Since(t0), exp, diffs, ctx.Err()
		}
	}
}

// holdAll reports whether every double holds exp.
func (s *soak) holdAll(exp *expectation) bool {
	for _, d := range s.doubles {
		if len(document.Compare(exp.doc, d.Document(), document.CompareOptions{Strict: true})) > 0 {
			return false
		}
	}
	return true
}

// pushOrder checks the POSTs each double accepted since the last check: per kongsync
// incarnation, each accepted config's build generation (the store version of a build of that
// hash the incarnation made before Kong answered, +1 s for the observer's lag; see versionOf)
// never goes below one accepted before. It returns the violations.
func (s *soak) pushOrder() []string {
	var bad []string
	for i, d := range s.doubles {
		posts := d.Posts()
		for _, p := range posts[s.postsSeen[i]:] {
			if p.Status != 200 && p.Status != 201 {
				continue
			}
			s.count("push accepted")
			id := p.Header.Get(identityHeader)
			hash := postedHash(p)
			proc := s.procs.byID(id)
			if proc == nil {
				bad = append(bad, fmt.Sprintf("kong%d accepted a POST from unknown poster %q", i, id))
				continue
			}
			key := fmt.Sprintf("%d/%s", i, id)
			v, ok := proc.obs.versionOf(hash, p.End.Add(time.Second), s.lastVersion[key])
			if !ok {
				bad = append(bad, fmt.Sprintf("kong%d accepted %s from %s, which never built it", i, hash, id))
				continue
			}
			if last := s.lastVersion[key]; v < last {
				bad = append(bad, fmt.Sprintf("kong%d accepted from %s a config of store version %d after one of version %d (%s at %s)",
					i, id, v, last, hash, p.End.Format("15:04:05.000")))
			} else {
				s.lastVersion[key] = v
			}
		}
		s.postsSeen[i] = len(posts)
		if len(bad) == 0 {
			// The doubles record every request with its body: forget the checked ones, or
			// their memory would count as growth. (posts-kong*.txt then lists the POSTs since.)
			d.ResetRequests()
			s.postsSeen[i] = 0
		}
	}
	return bad
}

// postedHash is Kong's configuration_hash of a POST's config string (the empty hash for a
// config without entities is not needed: the sentinel always exists).
func postedHash(p kongdouble.Request) string {
	var body struct {
		Config string `json:"config"`
	}
	_ = json.Unmarshal(p.Body, &body)
	sum := md5.Sum([]byte(body.Config))
	return hex.EncodeToString(sum[:])
}

// problemEvents waits (up to bound) until every problem of the expectation is a Warning Event
// on its object (by uid): the exact message, or — where client-go's recorder combined similar
// Events or its spam filter (25 per object, then one per 5 minutes) held them back — any
// translation Event on it, which is counted apart. It returns the problems without an Event.
func (s *soak) problemEvents(ctx context.Context, exp *expectation, bound time.Duration) []string {
	deadline := time.After(bound)
	for {
		wake := s.events.wait()
		var missing []string
		lenient := 0
		for _, p := range exp.built.Problems {
			obj, ok := exp.snap.Get(p.Object)
			if !ok {
				continue
			}
			switch problemEventState(s.events.on(obj.GetUID()), p) {
			case "exact":
			case "lenient":
				lenient++
			default:
				missing = append(missing, fmt.Sprintf("%s (uid %s): no Event for %q", p.Object, obj.GetUID(), problemMessage(p)))
			}
		}
		if len(missing) == 0 {
			s.addCount("problem events exact", len(exp.built.Problems)-lenient)
			s.addCount("problem events combined or spam-limited", lenient)
			return nil
		}
		select {
		case <-wake:
		case <-deadline:
			return missing
		case <-ctx.Done():
			return missing
		}
	}
}

// problemMessage is the message of a problem's Event: escaped (safetext), as the Reporter
// emits it, so that a hostile tenant's control characters do not make it differ.
func problemMessage(p translator.Problem) string { return p.Message() }

func problemEventState(evs []*corev1.Event, p translator.Problem) string {
	want, total, combined := problemMessage(p), int32(0), false
	for _, ev := range evs {
		if ev.Reason != metrics.ReasonTranslationFailed {
			continue
		}
		if ev.Message == want {
			return "exact"
		}
		total += max(ev.Count, 1)
		combined = combined || strings.HasPrefix(ev.Message, "(combined from similar events)")
	}
	if combined || total >= 25 {
		return "lenient"
	}
	return "missing"
}

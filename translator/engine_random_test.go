package translator

import (
	"bytes"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

var (
	engineSeed  = flag.Uint64("engine.seed", 1, "TestEngineRandomChanges: first seed (0: one taken from the clock, logged)")
	engineSeeds = flag.Int("engine.seeds", 4, "TestEngineRandomChanges: number of seeds, from -engine.seed up")
	engineSteps = flag.Int("engine.steps", 300, "TestEngineRandomChanges: builds per seed (a build follows one change or a burst)")
)

// TestEngineRandomChanges drives one warm Engine through long random sequences of changes to a
// store and compares every Build with BuildOnce of the same snapshot: config bytes, hash,
// problems and the Gateway API statuses (Result.Parents and Result.Gateways, every field) must be
// identical. The store starts with a generated workload (TLS Secrets, KongPlugins, KongConsumers
// with credential Secrets, two namespaces), objects connecting it to the kinds it lacks (upstream
// policies its Services name, KongClusterPlugins, a second IngressClass, a plugin-config Secret,
// a second Ingress claiming a TLS host), Gateway API objects over the workload's namespaces
// (engine_world_gateway_test.go: GatewayClasses ours and another controller's, labelled
// Namespaces, Gateways with listeners of every protocol, HTTP, gRPC, TCP, UDP and TLS routes,
// ReferenceGrants), and the objects of a dozen golden cases drawn by seed (cluster, consumer and
// service plugins, broken plugins and plugin Secrets, upstream policies, TLS claims, default
// backends, class edge cases, credentials of every type, CA and client certificates,
// EndpointSlices, ExternalName Services, annotations).
//
// Every change picks one of store.Kinds (all of them) and either edits a field translation reads
// (see the mutate* functions: paths, path types, hosts, backends, ports, annotations, classes,
// TLS entries, default backends, creation times (also set next to a rival's), endpoints, Secret
// data and labels, plugin config and fields, consumer usernames and credentials, policy fields,
// the default-class annotation; also the IngressClass controller, which it ignores; GatewayClass
// controllers, Gateway classes and listeners (hostnames, ports, protocols, allowedRoutes
// namespaces, selectors and kinds, certificates), route parentRefs, hostnames, rules, matches,
// filters, backendRefs and annotations, ReferenceGrant froms and tos, Namespace labels), often to
// an invalid value; deletes an object; re-creates one under its name with a
// new UID and creation time; restores a deleted one; clones one under a new name; or upserts a
// copy with the same content. Some changes are undone a few steps later (an Ingress moved to
// another class and back, an IngressClass, GatewayClass, Gateway, ReferenceGrant or Namespace
// deleted and recreated, the default class toggled and back, a GatewayClass controller, a
// Gateway's listeners or a Namespace's labels set back). Most builds follow a single change; some
// follow a burst of several, a few a burst of more than 64 (past the store's and the caches'
// patch limits).
//
// Now and then a build is of the snapshot Without a few objects (as the sync loop builds when
// Kong rejected some), or of one of the last snapshots again; every fourth seed translates with
// zero Options, every fourth other assumes missing Gateways and GatewayClasses (as dump does);
// the router flavor is drawn by seed too (randomFlavor), so warm == cold holds under Kong's
// expressions router as well.
//
// It also checks that a Build leaves the previous Built alone: its config bytes and document
// must still encode to what they did (the sync loop may still be sending them), its problems and
// Gateway API statuses must be what they were (status writers may still be reading them).
//
// The sequence depends only on the seed (prefix-stable: more steps extend it). Flags:
// -engine.seed, -engine.seeds and -engine.steps run other or longer sequences, e.g.
//
//	go test ./translator/ -run TestEngineRandomChanges -engine.seed=0 -engine.seeds=20 -engine.steps=3000
func TestEngineRandomChanges(t *testing.T) {
	first, seeds, steps := *engineSeed, *engineSeeds, *engineSteps
	if first == 0 {
		first = uint64(time.Now().UnixNano())
	}
	if testing.Short() {
		seeds, steps = min(seeds, 2), min(steps, 100)
	}
	counts := map[string]int{}
	run := func(seed uint64) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d, %d steps (rerun: -run TestEngineRandomChanges -engine.seed=%d -engine.seeds=1 -engine.steps=%d)",
				seed, steps, seed, steps)
			for k, n := range runRandomChanges(t, seed, steps) {
				counts[k] += n
			}
		})
	}
	for seed := first; seed < first+uint64(seeds); seed++ {
		run(seed)
	}
	// Long enough runs must have edited, deleted and (re-)created objects of every kind. With
	// two dozen kinds, a rare kind's delete can be missing from a run by chance (about 1% of
	// runs for a kind of weight 1), so up to as many seeds again continue the sequence first:
	// only a generator that never produces an action fails.
	if t.Failed() || seeds*steps < 600 {
		return
	}
	for extra := first + uint64(seeds); len(uncovered(counts)) > 0 && extra < first+2*uint64(seeds); extra++ {
		run(extra)
	}
	for _, miss := range uncovered(counts) {
		t.Errorf("no %s in %d or more steps", miss, seeds*steps)
	}
}

// uncovered lists the actions of each kind the counts lack: an edit, a delete, a (re-)creation.
func uncovered(counts map[string]int) []string {
	var miss []string
	for _, k := range store.Kinds {
		for _, action := range []string{"edit", "delete"} {
			if counts[string(k)+" "+action] == 0 {
				miss = append(miss, action+" of a "+string(k))
			}
		}
		if counts[string(k)+" create"]+counts[string(k)+" recreate"]+counts[string(k)+" restore"] == 0 {
			miss = append(miss, string(k)+" created or re-created")
		}
	}
	return miss
}

// randomOptions are the Options of a seed: most use the defaults; every fourth the zero value
// (class "kong" and KIC's Gateway controller name by default, no cluster domain); every fourth
// other assumes missing Gateways and GatewayClasses, as `kongsync dump` does.
func randomOptions(seed uint64) Options {
	var o Options
	switch seed % 4 {
	case 3:
	case 2:
		o = DefaultOptions()
		o.AssumeMissingGateways = true
	default:
		o = DefaultOptions()
	}
	o.RouterFlavor = randomFlavor(seed)
	o.Features.KongServiceFacade = seed%3 != 1 // on for most seeds, off for some (KIC's default)
	o.KongEnterprise = seed%2 == 0             // licenses sent for half the seeds
	if seed%4 != 3 {
		o.EntitySchemas = testEntitySchemas() // the zero Options know no schema: every custom entity is a problem
	}
	return o
}

// randomFlavor is the router flavor a seed translates for, independently of its other options:
// expressions for seed 1 (the first of a short run), and the three flavors in turn after
// (unset meaning Kong's default, traditional_compatible).
func randomFlavor(seed uint64) RouterFlavor {
	return [...]RouterFlavor{"", RouterExpressions, RouterTraditional}[(seed+seed/4)%3]
}

// runRandomChanges runs one seed's sequence and returns its change counts.
func runRandomChanges(t *testing.T, seed uint64, steps int) map[string]int {
	w := newWorld(t, seed)
	opts := randomOptions(seed)
	run := &randomRun{t: t, seed: seed, w: w, opts: opts, eng: NewEngine(opts)}
	run.check(0, []string{"initial"})
	for step := 1; step <= steps; step++ {
		n := w.burstSize()
		start := len(w.log)
		for range n {
			w.change()
		}
		run.check(step, w.log[start:])
	}
	// Everything pending is applied, then checked once more.
	start := len(w.log)
	for len(w.pending) > 0 {
		w.applyPending(w.pending[0])
	}
	if len(w.log) > start {
		run.check(steps+1, w.log[start:])
	}
	w.report(steps)
	return w.counts
}

// burstSize is the number of changes before the next build: mostly one, sometimes a few, now
// and then more than 64.
func (w *world) burstSize() int {
	switch roll := w.r.IntN(100); {
	case roll < 12:
		return 2 + w.r.IntN(6)
	case roll < 13:
		return 65 + w.r.IntN(20)
	}
	return 1
}

// randomRun is one seed's warm Engine and what its checks compare with.
type randomRun struct {
	t        *testing.T
	seed     uint64
	w        *world
	opts     Options
	eng      *Engine
	prev     Built
	prevJSON []byte
	prevRes  Result            // copies of the previous Built's problems and Gateway API statuses
	recent   []*store.Snapshot // the last snapshots built, for going back to one
}

// check builds a snapshot (see nextSnapshot) warm, compares the result with BuildOnce of it and
// checks that the Build left the previous Built alone. did are the changes since the last check.
func (r *randomRun) check(step int, did []string) {
	r.t.Helper()
	snap, built := r.nextSnapshot()
	got, err := r.eng.Build(snap)
	if err != nil {
		r.t.Fatalf("seed %d, step %d: warm Build: %v\nchanges: %s", r.seed, step, err, strings.Join(did, "; "))
	}
	want, err := BuildOnce(snap, r.opts)
	if err != nil {
		r.t.Fatalf("seed %d, step %d: BuildOnce: %v", r.seed, step, err)
	}
	if msg := builtMismatch(got, want); msg != "" {
		r.t.Fatalf("seed %d, step %d: the warm build of %s differs from BuildOnce of it (options %+v)\n"+
			"changes since the previous build: %s\nearlier changes (newest last):\n  %s\n%s",
			r.seed, step, built, r.opts, strings.Join(did, "; "), strings.Join(r.w.history(12, len(did)), "\n  "), msg)
	}
	r.checkPrevious(step, did)
	r.prev, r.prevJSON = got, bytes.Clone(got.Config.Bytes())
	r.prevRes = cloneStatuses(got.Result)
}

// nextSnapshot returns the snapshot to build next and describes it: mostly the store's, but now
// and then what else the sync loop or a caller may hand the Engine: the snapshot without some
// objects (Kong rejected them), or an earlier snapshot again.
func (r *randomRun) nextSnapshot() (*store.Snapshot, string) {
	w := r.w
	snap, built := w.st.Snapshot(), "the store's snapshot"
	switch roll := w.r.IntN(100); {
	case roll < 6:
		var refs []store.Ref
		for range 1 + w.r.IntN(3) {
			if present := w.refs(w.pickKind(), true); len(present) > 0 {
				refs = append(refs, pick(w.r, present))
			}
		}
		snap, built = snap.Without(refs...), fmt.Sprintf("the store's snapshot Without %v", refs)
	case roll < 8 && len(r.recent) > 1:
		i := w.r.IntN(len(r.recent) - 1)
		snap, built = r.recent[i], fmt.Sprintf("the snapshot built %d builds ago", len(r.recent)-i)
	}
	if r.recent = append(r.recent, snap); len(r.recent) > 8 {
		r.recent = r.recent[1:]
	}
	return snap, built
}

// checkPrevious checks that the previous Built's document and config bytes still encode to what
// they did when it was built, and that its problems and Gateway API statuses (which the status
// writers may still be reading) are what they were.
func (r *randomRun) checkPrevious(step int, did []string) {
	r.t.Helper()
	if r.prev.Config == nil {
		return
	}
	js, err := document.JSON(r.prev.Document)
	if err != nil || !bytes.Equal(js, r.prevJSON) || !bytes.Equal(r.prev.Config.Bytes(), r.prevJSON) {
		r.t.Fatalf("seed %d, step %d: Build modified the previous Built (its document or config bytes)\n"+
			"changes: %s\n%s", r.seed, step, strings.Join(did, "; "), bytesExcerpt(r.prev.Config.Bytes(), r.prevJSON))
	}
	if !slices.Equal(r.prev.Problems, r.prevRes.Problems) || !reflect.DeepEqual(r.prev.Parents, r.prevRes.Parents) ||
		!reflect.DeepEqual(r.prev.Gateways, r.prevRes.Gateways) {
		now, then := problemsText(r.prev.Problems)+statusFields(r.prev.Result), problemsText(r.prevRes.Problems)+statusFields(r.prevRes)
		r.t.Fatalf("seed %d, step %d: Build modified the previous Built's problems or Gateway API statuses\n"+
			"changes: %s\n%s", r.seed, step, strings.Join(did, "; "), lineDiff("now", "then", []byte(now), []byte(then)))
	}
}

// cloneStatuses copies a result's problems and Gateway API statuses, down to their lists.
func cloneStatuses(r Result) Result {
	c := Result{Problems: slices.Clone(r.Problems), Parents: slices.Clone(r.Parents), Gateways: slices.Clone(r.Gateways)}
	for i := range c.Parents {
		c.Parents[i].Listeners = slices.Clone(c.Parents[i].Listeners)
	}
	for i := range c.Gateways {
		ls := slices.Clone(c.Gateways[i].Listeners)
		for j := range ls {
			ls[j].SupportedKinds = slices.Clone(ls[j].SupportedKinds)
		}
		c.Gateways[i].Listeners = ls
	}
	return c
}

// report logs how many changes of each kind and action the sequence made.
func (w *world) report(steps int) {
	keys := make([]string, 0, len(w.counts))
	for k := range w.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s:%d", k, w.counts[k])
	}
	w.t.Logf("%d builds, %d changes:%s", steps, len(w.log), b.String())
}

// Package translator is the one translation engine: an immutable store snapshot in, one Kong
// declarative config out (Engine.Build; BuildOnce for a cold build). It is pure: no clients,
// clocks or loggers; the same snapshot always yields the same document, byte for byte, and
// every object it cannot translate becomes a Problem instead of an error. A build is per-object
// pieces, memoised by what they read (memo.go), and one assemble pass whose stages run in the
// order assemble.go lists them. Files sit in layers (engine, families by file prefix, shared
// builders, core, vocabulary), declared in layers_test.go and drawn in docs/architecture.md.
//
// Semantics follow KIC v3.5.13's traditional router with FillIDs on, for the Ingress v1 family
// (Ingress, IngressClass, Service, EndpointSlice, Secret) and the Kong CRDs kongsync reads.
// Where KIC produces a configuration Kong rejects, or depends on map order, kongsync differs on
// purpose; docs/kic-differences.md lists every such case.
package translator

import (
	"hash/maphash"
	"runtime"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	icp "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// translation is the state of one build that every layer shares: the snapshot it reads, the
// options, and assemble's cross-object decisions. It holds no family's or builder's memos:
// assemble hands each its own (ingressBuild, gwBuild, …, certBuilder). Every map in it is
// looked up, never ranged into output; output lists are sorted before they leave.
type translation struct {
	snap         view // the snapshot, through which pieces record what they read
	opts         Options
	gen          uint64
	kinds        *kindGens // what changed between builds (memokinds.go)
	keep         bool      // the engine keeps entities for the next build
	defaultClass bool
	problems     []Problem
	parents      []ParentStatus // of the Gateway API routes, in visiting order (gwstage.go)
	// streamPlugins are the konghq.com/plugins of the served TCPIngresses and UDPIngresses, per route.
	streamPlugins []routePluginRef
	gateways      []GatewayStatus
	defaults      *defaultValues
	ids           *idSpaces
	seed          maphash.Seed
	nsTag         [2]string   // the last namespace tag made, shared by objects of that namespace
	par           parallelism // how the per-object loops of a build that keeps nothing split (parallel.go)
	cp            classParamsRead

	groupGen uint64 // the build whose grouping of routes the identities hold (ingressstage.go)
	svcMask  uint32 // what the Service-settings and upstream pieces used read (kinds)
	complete bool   // every piece was looked up and every route grouped: memos may be swept
	changed  []int  // the served positions whose piece changed since the last build
	emitted  bool   // the service and upstream lists were patched, not walked (ingressstage.go)
	dropped  bool   // dropAmbiguousPaths dropped paths

	defaultRoute *document.Route // the default backend route, if any
}

// parallelism is how a build's per-object loops split: over workers goroutines, once a loop
// has at least min objects (below that, starting workers costs more than the loop).
type parallelism struct {
	workers, min int
}

// defaultParallelMin is the fewest objects a loop splits for by default.
const defaultParallelMin = 256

// coldParallelism is what a build that keeps nothing uses: one worker per CPU.
func coldParallelism() parallelism {
	return parallelism{workers: runtime.GOMAXPROCS(0), min: defaultParallelMin}
}

// classParamsRead is this build's lookup of the IngressClass and its parameters, done once
// (pieces record the reads each time they use it): like defaultClass, what the build's class
// says, which the class-parameter builder (classparams.go) fills in.
type classParamsRead struct {
	done   bool
	class  *networkingv1.IngressClass // nil: our IngressClass does not exist
	ns     string                     // the parameters' namespace and name, when the reference is usable
	name   string
	refErr string // why spec.parameters cannot be followed; "" when it can (or is absent)
	params *icp.IngressClassParameters
}

// idSpaces are the UUIDv5 namespaces of the entity types whose ids derive from their names.
type idSpaces struct{ services, routes, plugins, consumers, consumerGroups, vaults idSpace }

func newIDSpaces() *idSpaces {
	return &idSpaces{services: newIDSpace("services"), routes: newIDSpace("routes"), plugins: newIDSpace("plugins"),
		consumers: newIDSpace("consumers"), consumerGroups: newIDSpace("consumergroups"), vaults: newIDSpace("vaults")}
}

// problem records one rejected object or field.
func (t *translation) problem(ref store.Ref, field, format string, args ...any) {
	t.problems = append(t.problems, newProblem(ref, field, format, args...))
}

// missingRef records a reference to an object that is not there (see MissingRef).
func (t *translation) missingRef(ref store.Ref, field, format string, args ...any) {
	t.problems = append(t.problems, causedProblem(MissingRef, ref, field, format, args...))
}

// deprecated records something KIC 3.x also accepts and ignores or deprecates (see Deprecated).
func (t *translation) deprecated(ref store.Ref, field, format string, args ...any) {
	t.problems = append(t.problems, causedProblem(Deprecated, ref, field, format, args...))
}

// has reports whether the Kong version translated for has g's feature.
func (t *translation) has(g Gate) bool { return g.Has(t.opts.KongVersion) }

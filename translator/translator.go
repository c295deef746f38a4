// Package translator is the one translation engine: an immutable store snapshot in, one Kong
// declarative config out (Engine.Build; BuildOnce for a cold build). It is pure: no clients,
// clocks or loggers; the same snapshot always yields the same document, byte for byte, and
// every object it cannot translate becomes a Problem instead of an error. A build is per-object
// pieces, memoised by what they read, and one assemble pass (engine.go, memo.go, stages.go;
// docs/architecture.md).
//
// Semantics follow KIC v3.5.13's traditional router with FillIDs on, for the Ingress v1 family
// (Ingress, IngressClass, Service, EndpointSlice, Secret) and the Kong CRDs kongsync reads.
// Where KIC produces a configuration Kong rejects, or depends on map order, kongsync differs on
// purpose; docs/kic-differences.md lists every such case.
package translator

import (
	"hash/maphash"

	"github.com/blang/semver/v4"
	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Options are the settings that change translation, mirroring KIC's flags of the same meaning.
type Options struct {
	// IngressClass is the class this controller serves (KIC's --ingress-class, default "kong").
	IngressClass string
	// ClusterDomain completes the DNS name of Services annotated
	// ingress.kubernetes.io/service-upstream (KIC's --cluster-domain, default "": no domain appended).
	ClusterDomain string
	// GatewayControllerName is the GatewayClass controllerName whose Gateways kongsync serves
	// (KIC's --gateway-api-controller-name); empty means DefaultGatewayControllerName.
	GatewayControllerName string
	// AssumeMissingGateways is for manifests that never met a cluster (`kongsync dump`): a
	// route's parent Gateway, or that Gateway's GatewayClass, that is not among the objects is
	// assumed to exist and be kongsync's, and only the checks that need it are skipped.
	AssumeMissingGateways bool
	// KongVersion is the Kong Gateway version translated for (major.minor.patch): features it
	// lacks are translated as KIC does for such a Kong, or left out with a problem (Gates). The
	// live loop sets the lowest version its replicas report in GET /; the zero value means
	// DefaultKongVersion.
	KongVersion semver.Version
	// Hardening are the opt-in refusals a platform team can switch on (docs/security.md).
	Hardening Hardening
}

// Hardening are refusals that KIC does not make, each a flag of `kongsync run`, `dump` and
// `diff`; the zero value translates as KIC does. Each refusal is a problem on the object.
type Hardening struct {
	// RefuseExternalNameServices (--refuse-external-name-services): an ExternalName Service
	// gives its upstreams no targets. Its externalName can be any host, another namespace's
	// Services or the cluster's own endpoints included (the CVE-2021-25740 pattern); so can
	// ingress.kubernetes.io/service-upstream on it, through the Service's DNS name.
	RefuseExternalNameServices bool
	// RefuseUnmanagedEndpointSlices (--refuse-unmanaged-endpoint-slices): an EndpointSlice not
	// managed by Kubernetes' endpoint controller (endpointslice.kubernetes.io/managed-by other
	// than endpointslice-controller.k8s.io) gives no targets: whoever can write one can point a
	// Service at any address, the same pattern.
	RefuseUnmanagedEndpointSlices bool
}

// DefaultOptions are KIC v3.5.13's defaults.
func DefaultOptions() Options {
	return Options{IngressClass: "kong", ClusterDomain: "", GatewayControllerName: DefaultGatewayControllerName,
		KongVersion: DefaultKongVersion}
}

// Result is a translation's output: the document and the problems met on the way.
type Result struct {
	Document *document.Document
	Problems []Problem
	// Parents are the Gateway API routes' parentRefs to Gateways of kongsync's classes and how
	// each was admitted, by route kind, namespace, name and parentRef index (status/ writes them).
	Parents []ParentStatus
	// Gateways are the Gateways of kongsync's classes with their listeners' status.
	Gateways []GatewayStatus
}

// stubUpstream is the entity KIC sends when a configuration would otherwise be empty: DB-less
// Kong does not report itself ready after an empty configuration.
const stubUpstream = "kong"

// translation is the state of one build: the pieces it uses (through the engine's memos, when
// it keeps them) and assemble's cross-object decisions. Every map in it is looked up, never
// ranged into output; output lists are sorted before they leave.
type translation struct {
	snap         view // the snapshot, through which pieces record what they read
	opts         Options
	gen          uint64
	memos        *memos
	keep         bool // the engine keeps entities for the next build
	defaultClass bool
	problems     []Problem
	parents      []ParentStatus // of the Gateway API routes, in visiting order (gateway.go)
	routePieces  []*routePiece  // the served Gateway API routes' pieces, in visiting order
	// streamPlugins are the konghq.com/plugins of the served TCPIngresses and UDPIngresses, per route.
	streamPlugins []routePluginRef
	groups        *consumerGroupSet // the served KongConsumerGroups
	consumerList  consumerList      // the served KongConsumers' part of the document
	gateways      []GatewayStatus
	defaults      *defaultValues
	ids           *idSpaces
	seed          maphash.Seed
	nsTag         [2]string // the last namespace tag made, shared by objects of that namespace
	cp            classParamsRead

	groupGen uint64 // the build whose grouping of routes the identities hold (stages.go)
	svcMask  uint32 // what the Service-settings and upstream pieces used read (kinds)
	complete bool   // every piece was looked up and every route grouped: memos may be swept
	changed  []int  // the served positions whose piece changed since the last build
	emitted  bool   // the service and upstream lists were patched, not walked (stages.go)
	dropped  bool   // dropAmbiguousPaths dropped paths
	// prevPS and prevServed are the last build's served pieces and list (stages.go).
	prevPS     []*ingressPiece
	prevServed *servedIngresses

	certs      map[string]*certEntry // by "namespace/name" of the Secret
	certOrder  []*certEntry          // Secrets that produce certificates, in claim order
	sniOwner   map[string]*certEntry // TLS host → the Secret serving it
	clientRefs []clientCertRef       // services whose client_certificate awaits the merged id
	caCerts    *caCerts              // the CA certificates in the output, their Secrets

	defaultRoute *document.Route // the default backend route, if any
}

// idSpaces are the UUIDv5 namespaces of the entity types whose ids derive from their names.
type idSpaces struct{ services, routes, plugins, consumers, consumerGroups idSpace }

func newIDSpaces() *idSpaces {
	return &idSpaces{services: newIDSpace("services"), routes: newIDSpace("routes"), plugins: newIDSpace("plugins"),
		consumers: newIDSpace("consumers"), consumerGroups: newIDSpace("consumergroups")}
}

// assemble makes every decision across objects from the pieces: which Ingresses are served and
// in what order, TLS host claims, the default backend, the Kong services that routes share,
// certificates, consumers, ambiguous paths, plugins, ordering. It runs on every build, so it
// stays linear in the objects and allocates little when pieces are reused.
func (t *translation) assemble() Result {
	doc := document.New()
	served := t.selectIngresses()
	ings := served.list
	t.collectTLS(ings, served.tls)
	streams := t.selectStreams()
	t.streamTLS(streams)
	t.gatewayCerts()
	ps, changed, full := t.servedPieces(served)
	t.changed = changed
	dirty, regrouped := t.group(ps, changed, full)
	t.translateDefaultBackend(ings, ps, served.defs, regrouped)
	doc.CACertificates = t.caCertificates()
	doc.Services, doc.Upstreams = t.emit(dirty, regrouped)
	doc.Services, doc.Upstreams = t.gatewayPart(doc.Services, doc.Upstreams)
	doc.Services, doc.Upstreams = t.streamPart(streams, doc.Services, doc.Upstreams)
	t.countAttached()
	t.settle(served, ps, regrouped)
	t.complete = full && regrouped
	doc.Certificates = t.buildCertificates()
	t.groups = t.consumerGroups()
	doc.ConsumerGroups = t.groups.list
	t.consumerList = t.translateConsumers()
	doc.Consumers, doc.ConsumerGroupConsumers = t.consumerList.consumers, t.consumerList.members
	sortDocument(doc)
	doc.Services = t.dropAmbiguousPaths(doc.Services, ings, ps)
	doc.Plugins = t.plugins(doc, served, ps)
	t.dropDuplicateIDs(doc)
	t.classParamsProblems()
	if document.IsEmpty(doc) {
		doc.Upstreams = []*document.Upstream{{Upstream: kong.Upstream{Name: kong.String(stubUpstream)}}}
	}
	return Result{Document: doc, Problems: finishProblems(t.problems), Parents: t.parents, Gateways: t.gateways}
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

package translator

// The package's exported types, in one file: what callers (cmd/, sync/, status/, admission/)
// hand the translator and get back.

import (
	"fmt"
	"time"

	"github.com/blang/semver/v4"

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
	// RouterFlavor is the router_flavor of the Kong translated for: routes carry traditional
	// match fields (paths, hosts, headers, …) or, under RouterExpressions, an expression and a
	// priority, as KIC writes them for that flavor. The live loop sets the flavor its replicas
	// report in GET /; the zero value means RouterTraditionalCompatible, Kong's default.
	RouterFlavor RouterFlavor
	// Features are KIC's feature gates that change translation (KIC's --feature-gates).
	Features Features
	// DrainSupport keeps terminating endpoints as targets of weight 0 (KIC's
	// --enable-drain-support), so that Kong stops sending them new connections but keeps the
	// ones they hold; without it they are left out.
	DrainSupport bool
	// GatewayToReconcile, "namespace/name" (KIC's --gateway-to-reconcile), limits the Gateway
	// API translation to that one Gateway: only routes attached to it, and its listeners'
	// certificates, are translated; "" translates every Gateway of kongsync's classes.
	GatewayToReconcile string
	// KongEnterprise says the Kong translated for is Kong Enterprise (KIC's EnterpriseEdition,
	// from the version GET / reports: IsKongEnterprise): only then are KongLicenses sent, as
	// Kong's licenses entity; otherwise each enabled KongLicense gets a problem.
	KongEnterprise bool
	// Now, when set, is the clock of KIC's expiry check of CA certificates: one whose NotAfter
	// is before Now() is left out with a problem (Now is read once a build). nil (the zero
	// value) checks no expiry, so that a build is a function of its snapshot alone (the golden
	// tests set a fixed clock); the live loop, the admission webhook and dump set time.Now,
	// which KIC reads. Result.NextExpiry says when the output would change (the live loop builds
	// again then, with no event: sync/expiry.go).
	// Options differing only in Now are the same options for Engine.SetOptions.
	Now func() time.Time
	// EntitySchemas are Kong's schemas of the custom entity types KongCustomEntities name
	// (KIC reads GET /schemas/<type> of a Kong): which fields are foreign keys to fill from the
	// KongPlugin's attachments, and which fields the entity may and must have. The live loop
	// reads them from a replica (sync), `kongsync dump` and `diff` use BundledEntitySchemas; a
	// type without a schema here makes its KongCustomEntities skipped with a problem. The
	// translator never fetches them: they are an input, like the Kong version.
	EntitySchemas EntitySchemas
}

// EntitySchemas are schemas of Kong entity types, by type (degraphql_routes, ...).
type EntitySchemas map[string]EntitySchema

// EntitySchema is what kongsync reads of Kong's schema of an entity type (GET /schemas/<type>,
// ParseEntitySchema), or why it has none.
type EntitySchema struct {
	// Fields are the type's fields in Kong's order.
	Fields []SchemaField
	// Err, when set, says why the schema could not be read (Kong knows no such type, or did not
	// answer): the KongCustomEntities of the type are skipped with a problem quoting it.
	Err string
	// Pending says the schema is being read: the KongCustomEntities of the type are left out
	// without a problem, and the sync loop posts no configuration made so.
	Pending bool
}

// SchemaField is one field of a Kong entity schema, with the attributes translation uses.
type SchemaField struct {
	Name string
	// Type is Kong's field type: string, integer, number, boolean, array, set, map, record,
	// json or foreign.
	Type string
	// Reference is the entity type a foreign field points at (services, routes, consumers, ...).
	Reference string
	// Required fields must be set unless Kong fills them: Auto (ids, timestamps) or HasDefault.
	Required, Auto, HasDefault bool
}

// Features are the KIC feature gates the translator acts on, with KIC v3.5.13's defaults in
// DefaultOptions. The other gates act elsewhere (GatewayAlpha: which kinds are read) or are
// refused at start (cmd/kongsync).
type Features struct {
	// RewriteURIs (KIC's gate of that name, default off) translates an Ingress's
	// konghq.com/rewrite annotation into a request-transformer plugin on each of its rule
	// routes; off, the annotation makes the Ingress's routes skipped, with a problem.
	RewriteURIs bool
	// KongServiceFacade (KIC's gate of that name, default off) lets an Ingress backend name a
	// KongServiceFacade (backend.resource): one Kong service per facade, shared by every
	// Ingress naming it; off, such backends are skipped with a problem, as KIC skips them.
	KongServiceFacade bool
}

// RouterFlavor is Kong's router_flavor setting.
type RouterFlavor string

// Kong's router flavors.
const (
	RouterTraditional           RouterFlavor = "traditional"
	RouterTraditionalCompatible RouterFlavor = "traditional_compatible"
	RouterExpressions           RouterFlavor = "expressions"
)

// ParseRouterFlavor returns the flavor named s, or an error naming the flavors Kong knows.
func ParseRouterFlavor(s string) (RouterFlavor, error) {
	switch f := RouterFlavor(s); f {
	case RouterTraditional, RouterTraditionalCompatible, RouterExpressions:
		return f, nil
	}
	return "", fmt.Errorf("unknown router flavor %q (Kong's: traditional, traditional_compatible, expressions)", s)
}

// Expressions reports whether routes are written as expressions.
func (f RouterFlavor) Expressions() bool { return f == RouterExpressions }

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
	// NextExpiry is the earliest NotAfter among the CA certificates in the document (zero when
	// none, or without Options.Now): a build after it leaves that certificate out, so the live
	// loop builds again then.
	NextExpiry time.Time
}

// DefaultGatewayControllerName is KIC's GatewayClass controllerName (--gateway-api-controller-name).
const DefaultGatewayControllerName = "konghq.com/kic-gateway-controller"

// GatewayStatus is what kongsync reports of one Gateway of its classes (status/ writes it).
type GatewayStatus struct {
	Gateway   store.Ref
	Listeners []ListenerStatus // in spec order
}

// ListenerStatus is one listener's status: the route kinds it takes, how many routes attached,
// and whether its references (certificates, route kinds) resolved.
type ListenerStatus struct {
	Name               string
	SupportedKinds     []string
	AttachedRoutes     int32
	ResolvedRefs       bool
	ResolvedRefsReason string // ResolvedRefs, InvalidCertificateRef, RefNotPermitted, InvalidRouteKinds
	Message            string
}

// ParentStatus is how one parentRef of a route was admitted: the route's status.parents entry
// kongsync owns (status/ writes it). Only parentRefs to Gateways of kongsync's classes get one.
type ParentStatus struct {
	Route       store.Ref
	Index       int    // in spec.parentRefs
	Gateway     string // "namespace/name"
	SectionName string
	Port        int32
	Accepted    bool
	Reason      string // Accepted's reason: Accepted, NotAllowedByListeners, NoMatchingListenerHostname, NoMatchingParent
	Message     string
	// ResolvedRefs is the route's ResolvedRefs condition: true, or false with its reason
	// (InvalidKind, BackendNotFound, RefNotPermitted) and message (the first failing backendRef's
	// field and problem), also for a route no parent accepted (KIC writes it on every parent;
	// the backendRefs are then resolved for the condition alone, without problems).
	ResolvedRefs        bool
	ResolvedRefsReason  string
	ResolvedRefsMessage string
	Assumed             bool     // offline: the Gateway or its class is not among the manifests
	Listeners           []string // the listeners the route attached to
}

// Listener ResolvedRefs reasons.
const (
	ReasonInvalidCertificateRef = "InvalidCertificateRef"
	ReasonInvalidRouteKinds     = "InvalidRouteKinds"
)

// Package translator turns an immutable store snapshot into one Kong declarative config. It is
// pure: no clients, clocks or loggers; the same snapshot always yields the same document, byte
// for byte, and every object it cannot translate becomes a Problem instead of an error.
//
// Semantics follow KIC v3.5.13's traditional router with FillIDs on, for the Ingress v1 family
// (Ingress, IngressClass, Service, EndpointSlice, Secret). Where KIC produces a configuration
// Kong rejects, or depends on map order, kongsync differs on purpose; docs/kic-differences.md
// lists every such case.
package translator

import (
	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Options are the settings that change translation, mirroring KIC's flags of the same meaning.
type Options struct {
	// IngressClass is the class this controller serves (KIC's --ingress-class, default "kong").
	IngressClass string
	// ClusterDomain completes the DNS name of Services annotated
	// ingress.kubernetes.io/service-upstream (KIC's --cluster-domain, default "cluster.local").
	ClusterDomain string
}

// DefaultOptions are KIC v3.5.13's defaults.
func DefaultOptions() Options {
	return Options{IngressClass: "kong", ClusterDomain: "cluster.local"}
}

// Result is a translation's output: the document and the problems met on the way.
type Result struct {
	Document *document.Document
	Problems []Problem
}

// stubUpstream is the entity KIC sends when a configuration would otherwise be empty: DB-less
// Kong does not report itself ready after an empty configuration.
const stubUpstream = "kong"

// translation is the state of one Translate call. Every map in it is looked up, never ranged
// into output; output lists are sorted before they leave.
type translation struct {
	snap         *store.Snapshot
	opts         Options
	defaultClass bool
	problems     []Problem
	defaults     defaultValues
	ids          struct{ services, routes idSpace }
	nsTag        [2]string // the last namespace tag made, shared by objects of that namespace

	services map[string]*kongService // by Kong service name
	svcInfo  map[*corev1.Service]*serviceInfo

	certs      map[string]*certEntry // by "namespace/name" of the Secret
	certOrder  []*certEntry          // Secrets that produce certificates, in claim order
	sniOwner   map[string]*certEntry // TLS host → the Secret serving it
	clientRefs []clientCertRef       // services whose client_certificate awaits the merged id
	caCertIDs  map[string]bool       // ids of the CA certificates in the output

	defaultKS    string          // Kong service holding the default backend route
	defaultRoute *document.Route // that route
	preDrop      []*document.Service

	cache *Cache     // per-object results of earlier translations; nil for Translate
	rec   *rulesMemo // what the Ingress being translated reads and produces, when caching
}

// translated is a Result with the translation state it came from, which a Cache keeps.
type translated struct {
	Result
	t *translation
}

func translateState(snap *store.Snapshot, opts Options, cache *Cache) translated {
	if opts.IngressClass == "" {
		opts.IngressClass = DefaultOptions().IngressClass
	}
	t := &translation{
		cache:        cache,
		snap:         snap,
		opts:         opts,
		defaultClass: snap.IsDefaultClass(opts.IngressClass),
		services:     make(map[string]*kongService, snap.Len(store.KindService)),
		svcInfo:      make(map[*corev1.Service]*serviceInfo, snap.Len(store.KindService)),
		certs:        map[string]*certEntry{},
		sniOwner:     map[string]*certEntry{},
		caCertIDs:    map[string]bool{},
		defaults:     newDefaultValues(),
	}
	if cache != nil {
		t.defaults = cache.defaults
	}
	t.ids.services, t.ids.routes = newIDSpace("services"), newIDSpace("routes")
	doc := document.New()
	ings := t.selectIngresses()
	t.collectTLS(ings)
	settings := make([]*routeSettings, len(ings))
	for i, ing := range ings {
		settings[i] = t.routeSettingsFor(ing)
		t.rulesFor(ing, settings[i])
	}
	t.translateDefaultBackend(ings, settings)
	doc.CACertificates = t.caCertificates()
	doc.Services, doc.Upstreams = t.buildServices()
	doc.Certificates = t.buildCertificates()
	doc.Consumers = t.translateConsumers()
	sortDocument(doc)
	t.preDrop = doc.Services
	doc.Services = t.dropAmbiguousPaths(doc.Services, ings, settings)
	doc.Plugins = t.buildPlugins(doc)
	if document.IsEmpty(doc) {
		doc.Upstreams = []*document.Upstream{{Upstream: kong.Upstream{Name: kong.String(stubUpstream)}}}
	}
	return translated{Result{Document: doc, Problems: finishProblems(t.problems)}, t}
}

// problem records one rejected object or field.
func (t *translation) problem(ref store.Ref, field, format string, args ...any) {
	t.problems = append(t.problems, newProblem(ref, field, format, args...))
}

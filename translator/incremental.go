package translator

import (
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Cache makes repeated translations of a changing store cheap: it remembers, per object, what
// translating that object produced and which other objects it read, and reuses the result
// while none of them changed. Cache.Translate returns exactly what Translate returns for the
// same snapshot (incremental_test.go checks this over random change sequences and the golden
// corpus); only the work differs.
//
// Objects are keyed by pointer. Snapshot objects are immutable and the store hands out a new
// pointer for every new version, so pointer equality means "unchanged" exactly, for objects
// with a resourceVersion and for manifest objects without one alike; a key kept in the cache
// cannot be reused by another object because the cache keeps it alive. Dependencies are
// recorded as the pointers read (nil for "was missing") and compared on reuse:
//
//   - an Ingress's rules depend on its route settings and on the Services its backends name;
//   - its route settings are cached whole; a Service's annotation settings only when they read
//     no other object (client-cert and ca-certificates-secrets read Secrets);
//   - a Kong service depends on its Service, settings and the exact routes attached to it;
//   - an upstream on its Service, settings, port, the Service's EndpointSlices and the
//     KongUpstreamPolicy it names (the pointer found, nil for missing).
//
// Decisions across objects (Ingress order, TLS host claims, default backend, certificates, CA
// certificates, consumers, plugins, sorting, problems) are recomputed on every call from the
// cached pieces. Plugins are rebuilt whole from the final document and the snapshot (KongPlugins,
// KongClusterPlugins, Secrets, annotated Ingresses, Services and KongConsumers), so they need no
// dependency tracking; the fast path keeps the previous plugins only when no changed Ingress
// carries konghq.com/plugins (incremental_fast.go). Reused entities keep their pointers, so an encoder can cache their bytes too
// (document.JSONCache). Entities in a Result are shared with later Results: never modify them.
//
// A Cache is for one Options value and one caller at a time (the sync loop); it holds no clock
// or global state, and its methods are safe to call from several goroutines (they serialize).
type Cache struct {
	mu       sync.Mutex
	opts     Options
	defaults defaultValues
	gen      uint64
	used     [5]int // entries used in this generation, per map below

	settings  map[*networkingv1.Ingress]*settingsMemo
	rules     map[*networkingv1.Ingress]*rulesMemo
	svcInfo   map[*corev1.Service]*infoMemo
	services  map[string]*serviceMemo            // by Kong service name
	upstreams map[string]*upstreamMemo           // by Kong service name
	plugins   map[pluginMemoKey]*document.Plugin // the last plugin pass's entities (pluginattach.go)

	last *lastBuild // the previous result, for fastTranslate
	// patched and full count the calls answered by patching the previous result and by a
	// (cached) full translation.
	patched, full int
}

// Stats reports how many Translate calls patched the previous result and how many ran a full
// translation (with cached pieces): tests and benchmarks use it to see which path ran.
func (c *Cache) Stats() (patched, full int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.patched, c.full
}

// NewCache returns an empty cache for translations with opts.
func NewCache(opts Options) *Cache {
	if opts.IngressClass == "" {
		opts.IngressClass = DefaultOptions().IngressClass
	}
	return &Cache{
		opts: opts, defaults: newDefaultValues(),
		settings:  map[*networkingv1.Ingress]*settingsMemo{},
		rules:     map[*networkingv1.Ingress]*rulesMemo{},
		svcInfo:   map[*corev1.Service]*infoMemo{},
		services:  map[string]*serviceMemo{},
		upstreams: map[string]*upstreamMemo{},
	}
}

// Translate is Translate(snap, opts) computed from the results of earlier calls where the
// objects they read are unchanged. Entries no longer used are dropped.
func (c *Cache) Translate(snap *store.Snapshot) Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	if res, ok := c.fastTranslate(snap); ok {
		c.patched++
		return res
	}
	c.full++
	c.gen++
	c.used = [5]int{}
	res := translateState(snap, c.opts, c)
	sweep(c.settings, c.used[0], c.gen, func(m *settingsMemo) uint64 { return m.gen })
	sweep(c.rules, c.used[1], c.gen, func(m *rulesMemo) uint64 { return m.gen })
	sweep(c.svcInfo, c.used[2], c.gen, func(m *infoMemo) uint64 { return m.gen })
	sweep(c.services, c.used[3], c.gen, func(m *serviceMemo) uint64 { return m.gen })
	sweep(c.upstreams, c.used[4], c.gen, func(m *upstreamMemo) uint64 { return m.gen })
	c.remember(res.t, res.Result)
	return res.Result
}

// sweep deletes entries not used in generation gen. used counts the entries that were; the
// map is scanned only when stale entries make up a fifth of it, so one change costs no scan.
func sweep[K comparable, V any](m map[K]V, used int, gen uint64, genOf func(V) uint64) {
	if len(m)-used <= max(64, used/4) {
		return
	}
	for k, v := range m {
		if genOf(v) != gen {
			delete(m, k)
		}
	}
}

type settingsMemo struct {
	gen      uint64
	rs       *routeSettings
	problems []Problem
}

// routeSettingsFor is parseRouteSettings, reused while the Ingress is unchanged.
func (t *translation) routeSettingsFor(ing *networkingv1.Ingress) *routeSettings {
	c := t.cache
	if c == nil {
		return t.parseRouteSettings(ing)
	}
	c.used[0]++
	if m, ok := c.settings[ing]; ok {
		m.gen = c.gen
		t.problems = append(t.problems, m.problems...)
		return m.rs
	}
	before := len(t.problems)
	rs := t.parseRouteSettings(ing)
	c.settings[ing] = &settingsMemo{gen: c.gen, rs: rs, problems: slices.Clone(t.problems[before:])}
	return rs
}

// rulesMemo is what translating one Ingress's rules read and produced.
type rulesMemo struct {
	gen      uint64
	rs       *routeSettings
	deps     []serviceDep
	uses     []ruleUse
	problems []Problem
}

// serviceDep is a Service an Ingress backend named, as it was found (nil: missing).
type serviceDep struct {
	namespace, name string
	svc             *corev1.Service
}

// ruleUse is one route an Ingress attached to a Kong service.
type ruleUse struct {
	name, namespace, backend string
	port                     portDef
	svc                      *corev1.Service
	svcPort                  *corev1.ServicePort
	route                    *document.Route
}

func (m *rulesMemo) dependOn(ns, name string, svc *corev1.Service) {
	if m != nil {
		m.deps = append(m.deps, serviceDep{ns, name, svc})
	}
}

func (m *rulesMemo) use(ks *kongService, r *document.Route) {
	if m != nil {
		m.uses = append(m.uses, ruleUse{name: ks.name, namespace: ks.svc.Namespace, backend: ks.svc.Name,
			port: ks.port, svc: ks.svc, svcPort: ks.svcPort, route: r})
	}
}

// rulesFor is translateRules, replayed from the cache while the Ingress, its settings and the
// Services it named are unchanged.
func (t *translation) rulesFor(ing *networkingv1.Ingress, rs *routeSettings) {
	c := t.cache
	if c == nil {
		t.translateRules(ing, rs)
		return
	}
	c.used[1]++
	if m, ok := c.rules[ing]; ok && m.rs == rs && t.depsUnchanged(m.deps) {
		m.gen = c.gen
		t.replayRules(m)
		return
	}
	before := len(t.problems)
	t.rec = &rulesMemo{gen: c.gen, rs: rs}
	t.translateRules(ing, rs)
	t.rec.problems = slices.Clone(t.problems[before:])
	c.rules[ing], t.rec = t.rec, nil
}

func (t *translation) depsUnchanged(deps []serviceDep) bool {
	for _, d := range deps {
		svc, _ := t.snap.Service(d.namespace, d.name)
		if svc != d.svc {
			return false
		}
	}
	return true
}

// replayRules attaches the remembered routes to their Kong services, creating those on first
// use exactly as resolveBackend would (a Kong service's fields depend only on its Service).
func (t *translation) replayRules(m *rulesMemo) {
	for i := range m.uses {
		u := &m.uses[i]
		ks, ok := t.services[u.name]
		if !ok {
			ks = t.newKongService(u.namespace, u.backend, u.port, u.svc, u.svcPort)
		}
		ks.fromRules = true
		ks.routes = append(ks.routes, u.route)
	}
	t.problems = append(t.problems, m.problems...)
}

type infoMemo struct {
	gen      uint64
	info     *serviceInfo
	problems []Problem
}

// readsOthers reports whether a Service's settings depend on objects other than the Service.
func readsOthers(svc *corev1.Service) bool {
	a := svc.Annotations
	return a[annClientCert] != "" || a[annCACertSecrets] != ""
}

func (t *translation) cachedServiceInfo(svc *corev1.Service) *serviceInfo {
	if t.cache == nil {
		return nil
	}
	m, ok := t.cache.svcInfo[svc]
	if !ok {
		return nil
	}
	m.gen = t.cache.gen
	t.cache.used[2]++
	t.problems = append(t.problems, m.problems...)
	return m.info
}

func (t *translation) storeServiceInfo(svc *corev1.Service, info *serviceInfo, problems []Problem) {
	if t.cache == nil {
		return
	}
	if readsOthers(svc) {
		return
	}
	t.cache.used[2]++
	t.cache.svcInfo[svc] = &infoMemo{gen: t.cache.gen, info: info, problems: slices.Clone(problems)}
}

// serviceMemo is a Kong service built from a Service, its settings and its routes.
type serviceMemo struct {
	gen       uint64
	svc       *corev1.Service
	info      *serviceInfo
	portNum   int32
	svcPort   corev1.ServicePort
	hasPort   bool
	fromRules bool
	out       *document.Service
}

func (m *serviceMemo) matches(ks *kongService, info *serviceInfo) bool {
	return m.svc == ks.svc && m.info == info && m.fromRules == ks.fromRules && m.portNum == ks.portNumber &&
		samePort(m.hasPort, m.svcPort, ks.svcPort) && slices.Equal(m.out.Routes, ks.routes)
}

func samePort(has bool, p corev1.ServicePort, q *corev1.ServicePort) bool {
	if q == nil {
		return !has
	}
	return has && p == *q
}

// serviceFor is buildService, reused while its inputs are the same. Services with a client
// certificate are always rebuilt: the certificate id is set after merging certificates.
func (t *translation) serviceFor(ks *kongService, info *serviceInfo) *document.Service {
	c := t.cache
	if c == nil || info.clientCert != nil {
		return t.buildService(ks, info)
	}
	sortRoutes(ks.routes)
	c.used[3]++
	if m, ok := c.services[ks.name]; ok && m.matches(ks, info) {
		m.gen = c.gen
		return m.out
	}
	m := &serviceMemo{gen: c.gen, svc: ks.svc, info: info, portNum: ks.portNumber, fromRules: ks.fromRules,
		out: t.buildService(ks, info)}
	if ks.svcPort != nil {
		m.svcPort, m.hasPort = *ks.svcPort, true
	}
	c.services[ks.name] = m
	return m.out
}

// upstreamMemo is an upstream built from a Service, its settings, port and EndpointSlices.
type upstreamMemo struct {
	gen     uint64
	svc     *corev1.Service
	info    *serviceInfo
	svcPort corev1.ServicePort
	hasPort bool
	slices  []*discoveryv1.EndpointSlice
	policy  policyRead
	out     *document.Upstream
	// problems are those building the targets reported (bad addresses, ports, external names)
	// and those of its KongUpstreamPolicy (missing, invalid).
	problems []Problem
}

// upstreamFor is buildUpstream, reused while its inputs are the same.
func (t *translation) upstreamFor(ks *kongService, info *serviceInfo) *document.Upstream {
	c := t.cache
	if c == nil {
		return t.buildUpstream(ks, info, t.upstreamPolicy(ks.svc))
	}
	eps := t.snap.EndpointSlicesFor(ks.svc.Namespace, ks.svc.Name)
	c.used[4]++
	if m, ok := c.upstreams[ks.name]; ok && m.svc == ks.svc && m.info == info &&
		samePort(m.hasPort, m.svcPort, ks.svcPort) && slices.Equal(m.slices, eps) && *m.out.Name == ks.host &&
		t.policyUnchanged(ks.svc, m.policy) {
		m.gen = c.gen
		t.problems = append(t.problems, m.problems...)
		return m.out
	}
	before := len(t.problems)
	pr := t.upstreamPolicy(ks.svc)
	m := &upstreamMemo{gen: c.gen, svc: ks.svc, info: info, slices: eps, policy: pr, out: t.buildUpstream(ks, info, pr)}
	m.problems = slices.Clone(t.problems[before:])
	if ks.svcPort != nil {
		m.svcPort, m.hasPort = *ks.svcPort, true
	}
	c.upstreams[ks.name] = m
	return m.out
}

// sortRoutes orders routes by name, descending, as sortDocument does; sorted input is left
// untouched, so routes shared with earlier results are never written.
func sortRoutes(rs []*document.Route) {
	cmp := func(a, b *document.Route) int { return strings.Compare(*b.Name, *a.Name) }
	if !slices.IsSortedFunc(rs, cmp) {
		slices.SortStableFunc(rs, cmp)
	}
}

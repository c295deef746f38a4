package translator

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Kong service defaults KIC sets on every service it generates.
const (
	defaultTimeout  = 60000
	defaultRetries  = 5
	defaultProtocol = "http"
)

// defaultValues are the pointers every generated entity shares for KIC's default field values,
// so that 10,000 routes do not allocate 70,000 copies of false, true, 0 and "v0". Entities are
// never mutated after translation, so sharing is safe; a field override replaces the pointer.
type defaultValues struct {
	yes, no                         *bool
	zero, code426, timeout, retries *int
	v0, http, slash, roundRobin     *string
	ports                           map[int32]*int // service ports, shared by number
	// Gateway API route protocols, by the parent listeners' protocols (gwhttp.go).
	protoHTTP, protoHTTPS, protoBoth []*string
}

// port returns the shared pointer to port number n. A Cache's translations share the map, one
// at a time (Cache serializes them).
func (d *defaultValues) port(n int32) *int {
	p, ok := d.ports[n]
	if !ok {
		p = kong.Int(int(n))
		d.ports[n] = p
	}
	return p
}

func newDefaultValues() defaultValues {
	return defaultValues{
		yes: kong.Bool(true), no: kong.Bool(false),
		zero: kong.Int(0), code426: kong.Int(426), timeout: kong.Int(defaultTimeout), retries: kong.Int(defaultRetries),
		v0: kong.String("v0"), http: kong.String(defaultProtocol), slash: kong.String("/"), roundRobin: kong.String("round-robin"),
		ports:     map[int32]*int{},
		protoHTTP: kong.StringSlice("http"), protoHTTPS: kong.StringSlice("https"), protoBoth: kong.StringSlice("http", "https"),
	}
}

// ksIdent is one Kong service name with the host and id derived from it, made once and shared
// by every piece that routes to it; assemble groups routes into Kong services through it. It
// also keeps the entity the last build made for that name, and what it was made from.
type ksIdent struct {
	name, host, id string
	gen            uint64      // the grouping (build) whose Kong service ks holds
	dead           bool        // dropped from the table: pieces holding it are recomputed
	ks             kongService // its Kong service in grouping gen, storage reused
	out            *document.Service
	in             serviceInputs
	route0         *document.Route // out.Routes[0] and len(out.Routes), read without touching out
	nroutes        int
	// info and up are the pieces of the Kong service's Service settings and upstream.
	info slot[*corev1.Service, *serviceInfo]
	up   slot[upstreamIn, *document.Upstream]
	// svcPos and upPos are its places in the last emitted lists (-1: not emitted); emitGen the
	// last build that emitted it again without walking every Kong service (stages.go).
	svcPos, upPos int
	emitGen       uint64
}

// current is the identity's Kong service in the grouping of build groupGen, or nil.
func (id *ksIdent) current(groupGen uint64) *kongService {
	if id.gen == groupGen {
		return &id.ks
	}
	return nil
}

// identTable interns Kong service identities by name, and keeps them in the two orders the
// document lists them in (services by name, upstreams by host), so that a build emits them in
// order without sorting; identities new since the last build are merged in.
type identTable struct {
	m              map[string]*ksIdent
	epoch          uint64 // counts the sweeps that dropped identities
	used           int
	byName, byHost []*ksIdent
	pending        []*ksIdent // interned, not yet in byName and byHost
}

// ordered merges the pending identities into byName and byHost.
func (tb *identTable) ordered() {
	if len(tb.pending) == 0 {
		return
	}
	byName := func(a, b *ksIdent) int { return strings.Compare(a.name, b.name) }
	byHost := func(a, b *ksIdent) int { return strings.Compare(a.host, b.host) }
	tb.byName = mergeSorted(tb.byName, tb.pending, byName)
	tb.byHost = mergeSorted(tb.byHost, tb.pending, byHost)
	tb.pending = tb.pending[:0]
}

// mergeSorted returns sorted list with add merged in; add is sorted in place. A few additions to
// a long list cost a binary search each and one copy.
func mergeSorted[T any](list, add []T, cmp func(a, b T) int) []T {
	slices.SortFunc(add, cmp)
	if len(list) == 0 {
		return slices.Clone(add)
	}
	out := make([]T, 0, len(list)+len(add))
	at := 0
	for _, a := range add {
		i, _ := slices.BinarySearchFunc(list[at:], a, cmp)
		out = append(append(out, list[at:at+i]...), a)
		at += i
	}
	return append(out, list[at:]...)
}

// sweep drops identities build gen did not use, when they are many, and marks them dead so that
// a kept piece still holding one is not reused.
func (tb *identTable) sweep(gen uint64) {
	if !stale(len(tb.m), &tb.used) {
		return
	}
	for k, id := range tb.m {
		if id.gen != gen {
			id.dead = true
			delete(tb.m, k)
		}
	}
	tb.epoch++
	dead := func(id *ksIdent) bool { return id.dead }
	tb.byName = slices.DeleteFunc(tb.byName, dead)
	tb.byHost = slices.DeleteFunc(tb.byHost, dead)
	tb.pending = slices.DeleteFunc(tb.pending, dead)
}

// intern returns the identity of Kong service `<ns>.<backend>.<port>`.
func (t *translation) intern(ns, backend string, pd portDef) *ksIdent {
	var buf [256]byte
	name := appendServiceName(buf[:0], ns, backend, pd)
	if id, ok := t.memos.idents.m[string(name)]; ok {
		return id
	}
	n := len(name)
	all := appendUpstreamName(name, ns, backend, pd)
	var p strPack
	p.grow(len(all) + 36)
	p.writeBytes(all[:n])
	id := &ksIdent{name: p.take(), svcPos: -1, upPos: -1}
	p.writeBytes(all[n:])
	id.host = p.take()
	id.id = p.addID(t.ids.services, id.name)
	tb := &t.memos.idents
	tb.m[id.name] = id
	tb.pending = append(tb.pending, id)
	return id
}

// identsAlive reports whether every identity an Ingress piece routes to is still interned:
// certainly so when no identity was dropped since the piece last checked (epoch).
func identsAlive(t *translation, p *ingressPiece) bool {
	ep := t.memos.idents.epoch
	if p.epoch == ep {
		return true
	}
	for i := range p.uses {
		if p.uses[i].be.ident.dead {
			return false
		}
	}
	if p.def != nil && p.def.ok && p.def.be.ident.dead {
		return false
	}
	p.epoch = ep
	return true
}

// backend is an Ingress backend resolved against its Service: a piece's reference to the Kong
// service that assemble builds from every reference to it.
type backend struct {
	ident   *ksIdent
	port    portDef
	svc     *corev1.Service
	svcPort *corev1.ServicePort // nil when the Service does not declare the port number
}

// kongService is one Kong service of a build: one Kubernetes Service port, as Ingress backends
// name it, with the routes of every Ingress that uses it.
type kongService struct {
	ident      *ksIdent // its name, host and id
	port       portDef
	svc        *corev1.Service
	svcPort    *corev1.ServicePort
	portNumber int32
	fromRules  bool // routed to by a rule path (then it has path "/"), not only a default backend
	routes     []*document.Route
	routeBuf   [1]*document.Route // routes' first backing array: most Kong services have one route
	upstream   *document.Upstream // set once the service is emitted
}

// kongService returns this build's Kong service of a resolved backend, creating it on first use.
func (t *translation) kongService(be *backend) *kongService {
	id := be.ident
	if ks := id.current(t.groupGen); ks != nil {
		return ks
	}
	ks := &id.ks
	*ks = kongService{ident: id, port: be.port, svc: be.svc, svcPort: be.svcPort, portNumber: be.port.number}
	ks.routes = ks.routeBuf[:0]
	if be.svcPort != nil {
		ks.portNumber = be.svcPort.Port
	}
	id.gen = t.groupGen
	t.memos.idents.used++
	return ks
}

// skipped says what an unresolvable backend at field costs: a path, or the default backend.
func skipped(field string) string {
	if strings.HasPrefix(field, "spec.defaultBackend") {
		return "default backend ignored"
	}
	return "path skipped"
}

// resolveBackend resolves an Ingress backend against its Service. It returns false, with a
// problem on the Ingress, when the Service does not exist or the port cannot be resolved.
// field gives the backend's JSON path, built only when a problem is reported.
func (t *translation) resolveBackend(ing *networkingv1.Ingress, b *networkingv1.IngressServiceBackend, field func() string) (backend, bool) {
	pd := portDefOf(b.Port)
	svc, ok := t.snap.Service(ing.Namespace, b.Name)
	if !ok {
		f := field()
		t.missingRef(ingressRef(ing), f+".name", "Service %s/%s not found; %s", ing.Namespace, b.Name, skipped(f))
		return backend{}, false
	}
	sp, why := findPort(svc, pd)
	if why != "" {
		f := field()
		t.problem(ingressRef(ing), f+portField(pd), "%s; %s", why, skipped(f))
		return backend{}, false
	}
	if sp == nil && svc.Spec.Type != corev1.ServiceTypeExternalName {
		t.problem(ingressRef(ing), field()+".port.number",
			"Service %s/%s declares no ports; route kept for port %d, without targets", svc.Namespace, svc.Name, pd.number)
	}
	return backend{ident: t.intern(ing.Namespace, b.Name, pd), port: pd, svc: svc, svcPort: sp}, true
}

func portDefOf(p networkingv1.ServiceBackendPort) portDef {
	switch {
	case p.Number != 0:
		return portDef{mode: portByNumber, number: p.Number}
	case p.Name != "":
		return portDef{mode: portByName, name: p.Name}
	}
	return portDef{mode: portImplicit}
}

func portField(p portDef) string {
	switch p.mode {
	case portByNumber:
		return ".port.number"
	case portByName:
		return ".port.name"
	}
	return ".port"
}

// findPort resolves an Ingress backend port against the Service, KIC's way, except that a port
// the Service does not declare is rejected (KIC keeps such routes without targets). Two cases
// resolve to (nil, ""): a number on a Service that declares no ports at all, which KIC's golden
// corpus expects to be kept (the caller reports it); ExternalName Services take any number.
// The string is why the port cannot be used at all.
func findPort(svc *corev1.Service, p portDef) (*corev1.ServicePort, string) {
	ext := svc.Spec.Type == corev1.ServiceTypeExternalName
	switch p.mode {
	case portByNumber:
		if ext {
			return &corev1.ServicePort{Port: p.number, TargetPort: intstr.FromInt32(p.number)}, ""
		}
		for i := range svc.Spec.Ports {
			if svc.Spec.Ports[i].Port == p.number {
				return &svc.Spec.Ports[i], ""
			}
		}
		if len(svc.Spec.Ports) == 0 {
			return nil, "" // kept, as KIC does (its corpus relies on it); the caller reports it
		}
		return nil, "Service " + svc.Namespace + "/" + svc.Name + " has no port " + strconv.Itoa(int(p.number))
	case portByName:
		if ext {
			return nil, "an ExternalName Service must be referenced by port number"
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if sp.Name == p.name || (sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal == p.name) {
				return sp, ""
			}
		}
		return nil, "Service " + svc.Namespace + "/" + svc.Name + " has no port named " + p.name
	}
	if ext {
		return nil, "an ExternalName Service must be referenced by port number"
	}
	if len(svc.Spec.Ports) != 1 {
		return nil, "the backend names no port and Service " + svc.Namespace + "/" + svc.Name + " does not have exactly one"
	}
	return &svc.Spec.Ports[0], ""
}

// buildServices emits every Kong service with its routes, and its upstream with targets, both
// in sortDocument's order (by name, descending), read off the identity table's orders. Services
// are visited by name, the order certificates are claimed in. It also returns the identities
// emitted, by name ascending and by host descending (the upstreams' order).
func (t *translation) buildServices() (svcs []*document.Service, ups []*document.Upstream, byName, byHost []*ksIdent) {
	tb := &t.memos.idents
	tb.ordered()
	svcs = make([]*document.Service, 0, len(tb.byName))
	for _, id := range tb.byName {
		ks := id.current(t.groupGen)
		if ks == nil {
			continue
		}
		ks.upstream = nil // a kept grouping's Kong service may have lost its routes
		if len(ks.routes) == 0 || !t.consistentAnnotations(ks.ident.name, []*corev1.Service{ks.svc}) {
			continue
		}
		info := t.serviceInfoFor(ks)
		svcs = append(svcs, t.serviceFor(ks, info))
		ks.upstream = t.upstreamFor(ks, info)
		if t.keep {
			byName = append(byName, id)
		}
	}
	slices.Reverse(svcs)
	ups = make([]*document.Upstream, 0, len(svcs))
	for i := len(tb.byHost) - 1; i >= 0; i-- {
		if ks := tb.byHost[i].current(t.groupGen); ks != nil && ks.upstream != nil {
			ups = append(ups, ks.upstream)
			if t.keep {
				byHost = append(byHost, tb.byHost[i])
			}
		}
	}
	return svcs, ups, byName, byHost
}

// serviceInputs is what a Kong service entity is made from besides its identity and routes.
type serviceInputs struct {
	svc       *corev1.Service
	info      *serviceInfo
	portNum   int32
	fromRules bool
}

// serviceFor is buildService, reusing the last build's entity of the same name while its inputs
// and routes are the same. Services whose certificates assemble resolves are always rebuilt.
func (t *translation) serviceFor(ks *kongService, info *serviceInfo) *document.Service {
	sortRoutes(ks.routes)
	if info.clientCertName != "" || len(info.caCerts) > 0 {
		return t.buildService(ks, info)
	}
	in := serviceInputs{svc: ks.svc, info: info, portNum: ks.portNumber, fromRules: ks.fromRules}
	id := ks.ident
	if id.out != nil && id.in == in && sameRoutes(id, ks.routes) {
		return id.out
	}
	out := t.buildService(ks, info)
	if t.keep {
		id.out, id.in, id.route0, id.nroutes = out, in, out.Routes[0], len(out.Routes)
	}
	return out
}

// sameRoutes reports whether routes are the routes of the identity's last entity.
func sameRoutes(id *ksIdent, routes []*document.Route) bool {
	if len(routes) == 1 {
		return id.route0 == routes[0] && id.nroutes == 1
	}
	return slices.Equal(id.out.Routes, routes)
}

// sortRoutes orders routes by name, descending, as sortDocument does; sorted input is left
// untouched, so routes shared with earlier results are never written.
func sortRoutes(rs []*document.Route) {
	cmp := func(a, b *document.Route) int { return strings.Compare(*b.Name, *a.Name) }
	if !slices.IsSortedFunc(rs, cmp) {
		slices.SortStableFunc(rs, cmp)
	}
}

// upstreamIn is what an upstream piece is made from besides its name and what it reads: the
// Service, its settings and port.
type upstreamIn struct {
	svc     *corev1.Service
	info    *serviceInfo
	svcPort corev1.ServicePort
	hasPort bool
}

// upstreamFor is the upstream piece of a Kong service: its upstream with targets (from the
// EndpointSlices read) and policy applied.
func (t *translation) upstreamFor(ks *kongService, info *serviceInfo) *document.Upstream {
	in := upstreamIn{svc: ks.svc, info: info}
	if ks.svcPort != nil {
		in.svcPort, in.hasPort = *ks.svcPort, true
	}
	id := ks.ident
	before := id.up.e
	u := slotPiece(t, &id.up, in, func() *document.Upstream {
		return t.buildUpstream(ks, info, t.upstreamPolicy(ks.svc))
	})
	if e := id.up.e; e != nil {
		t.noteReads(id, &e.reads, e != before)
	}
	return u
}

// serviceAlloc is a Kong service with the values its own pointer fields point at: one
// allocation instead of one per field. Nothing modifies an entity after translation.
type serviceAlloc struct {
	s              document.Service
	name, host, id string
}

func (t *translation) buildService(ks *kongService, info *serviceInfo) *document.Service {
	a := &serviceAlloc{name: ks.ident.name, host: ks.ident.host, id: ks.ident.id}
	s := &a.s
	s.Service = kong.Service{
		ID:             &a.id,
		Name:           &a.name,
		Host:           &a.host,
		Port:           t.defaults.port(ks.portNumber),
		Protocol:       t.defaults.http,
		ConnectTimeout: t.defaults.timeout,
		ReadTimeout:    t.defaults.timeout,
		WriteTimeout:   t.defaults.timeout,
		Retries:        t.defaults.retries,
		Tags:           info.tags,
	}
	if ks.fromRules {
		s.Path = t.defaults.slash
	}
	info.apply(&s.Service)
	t.resolveServiceCerts(ks.svc, info, &s.Service)
	s.Routes = ks.routes
	if t.keep {
		s.Routes = slices.Clone(ks.routes) // ks.routes is reused by the next build
	}
	return s
}

// upstreamAlloc is an upstream with the name its Name points at and, for up to two
// endpoints, its targets (one allocation).
type upstreamAlloc struct {
	u       document.Upstream
	name    string
	targets smallTargets
}

// buildUpstream makes the upstream of a Kong service: the defaults, then in KIC's order the
// Service's KongIngress (konghq.com/override), its konghq.com/host-header, and the
// KongUpstreamPolicy pr found for it.
func (t *translation) buildUpstream(ks *kongService, info *serviceInfo, pr policyRead) *document.Upstream {
	a := &upstreamAlloc{name: ks.ident.host}
	a.u = document.Upstream{
		Upstream: kong.Upstream{
			Name:       &a.name,
			Algorithm:  t.defaults.roundRobin,
			HostHeader: info.hostHeader,
			Tags:       info.tags,
		},
		Targets: t.targets(ks, &a.targets),
	}
	if ki := t.kongIngressFor(ks.svc); ki != nil {
		t.applyKongIngress(&a.u.Upstream, ki)
		if info.hostHeader != nil {
			a.u.HostHeader = info.hostHeader
		}
	}
	t.applyUpstreamPolicy(&a.u.Upstream, pr.policy, []*corev1.Service{ks.svc})
	return &a.u
}

// consistentAnnotations is KIC's rule for Kong services backed by several Kubernetes Services:
// every konghq.com/ annotation any of them carries must be on all of them with the same value,
// or the Kong service is skipped and each Service gets a problem per disagreeing annotation.
// An Ingress backs a Kong service with exactly one Service, so for Ingresses this always holds.
func (t *translation) consistentAnnotations(kongName string, svcs []*corev1.Service) bool {
	if len(svcs) < 2 {
		return true
	}
	var bad []string
	seen := map[string]bool{} // a Service can carry thousands of annotations: no search of bad
	for _, a := range svcs {
		for k, v := range a.Annotations {
			if len(k) < len(annPrefix) || k[:len(annPrefix)] != annPrefix || seen[k] {
				continue
			}
			for _, b := range svcs {
				if w, ok := b.Annotations[k]; !ok || w != v {
					bad, seen[k] = append(bad, k), true
					break
				}
			}
		}
	}
	sort.Strings(bad)
	for _, s := range svcs {
		for _, k := range bad {
			t.problem(store.Ref{Kind: store.KindService, Namespace: s.Namespace, Name: s.Name}, annotationField(k),
				"must have the same value on every Service behind Kong service %s; that Kong service is skipped", kongName)
		}
	}
	return len(bad) == 0
}

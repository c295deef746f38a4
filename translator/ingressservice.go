package translator

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// kongService returns this build's Kong service of a resolved backend, creating it on first use.
func (t *ingressBuild) kongService(be *backend) *kongService {
	id := be.ident
	if ks := id.current(t.groupGen); ks != nil {
		return ks
	}
	ks := &id.ks
	*ks = kongService{ident: id, port: be.port, svc: be.svc, svcPort: be.svcPort, facade: be.facade, portNumber: be.port.number}
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
func (t *ingressBuild) resolveBackend(ing *networkingv1.Ingress, b *networkingv1.IngressServiceBackend, field func() string) (backend, bool) {
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
func (t *ingressBuild) buildServices() (svcs []*document.Service, ups []*document.Upstream, byName, byHost []*ksIdent) {
	tb := &t.memos.idents
	tb.ordered()
	svcs = make([]*document.Service, 0, len(tb.byName))
	if t.splits(len(tb.byName)) {
		t.servicePiecesInParallel(tb.byName)
	}
	for _, id := range tb.byName {
		ks := id.current(t.groupGen)
		if ks == nil {
			continue
		}
		info, up := ks.prepared, ks.upstream // computed ahead when prepared is set
		ks.prepared, ks.upstream = nil, nil  // a kept grouping's Kong service may have lost its routes
		if len(ks.routes) == 0 || !t.consistentAnnotations(ks.ident.name, []*corev1.Service{ks.svc}) {
			continue
		}
		prepared := info != nil
		if !prepared {
			info = t.serviceInfoFor(ks)
		}
		svcs = append(svcs, t.serviceFor(ks, info))
		if !prepared {
			up = t.upstreamFor(ks, info)
		}
		ks.upstream = up
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

// servicePiecesInParallel computes, in a build that keeps nothing, the settings and upstream
// pieces of every Kong service with routes split across the CPUs (parallel.go), and leaves them
// on the Kong service (prepared, upstream) for buildServices, which emits in order.
func (t *ingressBuild) servicePiecesInParallel(ids []*ksIdent) {
	t.inParallel(len(ids), func(w *translation, _, from, to int) {
		wb := ingressBuild{translation: w, memos: t.memos, tls: t.tls}
		for _, id := range ids[from:to] {
			if ks := id.current(t.groupGen); ks != nil && len(ks.routes) > 0 {
				ks.prepared = wb.serviceInfoFor(ks)
				ks.upstream = wb.upstreamFor(ks, ks.prepared)
			}
		}
	})
}

// serviceFor is buildService, reusing the last build's entity of the same name while its inputs
// and routes are the same. Services whose certificates assemble resolves are always rebuilt.
func (t *ingressBuild) serviceFor(ks *kongService, info *serviceInfo) *document.Service {
	sortRoutes(ks.routes)
	if info.claimsCerts() {
		return t.buildService(ks, info)
	}
	in := serviceInputs{svc: ks.svc, info: info, portNum: ks.portNumber, fromRules: ks.fromRules}
	id := ks.ident
	if t.keep && id.out != nil && id.in == in && sameRoutes(id, ks.routes) {
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

// upstreamFor is the upstream piece of a Kong service: its upstream with targets (from the
// EndpointSlices read) and policy applied.
func (t *ingressBuild) upstreamFor(ks *kongService, info *serviceInfo) *document.Upstream {
	in := upstreamIn{svc: ks.svc, info: info}
	if ks.svcPort != nil {
		in.svcPort, in.hasPort = *ks.svcPort, true
	}
	if !t.keep {
		return t.buildUpstream(ks, info, t.upstreamPolicy(ks.svc))
	}
	id := ks.ident
	before := id.up.e
	u := slotPiece(t.translation, &id.up, in, func() *document.Upstream {
		return t.buildUpstream(ks, info, t.upstreamPolicy(ks.svc))
	})
	if e := id.up.e; e != nil {
		t.noteReads(id, &e.reads, e != before)
	}
	return u
}

// buildService makes the Kong service of ks. Its name, host and id point at its identity's
// strings, which are set before the identity is interned and never after (ingressident.go),
// as nothing modifies an entity after translation: no copies of them (48 bytes a service, a
// size class less).
func (t *ingressBuild) buildService(ks *kongService, info *serviceInfo) *document.Service {
	s, id := &document.Service{}, ks.ident
	k := &s.Service // fields set one by one, as in buildUpstream
	k.ID, k.Name, k.Host, k.Port, k.Protocol = &id.id, &id.name, &id.host, t.defaults.port(ks.portNumber), t.defaults.http
	k.ConnectTimeout, k.ReadTimeout, k.WriteTimeout = t.defaults.timeout, t.defaults.timeout, t.defaults.timeout
	k.Retries, k.Tags = t.defaults.retries, info.tags
	if ks.fromRules {
		s.Path = t.defaults.slash
	}
	info.apply(&s.Service)
	t.tls.resolveServiceCerts(ks.svc, info, &s.Service)
	s.Routes = ks.routes
	if t.keep {
		s.Routes = slices.Clone(ks.routes) // ks.routes is reused by the next build
	}
	return s
}

// upstreamAlloc is an upstream with, for up to two endpoints, its targets (one allocation).
// Its name is its identity's host, as its Kong service's host (buildService).
type upstreamAlloc struct {
	u       document.Upstream
	targets smallTargets
}

// buildUpstream makes the upstream of a Kong service: the defaults, then in KIC's order the
// Service's KongIngress (konghq.com/override), its konghq.com/host-header, and the
// KongUpstreamPolicy pr found for it.
func (t *ingressBuild) buildUpstream(ks *kongService, info *serviceInfo, pr policyRead) *document.Upstream {
	a := &upstreamAlloc{}
	u := &a.u.Upstream // fields set one by one: a composite literal is copied whole, every pointer slot a write barrier during a GC
	u.Name, u.Algorithm, u.HostHeader, u.Tags = &ks.ident.host, t.defaults.roundRobin, info.hostHeader, info.tags
	a.u.Targets = t.targets(ks, &a.targets)
	if ki := t.kongIngressFor(ks.svc); ki != nil {
		t.applyKongIngress(&a.u.Upstream, ki)
		if info.hostHeader != nil {
			a.u.HostHeader = info.hostHeader
		}
	}
	t.applyUpstreamPolicy(&a.u.Upstream, pr.policy, []*corev1.Service{ks.svc})
	return &a.u
}

// serviceInfoFor is the piece of a Kong service's Service: its tags and annotation settings. Bad values are
// reported and ignored, keeping KIC's defaults.
func (t *ingressBuild) serviceInfoFor(ks *kongService) *serviceInfo {
	svc, id := ks.svc, ks.ident
	if !t.keep {
		return t.newServiceInfo(ks)
	}
	before := id.info.e
	info := slotPiece(t.translation, &id.info, svc, func() *serviceInfo { return t.newServiceInfo(ks) })
	if e := id.info.e; e != nil {
		t.noteReads(id, &e.reads, e != before)
	}
	return info
}

// newServiceInfo computes a Kong service's settings piece.
func (t *ingressBuild) newServiceInfo(ks *kongService) *serviceInfo {
	info := &serviceInfo{}
	info.tags = t.kongServiceTags(ks, info)
	if hasKeyPrefix(ks.svc.Annotations, annPrefix) {
		t.parseServiceOptions(ks.svc, info)
	}
	return info
}

// targets returns the upstream targets of one Kong service, sorted KIC's way (descending).
// ingress.kubernetes.io/service-upstream, or serviceUpstream in the class parameters (KIC's
// precedence: before ExternalName), gives the Service's DNS name; an ExternalName Service
// gives its external name; otherwise every ready endpoint of the Service's EndpointSlices whose
// port has the Service port's name.
// Targets of up to two endpoints (the usual Deployment) live in small, the upstream's storage.
func (t *ingressBuild) targets(ks *kongService, small *smallTargets) []*kong.Target {
	if ks.svcPort == nil {
		return nil
	}
	return t.serviceTargets(ks.svc, ks.svcPort, small)
}

// noteReads adds the kinds a Kong service's piece read to what the emitted pieces read and,
// when it was computed in this build, records its reads in the readers index.
func (t *ingressBuild) noteReads(id *ksIdent, r *reads, computed bool) {
	if !t.keep {
		return
	}
	t.svcMask |= r.mask
	if computed {
		t.memos.stages.readers.add(id, r)
	}
}

// intern returns the identity of Kong service `<ns>.<backend>.<port>`. A new identity is made
// outside the table's lock (identTable.add), which the parallel pieces of a cold build share.
func (t *ingressBuild) intern(ns, backend string, pd portDef) *ksIdent {
	var buf [256]byte
	name := appendServiceName(buf[:0], ns, backend, pd)
	tb := t.idents()
	if id := tb.lookup(name); id != nil {
		return id
	}
	n := len(name)
	all := appendUpstreamName(name, ns, backend, pd)
	var p strPack
	p.grow(len(all) + 36)
	p.writeBytes(all[:n])
	id := newIdent(p.take(), t.keep)
	p.writeBytes(all[n:])
	id.host = p.take()
	id.id = p.addID(t.ids.services, id.name)
	return tb.add(id)
}

// kongServiceTags are the tags of a Kong service and its upstream: its facade's, or its Service's.
func (t *ingressBuild) kongServiceTags(ks *kongService, info *serviceInfo) []*string {
	if ks.facade != nil {
		return objectTagsIn(store.KindKongServiceFacade, ks.facade, &info.tagData, &t.nsTag)
	}
	return objectTagsIn(store.KindService, ks.svc, &info.tagData, &t.nsTag)
}

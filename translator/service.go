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
		ports: map[int32]*int{},
	}
}

// kongService is one Kong service under construction: one Kubernetes Service port, as an
// Ingress backend names it, with the routes of every Ingress that uses it.
type kongService struct {
	name       string
	host       string
	id         string
	port       portDef
	svc        *corev1.Service     // its namespace and name are the backend's
	svcPort    *corev1.ServicePort // nil when the Service does not declare the port number
	portNumber int32
	fromRules  bool // created for a rule path (then it has path "/"), not only a default backend
	routes     []*document.Route
	routeBuf   [1]*document.Route // routes' first backing array: most Kong services have one route
}

// skipped says what an unresolvable backend at field costs: a path, or the default backend.
func skipped(field string) string {
	if strings.HasPrefix(field, "spec.defaultBackend") {
		return "default backend ignored"
	}
	return "path skipped"
}

// resolveBackend finds or creates the Kong service for an Ingress backend. It returns nil, with
// a problem on the Ingress, when the Service does not exist or the port cannot be resolved.
// field gives the backend's JSON path, built only when a problem is reported.
func (t *translation) resolveBackend(ing *networkingv1.Ingress, b *networkingv1.IngressServiceBackend, field func() string) *kongService {
	pd := portDefOf(b.Port)
	var buf [128]byte
	if ks, ok := t.services[string(appendServiceName(buf[:0], ing.Namespace, b.Name, pd))]; ok {
		t.rec.dependOn(ing.Namespace, b.Name, ks.svc)
		if ks.svcPort == nil && ks.svc.Spec.Type != corev1.ServiceTypeExternalName {
			t.missingNumberProblem(ing, ks, field)
		}
		return ks
	}
	svc, ok := t.snap.Service(ing.Namespace, b.Name)
	t.rec.dependOn(ing.Namespace, b.Name, svc)
	if !ok {
		f := field()
		t.problem(ingressRef(ing), f+".name", "Service %s/%s not found; %s", ing.Namespace, b.Name, skipped(f))
		return nil
	}
	sp, why := findPort(svc, pd)
	if why != "" {
		f := field()
		t.problem(ingressRef(ing), f+portField(pd), "%s; %s", why, skipped(f))
		return nil
	}
	ks := t.newKongService(ing.Namespace, b.Name, pd, svc, sp)
	if sp == nil && svc.Spec.Type != corev1.ServiceTypeExternalName {
		t.missingNumberProblem(ing, ks, field)
	}
	return ks
}

// newKongService registers the Kong service of one resolved backend. Its name, host and id share
// one allocation.
func (t *translation) newKongService(ns, backend string, pd portDef, svc *corev1.Service, sp *corev1.ServicePort) *kongService {
	ks := &kongService{port: pd, svc: svc, svcPort: sp, portNumber: pd.number}
	var buf [256]byte
	name := appendServiceName(buf[:0], ns, backend, pd)
	n := len(name)
	all := appendUpstreamName(name, ns, backend, pd)
	var p strPack
	p.grow(len(all) + 36)
	p.writeBytes(all[:n])
	ks.name = p.take()
	p.writeBytes(all[n:])
	ks.host = p.take()
	ks.id = p.addID(t.ids.services, ks.name)
	ks.routes = ks.routeBuf[:0]
	if sp != nil {
		ks.portNumber = sp.Port
	}
	t.services[ks.name] = ks
	return ks
}

// missingNumberProblem reports a backend port number on a Service that declares no ports. KIC
// keeps such routes (traffic gets no targets); so does kongsync, to stay config-compatible.
func (t *translation) missingNumberProblem(ing *networkingv1.Ingress, ks *kongService, field func() string) {
	t.problem(ingressRef(ing), field()+".port.number",
		"Service %s/%s declares no ports; route kept for port %d, without targets", ks.svc.Namespace, ks.svc.Name, ks.port.number)
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

// buildServices emits every Kong service with its routes, and its upstream with targets.
// Services are visited by name (the order certificates are claimed in) and come out in
// sortDocument's order (by name, descending), which then has no work.
func (t *translation) buildServices() ([]*document.Service, []*document.Upstream) {
	kss := make([]*kongService, 0, len(t.services))
	for _, ks := range t.services {
		kss = append(kss, ks)
	}
	slices.SortFunc(kss, func(a, b *kongService) int { return strings.Compare(a.name, b.name) })
	svcs := make([]*document.Service, 0, len(kss))
	ups := make([]*document.Upstream, 0, len(kss))
	for _, ks := range kss {
		if len(ks.routes) == 0 {
			continue
		}
		if !t.consistentAnnotations(ks.name, []*corev1.Service{ks.svc}) {
			continue
		}
		info := t.serviceInfoFor(ks.svc)
		svcs = append(svcs, t.serviceFor(ks, info))
		ups = append(ups, t.upstreamFor(ks, info))
	}
	slices.Reverse(svcs)
	return svcs, ups
}

// serviceAlloc is a Kong service with the values its own pointer fields point at: one
// allocation instead of one per field. Nothing modifies an entity after translation.
type serviceAlloc struct {
	s              document.Service
	name, host, id string
}

func (t *translation) buildService(ks *kongService, info *serviceInfo) *document.Service {
	a := &serviceAlloc{name: ks.name, host: ks.host, id: ks.id}
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
	if info.clientCert != nil {
		t.clientRefs = append(t.clientRefs, clientCertRef{svc: &s.Service, cert: info.clientCert})
	}
	s.Routes = ks.routes
	return s
}

// upstreamAlloc is an upstream with the name its Name points at and, for up to two
// endpoints, its targets (one allocation).
type upstreamAlloc struct {
	u       document.Upstream
	name    string
	targets smallTargets
}

// buildUpstream makes the upstream of a Kong service, with the KongUpstreamPolicy pr found for
// its Service applied over the defaults.
func (t *translation) buildUpstream(ks *kongService, info *serviceInfo, pr policyRead) *document.Upstream {
	a := &upstreamAlloc{name: ks.host}
	a.u = document.Upstream{
		Upstream: kong.Upstream{
			Name:       &a.name,
			Algorithm:  t.defaults.roundRobin,
			HostHeader: info.hostHeader,
			Tags:       info.tags,
		},
		Targets: t.targets(ks, &a.targets),
	}
	t.applyUpstreamPolicy(&a.u.Upstream, pr.policy)
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
	for _, a := range svcs {
		for k, v := range a.Annotations {
			if len(k) < len(annPrefix) || k[:len(annPrefix)] != annPrefix || containsString(bad, k) {
				continue
			}
			for _, b := range svcs {
				if w, ok := b.Annotations[k]; !ok || w != v {
					bad = append(bad, k)
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

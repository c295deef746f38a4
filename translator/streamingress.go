package translator

import (
	"fmt"
	"strconv"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	kv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// TCPIngress and UDPIngress (configuration.konghq.com/v1beta1) as KIC v3.5.13 translates them
// (translate_kong_l4.go there): each rule is one Kong route `<ns>.<name>.<i>` (UDP: `….udp`)
// matching the listener port as a destination (and the rule host as SNI), routed to the Kong
// service of its backend, `<ns>.<svc>.<port>` (UDP: `….udp`), which every TCPIngress (UDPIngress)
// naming that Service port shares, with upstream `<svc>.<ns>.<port>.svc`. A piece is what one
// object contributes; assemble (streamassemble.go) groups the routes into Kong services.

// streamPiece is one TCPIngress's or UDPIngress's rules, translated.
type streamPiece struct {
	rules   []streamRule
	plugins []routePluginRef // konghq.com/plugins on the object, for each of its routes
}

// streamRule is one rule's route and what its Kong service and upstream are made of. The Kong
// service and upstream depend only on the Service, its port and the protocol, so every piece
// naming the same Service port makes equal ones; assemble takes the first.
type streamRule struct {
	route *document.Route
	svc   *document.Service  // the Kong service without routes, certificates unresolved
	up    *document.Upstream // named after the Kong service's host
	k8s   *corev1.Service
	info  *serviceInfo
}

// streamRef is the ref of a TCPIngress or UDPIngress.
func streamRef(obj store.Object) store.Ref {
	if _, ok := obj.(*kv1beta1.UDPIngress); ok {
		return store.Ref{Kind: store.KindUDPIngress, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	}
	return store.Ref{Kind: store.KindTCPIngress, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// streamRules are the rules of a TCPIngress or UDPIngress.
func streamRules(obj store.Object) []kv1beta1.StreamRule {
	if o, ok := obj.(interface{ StreamRules() []kv1beta1.StreamRule }); ok {
		return o.StreamRules()
	}
	return nil
}

// streamPieceFor translates one TCPIngress or UDPIngress. A rule that cannot be translated (a
// port out of range, a host that is not a DNS name, a missing Service or a port it does not
// declare) is skipped with a problem; the other rules stay.
func (t *translation) streamPieceFor(obj store.Object, m *routeMatch) *streamPiece {
	ref := streamRef(obj)
	udp := ref.Kind == store.KindUDPIngress
	p := &streamPiece{}
	rs := t.routeSettingsFor(ref, obj)
	if rs.opts != nil && len(rs.opts.hostAliases) > 0 {
		t.problem(ref, annotationField(annHostAliases), "stream routes match no hosts; annotation ignored")
	}
	tags := objectTagsIn(ref.Kind, obj, nil, &t.nsTag)
	made := map[string]*streamRule{} // this piece's Kong services, by name
	for i, in := range streamRules(obj) {
		field := "spec.rules[" + strconv.Itoa(i) + "]"
		k8s, sp, ok := t.streamBackend(ref, field, in, udp)
		if !ok {
			continue
		}
		name := ref.Namespace + "." + ref.Name + "." + strconv.Itoa(i)
		if udp {
			name += ".udp"
		}
		r := t.streamRoute(name, tags, in, udp, rs, m)
		svcName := fmt.Sprintf("%s.%s.%d", ref.Namespace, in.Backend.ServiceName, in.Backend.ServicePort)
		if udp {
			svcName += ".udp"
		}
		base, ok := made[svcName]
		if !ok {
			base = t.streamService(svcName, k8s, sp, int32(in.Backend.ServicePort), udp)
			made[svcName] = base
		}
		rule := *base
		rule.route = r
		p.rules = append(p.rules, rule)
		if v := obj.GetAnnotations()[annPlugins]; v != "" {
			for _, pr := range parsePluginRefs(v, ref.Namespace) {
				p.plugins = append(p.plugins, routePluginRef{referrer: ref, route: name, plugin: pr, field: annotationField(annPlugins)})
			}
		}
	}
	return p
}

// streamRoute is one rule's route: its listener port and, for a TCPIngress rule with a host,
// that host as SNI, rendered for the router flavor translated for (m is the build's scratch).
func (t *translation) streamRoute(name string, tags []*string, in kv1beta1.StreamRule, udp bool, rs *routeSettings,
	m *routeMatch) *document.Route {
	a := &routeAlloc{name: name, id: t.ids.routes.id(name)}
	a.r.Route = kong.Route{ID: &a.id, Name: &a.name, Tags: tags}
	m.reset(dialectStream, rs)
	m.ports = append(m.ports, in.Port)
	if udp {
		a.r.Protocols = kong.StringSlice("udp")
	} else {
		a.r.Protocols = kong.StringSlice("tcp", "tls")
		if in.Host != "" {
			m.snis = append(m.snis, in.Host)
		}
	}
	_ = t.render(a, m) // a port is always there to match
	return &a.r
}

// streamBackend checks a rule's port, host and backend and resolves its Service and port: the
// port is nil (and the rule kept, without targets) for a Service that declares no ports at all,
// as for Ingress backends.
func (t *translation) streamBackend(ref store.Ref, field string, in kv1beta1.StreamRule, udp bool) (*corev1.Service, *corev1.ServicePort, bool) {
	switch {
	case in.Port < 1 || in.Port > 65535:
		t.problem(ref, field+".port", "%d is not a port (1-65535); rule skipped", in.Port)
		return nil, nil, false
	case !udp && in.Host != "" && !validSNI.MatchString(in.Host):
		t.problem(ref, field+".host", "%s is not a valid SNI (a DNS name without wildcards); rule skipped", quoteShort(in.Host))
		return nil, nil, false
	case in.Backend.ServiceName == "":
		t.problem(ref, field+".backend.serviceName", "not set; rule skipped")
		return nil, nil, false
	case in.Backend.ServicePort < 1 || in.Backend.ServicePort > 65535:
		t.problem(ref, field+".backend.servicePort", "%d is not a port (1-65535); rule skipped", in.Backend.ServicePort)
		return nil, nil, false
	}
	svc, ok := t.snap.Service(ref.Namespace, in.Backend.ServiceName)
	if !ok {
		t.missingRef(ref, field+".backend.serviceName", "Service %s/%s not found; rule skipped", ref.Namespace, in.Backend.ServiceName)
		return nil, nil, false
	}
	sp := servicePortByNumber(svc, int32(in.Backend.ServicePort))
	if sp == nil {
		if len(svc.Spec.Ports) > 0 {
			t.problem(ref, field+".backend.servicePort", "Service %s/%s has no port %d; rule skipped",
				svc.Namespace, svc.Name, in.Backend.ServicePort)
			return nil, nil, false
		}
		t.problem(ref, field+".backend.servicePort", "Service %s/%s declares no ports; route kept for port %d, without targets",
			svc.Namespace, svc.Name, in.Backend.ServicePort)
	}
	return svc, sp, true
}

// streamService makes the Kong service (without routes) and upstream of a Service port, as KIC
// does: a TCP service has KIC's timeouts and retries, a UDP service none; both take the
// Service's tags and annotations, and the port the Service declares (KIC's port is the
// Service's for whichever of a TCP and a UDP service sharing an upstream built it, and 80 or
// the rule's port for the other, by map order; both are the Service port here).
func (t *translation) streamService(name string, k8s *corev1.Service, sp *corev1.ServicePort, port int32, udp bool) *streamRule {
	info := &serviceInfo{}
	info.tags = objectTagsIn(store.KindService, k8s, &info.tagData, &t.nsTag)
	if hasKeyPrefix(k8s.Annotations, annPrefix) {
		t.parseServiceOptions(k8s, info)
	}
	host := fmt.Sprintf("%s.%s.%d.svc", k8s.Name, k8s.Namespace, port)
	s := &document.Service{Service: kong.Service{
		ID:   kong.String(t.ids.services.id(name)),
		Name: kong.String(name),
		Host: kong.String(host),
		Port: t.defaults.port(port),
		Tags: info.tags,
	}}
	if udp {
		s.Protocol = kong.String("udp")
	} else {
		s.Protocol = kong.String("tcp")
		s.ConnectTimeout, s.ReadTimeout, s.WriteTimeout = t.defaults.timeout, t.defaults.timeout, t.defaults.timeout
		s.Retries = t.defaults.retries
	}
	info.apply(&s.Service)
	u := &document.Upstream{Upstream: kong.Upstream{
		Name:       kong.String(host),
		Algorithm:  t.defaults.roundRobin,
		HostHeader: info.hostHeader,
		Tags:       info.tags,
	}}
	if sp != nil {
		u.Targets = t.serviceTargets(k8s, sp, nil)
	}
	// KIC applies KongIngress to every upstream whose parent is not a Gateway API route.
	if ki := t.kongIngressFor(k8s); ki != nil {
		t.applyKongIngress(&u.Upstream, ki)
		if info.hostHeader != nil {
			u.HostHeader = info.hostHeader
		}
	}
	t.applyUpstreamPolicy(&u.Upstream, t.upstreamPolicy(k8s).policy, []*corev1.Service{k8s})
	return &streamRule{svc: s, up: u, k8s: k8s, info: info}
}

package translator

import (
	"strconv"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

// ourGateways are the Gateways of kongsync's classes, in store order (namespace, name).
func (t *gwBuild) ourGateways() []*gatewayv1.Gateway {
	var out []*gatewayv1.Gateway
	for _, o := range t.snap.snap.Objects(store.KindGateway) {
		gw := o.(*gatewayv1.Gateway)
		if ours, assumed := t.ourGateway(gw); ours && !assumed {
			out = append(out, gw)
		}
	}
	return out
}

// gatewayCerts claims the Gateways' listener certificates (after the Ingresses' TLS claims, as
// KIC merges them) and sums up each Gateway's listeners for its status.
func (t *gwBuild) gatewayCerts() {
	for _, gw := range t.ourGateways() {
		st := GatewayStatus{Gateway: store.Ref{Kind: store.KindGateway, Namespace: gw.Namespace, Name: gw.Name}}
		for i := range gw.Spec.Listeners {
			l := &gw.Spec.Listeners[i]
			ls := ListenerStatus{Name: string(l.Name), SupportedKinds: supportedKinds(l), ResolvedRefs: true, ResolvedRefsReason: ReasonResolvedRefs}
			if l.AllowedRoutes != nil && len(ls.SupportedKinds) < len(l.AllowedRoutes.Kinds) {
				ls.ResolvedRefs, ls.ResolvedRefsReason = false, ReasonInvalidRouteKinds
				ls.Message = "allowedRoutes.kinds names a kind the listener's protocol cannot carry"
				t.problem(st.Gateway, "spec.listeners["+strconv.Itoa(i)+"].allowedRoutes.kinds",
					"names a route kind %s listeners cannot carry; those routes cannot attach", l.Protocol)
			}
			t.listenerCert(gw, i, &ls)
			st.Listeners = append(st.Listeners, ls)
		}
		t.gateways = append(t.gateways, st)
	}
}

// supportedKinds are the route kinds a listener takes: those allowedRoutes lists that suit its
// protocol, else its protocol's.
func supportedKinds(l *gatewayv1.Listener) []string {
	var byProto []string
	switch l.Protocol {
	case gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType:
		byProto = []string{string(store.KindHTTPRoute), string(store.KindGRPCRoute)}
	case gatewayv1.TCPProtocolType:
		byProto = []string{string(store.KindTCPRoute)}
	case gatewayv1.UDPProtocolType:
		byProto = []string{string(store.KindUDPRoute)}
	case gatewayv1.TLSProtocolType:
		byProto = []string{string(store.KindTLSRoute)}
	}
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		return byProto
	}
	var out []string
	for _, k := range l.AllowedRoutes.Kinds {
		for _, p := range byProto {
			if string(k.Kind) == p && (k.Group == nil || string(*k.Group) == store.GatewayGroup) {
				out = append(out, p)
			}
		}
	}
	return out
}

// listenerCert claims the certificate of a TLS-terminating listener for its hostname ("*"
// without one, as KIC does). One certificateRef, a Secret, in the Gateway's namespace or opened
// by a ReferenceGrant; otherwise the listener's refs do not resolve (a problem on the Gateway).
func (t *gwBuild) listenerCert(gw *gatewayv1.Gateway, i int, ls *ListenerStatus) {
	l := &gw.Spec.Listeners[i]
	if l.TLS == nil || len(l.TLS.CertificateRefs) == 0 ||
		(l.TLS.Mode != nil && *l.TLS.Mode == gatewayv1.TLSModePassthrough) {
		return
	}
	ref := store.Ref{Kind: store.KindGateway, Namespace: gw.Namespace, Name: gw.Name}
	field := "spec.listeners[" + strconv.Itoa(i) + "].tls.certificateRefs"
	fail := func(reason string, cause Cause, f, format string, args ...any) {
		ls.ResolvedRefs, ls.ResolvedRefsReason = false, reason
		p := causedProblem(cause, ref, f, format, args...)
		t.problems = append(t.problems, p)
		ls.Message = p.Reason
	}
	if len(l.TLS.CertificateRefs) > 1 {
		fail(ReasonInvalidCertificateRef, Invalid, field, "more than one certificateRef is not supported; the listener gets no certificate")
		return
	}
	cr := &l.TLS.CertificateRefs[0]
	f := field + "[0]"
	if (cr.Group != nil && *cr.Group != "" && *cr.Group != "core") || (cr.Kind != nil && *cr.Kind != "Secret") {
		fail(ReasonInvalidCertificateRef, Invalid, f+".kind", "only core Secrets can hold a listener's certificate")
		return
	}
	ns := gw.Namespace
	if cr.Namespace != nil && *cr.Namespace != "" {
		ns = string(*cr.Namespace)
	}
	if ns != gw.Namespace && !t.grantAllows(ref, ns, "", "Secret", string(cr.Name)) {
		fail(ReasonRefNotPermitted, MissingRef, f+".namespace", "no ReferenceGrant in namespace %s allows Gateways from %s to Secret %s; the listener gets no certificate",
			ns, gw.Namespace, cr.Name)
		return
	}
	ce := t.tls.loadCert(ns, string(cr.Name))
	switch {
	case ce.secret == nil:
		fail(ReasonInvalidCertificateRef, MissingRef, f+".name", "Secret %s not found; the listener gets no certificate", ce.key)
		return
	case ce.err != "":
		fail(ReasonInvalidCertificateRef, Invalid, f+".name", "Secret %s has no usable TLS key pair; the listener gets no certificate", ce.key)
		return
	}
	t.tls.useCert(ce)
	host := "*"
	if l.Hostname != nil {
		host = string(*l.Hostname)
	}
	owner, taken := t.tls.sniOwner[host]
	if !taken {
		t.tls.sniOwner[host] = ce
		ce.hosts = append(ce.hosts, host)
	} else if owner != ce {
		t.problem(ref, "spec.listeners["+strconv.Itoa(i)+"].hostname",
			"host %s already has the certificate of Secret %s (an Ingress's or an earlier listener's); this listener's is not used for it", host, owner.key)
	}
}

// countAttached sets each listener's attachedRoutes: the routes accepted through it.
func (t *gwBuild) countAttached() {
	if len(t.gateways) == 0 {
		return
	}
	at := make(map[string]int, len(t.gateways))
	for i, g := range t.gateways {
		at[g.Gateway.Namespace+"/"+g.Gateway.Name] = i
	}
	last, li, looked := "", -1, false // routes of one Gateway share its name: most look-ups are the last one's
	for _, p := range t.parents {
		if !p.Accepted {
			continue
		}
		if !looked || p.Gateway != last {
			i, ok := at[p.Gateway]
			if !ok {
				i = -1
			}
			last, li, looked = p.Gateway, i, true
		}
		if li < 0 {
			continue
		}
		ls := t.gateways[li].Listeners
		for _, name := range p.Listeners {
			for k := range ls {
				if ls[k].Name == name {
					ls[k].AttachedRoutes++
				}
			}
		}
	}
}

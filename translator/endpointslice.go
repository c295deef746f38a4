package translator

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kongsync/kongsync/store"
)

// targets returns the upstream targets of one Kong service, sorted KIC's way (descending).
// ingress.kubernetes.io/service-upstream gives the Service's DNS name; an ExternalName Service
// gives its external name; otherwise every ready endpoint of the Service's EndpointSlices whose
// port has the Service port's name.
func (t *translation) targets(ks *kongService) []*kong.Target {
	svc := ks.svc
	if ks.svcPort == nil {
		return nil
	}
	port := ks.svcPort
	if svc.Annotations[annServiceUpstream] == "true" {
		host := svc.Name + "." + svc.Namespace + ".svc"
		if t.opts.ClusterDomain != "" {
			host += "." + t.opts.ClusterDomain
		}
		return []*kong.Target{{Target: kong.String(host + ":" + strconv.Itoa(int(port.Port)))}}
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		if !validHost(strings.TrimSuffix(svc.Spec.ExternalName, ".")) {
			t.problem(store.Ref{Kind: store.KindService, Namespace: svc.Namespace, Name: svc.Name}, "spec.externalName",
				"%s is not a DNS name; the upstream gets no targets", quoteShort(svc.Spec.ExternalName))
			return nil
		}
		return []*kong.Target{{Target: kong.String(svc.Spec.ExternalName + ":" + port.TargetPort.String())}}
	}
	var addrs []string
	for _, es := range t.snap.EndpointSlicesFor(svc.Namespace, svc.Name) {
		addrs = t.sliceTargets(es, svc, port.Name, addrs)
	}
	slices.Sort(addrs)
	slices.Reverse(addrs)
	addrs = slices.Compact(addrs)
	// One allocation for all targets of the upstream; the strings are shared with addrs, which
	// is not modified afterwards.
	vals := make([]kong.Target, len(addrs))
	out := make([]*kong.Target, len(addrs))
	for i := range addrs {
		vals[i].Target = &addrs[i]
		out[i] = &vals[i]
	}
	return out
}

// sliceTargets appends "address:port" for every ready endpoint of es on the port named
// portName. A port without a name matches the Service port without a name (KIC panics on
// it); a port without a protocol counts as TCP, the Kubernetes default. Like KIC, a port
// matches when its protocol is TCP or one the Service uses. Ports outside 1-65535 and addresses
// that are not IPs (or DNS names, for addressType FQDN) are skipped with a problem: only
// manifests can hold them, and Kong rejects the whole configuration for one bad target.
func (t *translation) sliceTargets(es *discoveryv1.EndpointSlice, svc *corev1.Service, portName string, dst []string) []string {
	for k, p := range es.Ports {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if p.Port == nil || name != portName || !serviceUsesProtocol(svc, p.Protocol) {
			continue
		}
		if *p.Port < 1 || *p.Port > 65535 {
			t.problem(sliceRef(es), "ports["+strconv.Itoa(k)+"].port", "%d is not a port number (1-65535); port skipped", *p.Port)
			continue
		}
		ps := strconv.Itoa(int(*p.Port))
		for i := range es.Endpoints {
			ep := &es.Endpoints[i]
			if (ep.Conditions.Ready != nil && !*ep.Conditions.Ready) || len(ep.Addresses) == 0 {
				continue
			}
			if !validAddress(es.AddressType, ep.Addresses[0]) {
				t.problem(sliceRef(es), "endpoints["+strconv.Itoa(i)+"].addresses[0]",
					"%s is not an IP address (nor, for addressType FQDN, a DNS name); endpoint skipped", quoteShort(ep.Addresses[0]))
				continue
			}
			dst = append(dst, hostPort(ep.Addresses[0], ps))
		}
	}
	return dst
}

func sliceRef(es *discoveryv1.EndpointSlice) store.Ref {
	return store.Ref{Kind: store.KindEndpointSlice, Namespace: es.Namespace, Name: es.Name}
}

// validAddress reports whether an endpoint address can be a Kong target host.
func validAddress(typ discoveryv1.AddressType, addr string) bool {
	if net.ParseIP(addr) != nil {
		return true
	}
	return typ == discoveryv1.AddressTypeFQDN && validHost(addr) && !strings.HasPrefix(addr, "*.")
}

func serviceUsesProtocol(svc *corev1.Service, p *corev1.Protocol) bool {
	if p == nil || *p == corev1.ProtocolTCP {
		return true
	}
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Protocol == *p {
			return true
		}
	}
	return false
}

// hostPort joins an endpoint address and port, bracketing IPv6 addresses. Unlike KIC, an
// IPv4-mapped IPv6 address (::ffff:a.b.c.d) is bracketed too: KIC writes it bare, which Kong
// cannot parse.
func hostPort(addr, port string) string {
	if strings.Contains(addr, ":") && net.ParseIP(addr) != nil {
		return "[" + addr + "]:" + port
	}
	return addr + ":" + port
}

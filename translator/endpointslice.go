package translator

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kongsync/kongsync/store"
)

// serviceTargets are the targets of one Service port (see targets); small may be nil.
func (t *translation) serviceTargets(svc *corev1.Service, port *corev1.ServicePort, small *smallTargets) []*kong.Target {
	return t.serviceTargetsIn(svc, port, small, nil)
}

// serviceTargetsIn is serviceTargets with the target addresses in pack, when given.
func (t *translation) serviceTargetsIn(svc *corev1.Service, port *corev1.ServicePort, small *smallTargets, pack *strPack) []*kong.Target {
	if svc.Spec.Type == corev1.ServiceTypeExternalName && t.opts.Hardening.RefuseExternalNameServices {
		t.problem(serviceRef(svc), "spec.type", "ExternalName Services are refused (--refuse-external-name-services): "+
			"their externalName can be any host, another namespace's included; the upstream gets no targets")
		return nil
	}
	if svc.Annotations[annServiceUpstream] == "true" || t.classParams().ServiceUpstream {
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
	var buf [8]endpointRef
	refs := buf[:0]
	for _, es := range t.snap.EndpointSlicesFor(svc.Namespace, svc.Name) {
		if t.opts.Hardening.RefuseUnmanagedEndpointSlices && !managedSlice(es) {
			t.problem(sliceRef(es), "metadata.labels["+discoveryv1.LabelManagedBy+"]", "EndpointSlices not managed by "+
				"Kubernetes' endpoint controller (%s) are refused (--refuse-unmanaged-endpoint-slices): whoever writes "+
				"one can point a Service at any address; its endpoints are skipped", endpointSliceController)
			continue
		}
		refs = t.sliceTargets(es, svc, port.Name, refs)
	}
	return endpointTargets(refs, small, pack)
}

// endpointSliceController is the endpointslice.kubernetes.io/managed-by value of the
// EndpointSlices Kubernetes' endpoint controller makes from a Service's selector.
const endpointSliceController = "endpointslice-controller.k8s.io"

// managedSlice reports whether Kubernetes' endpoint controller manages an EndpointSlice.
func managedSlice(es *discoveryv1.EndpointSlice) bool {
	return es.Labels[discoveryv1.LabelManagedBy] == endpointSliceController
}

// endpointRef is a usable endpoint: its address, port, whether the address is IPv6, and
// whether it drains (terminating, kept with --enable-drain-support).
type endpointRef struct {
	addr  string
	port  int32
	v6    bool
	drain bool
}

// targetKey is one target's "host:port" string and whether the endpoints merged into it were
// draining or not: what endpointTargets sorts and merges before it makes the targets, so that
// sorting moves three words, not a kong.Target's every pointer (each a GC write barrier while a
// collection runs).
type targetKey struct {
	addr        string
	drain, live bool
}

// targetSlot is one target with the "host:port" string its Target points at.
type targetSlot struct {
	t    kong.Target
	addr string
}

// smallTargets holds the targets of an upstream with at most two endpoints.
type smallTargets struct {
	slots [2]targetSlot
	ptrs  [2]*kong.Target
}

// sortKeysOnStack is how many endpoints endpointTargets sorts without allocating.
const sortKeysOnStack = 8

// endpointTargets turns endpoints into targets sorted by "host:port", descending, without
// duplicates. The targets take three allocations (strings, targets and their list) up to
// sortKeysOnStack endpoints and four above; only the strings' when small (non-nil) has room for
// them, and none for the strings when they go into pack (non-nil).
func endpointTargets(refs []endpointRef, small *smallTargets, pack *strPack) []*kong.Target {
	if len(refs) == 0 {
		return nil
	}
	size := 0
	for _, r := range refs {
		size += len(r.addr) + 8 // brackets, colon and up to 5 digits
	}
	p := pack
	if p == nil {
		p = &strPack{}
	}
	p.reserve(size)
	var buf [sortKeysOnStack]targetKey
	keys := buf[:0]
	if len(refs) > len(buf) {
		keys = make([]targetKey, 0, len(refs))
	}
	var nb [16]byte
	for _, r := range refs {
		if r.v6 {
			p.b.WriteByte('[')
		}
		p.b.WriteString(r.addr)
		if r.v6 {
			p.b.WriteByte(']')
		}
		p.writeBytes(strconv.AppendInt(append(nb[:0], ':'), int64(r.port), 10))
		keys = append(keys, targetKey{addr: p.take(), drain: r.drain, live: !r.drain})
	}
	if len(keys) > 1 {
		slices.SortFunc(keys, func(a, b targetKey) int { return strings.Compare(b.addr, a.addr) })
		keys = compactKeys(keys)
	}
	var slots []targetSlot
	var out []*kong.Target
	if small != nil && len(keys) <= len(small.slots) {
		slots, out = small.slots[:len(keys)], small.ptrs[:0]
	} else {
		slots, out = make([]targetSlot, len(keys)), make([]*kong.Target, 0, len(keys))
	}
	for i, k := range keys {
		s := &slots[i]
		s.addr = k.addr
		s.t.Target, s.t.Weight = &s.addr, drainWeight(k.drain, k.live)
		out = append(out, &s.t)
	}
	return out
}

// compactKeys drops the sorted keys' duplicate addresses, the kept one noting whether any of
// them drained or not.
func compactKeys(keys []targetKey) []targetKey {
	out := keys[:0]
	for i := range keys {
		if n := len(out); n > 0 && out[n-1].addr == keys[i].addr {
			out[n-1].drain = out[n-1].drain || keys[i].drain
			out[n-1].live = out[n-1].live || keys[i].live
			continue
		}
		out = append(out, keys[i])
	}
	return out
}

// drainWeight is the weight of a target from endpoints that drain or not (KIC's): 0 when all
// of them drain, so that Kong sends it no new connection; Kong's 100, written, when the same
// address is both (KIC keeps both and sums 0 and the default 100); else unset.
func drainWeight(drain, live bool) *int {
	switch {
	case drain && live:
		return kong.Int(100)
	case drain:
		return kong.Int(0)
	}
	return nil
}

// sliceTargets appends the address and port of every ready endpoint of es on the port named
// portName. A port without a name matches the Service port without a name (KIC panics on
// it); a port without a protocol counts as TCP, the Kubernetes default. Like KIC, a port
// matches when its protocol is TCP or one the Service uses. Ports outside 1-65535 and addresses
// that are not IPs (or DNS names, for addressType FQDN) are skipped with a problem: only
// manifests can hold them, and Kong rejects the whole configuration for one bad target.
func (t *translation) sliceTargets(es *discoveryv1.EndpointSlice, svc *corev1.Service, portName string, dst []endpointRef) []endpointRef {
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
		for i := range es.Endpoints {
			ep := &es.Endpoints[i]
			drain, ok := t.endpointUsable(ep)
			if !ok {
				continue
			}
			if !validAddress(es.AddressType, ep.Addresses[0]) {
				t.problem(sliceRef(es), "endpoints["+strconv.Itoa(i)+"].addresses[0]",
					"%s is not an IP address (nor, for addressType FQDN, a DNS name); endpoint skipped", quoteShort(ep.Addresses[0]))
				continue
			}
			addr := ep.Addresses[0]
			dst = append(dst, endpointRef{addr: addr, port: *p.Port, v6: isIPv6(addr), drain: drain})
		}
	}
	return dst
}

// endpointUsable reports whether an endpoint becomes a target and whether it drains, as KIC
// decides: a ready endpoint (an unset condition counts as ready) is used; with DrainSupport
// (--enable-drain-support) a terminating one is used too, ready or not, and drains.
func (t *translation) endpointUsable(ep *discoveryv1.Endpoint) (drain, ok bool) {
	if len(ep.Addresses) == 0 {
		return false, false
	}
	terminating := ep.Conditions.Terminating != nil && *ep.Conditions.Terminating && t.opts.DrainSupport
	ready := ep.Conditions.Ready == nil || *ep.Conditions.Ready
	return terminating, ready || terminating
}

func sliceRef(es *discoveryv1.EndpointSlice) store.Ref {
	return store.Ref{Kind: store.KindEndpointSlice, Namespace: es.Namespace, Name: es.Name}
}

// validAddress reports whether an endpoint address can be a Kong target host.
func validAddress(typ discoveryv1.AddressType, addr string) bool {
	if isIP(addr) {
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

// isIPv6 reports whether a target host needs brackets.
func isIPv6(addr string) bool {
	return strings.IndexByte(addr, ':') >= 0 && isIP(addr)
}

// isIP is net.ParseIP(addr) != nil without its allocation: an IPv4 or IPv6 address, no zone.
func isIP(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	return err == nil && ip.Zone() == ""
}

// hostPort joins an endpoint address and port, bracketing IPv6 addresses. Unlike KIC, an
// IPv4-mapped IPv6 address (::ffff:a.b.c.d) is bracketed too: KIC writes it bare, which Kong
// cannot parse.
func hostPort(addr, port string) string {
	if isIPv6(addr) {
		return "[" + addr + "]:" + port
	}
	return addr + ":" + port
}

// sortTargets orders targets by target, descending (KIC's order).
func sortTargets(ts []*kong.Target) {
	slices.SortFunc(ts, func(a, b *kong.Target) int { return strings.Compare(*b.Target, *a.Target) })
}

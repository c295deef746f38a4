package translator

import (
	"strings"
)

// The priorities of routes under Kong's expressions router, KIC's bit layout per family
// (routerenderexpr.go renders the expressions they go with).

// The two highest bits of a route's priority (45-44) say which kind of object it comes from,
// so that Ingress routes outrank HTTPRoute ones and those GRPCRoute ones (KIC's layout).
const (
	priorityKindShift     = 44
	priorityKindIngress   = 3
	priorityKindHTTPRoute = 2
	priorityKindGRPCRoute = 1
)

// streamExprPriority is the priority KIC gives every stream route under expressions.
const streamExprPriority = 1

// The width of the relative-order field of the priorities of HTTPRoute and GRPCRoute split
// matches: the matches with the same other bits are ordered across all routes of the kind
// (gwexprorder.go).
const (
	httpRelativeBits   = 12
	grpcRelativeBits   = 8
	httpRelativeMaxVal = 1<<httpRelativeBits - 1
	grpcRelativeMaxVal = 1<<grpcRelativeBits - 1
)

// priority is the priority of the route m describes; for HTTPRoute and GRPCRoute split
// matches, that of a match no other ties with.
func (m *routeMatch) priority() uint64 {
	switch m.dialect {
	case dialectIngress:
		return m.ingressPriority()
	case dialectHTTPRoute:
		return tiePriority(m.httpBasePriority(), 0)
	case dialectGRPCRoute:
		return tiePriority(m.grpcBasePriority(), 0)
	case dialectStream:
		return streamExprPriority
	}
	return 0 // the default backend's
}

// ingressPriority is KIC's priority of an Ingress route under the expressions router. From
// the lowest bit: the longest path's length (bits 0-15, capped), whether a path is a regex
// (16), whether the route has hosts and none is a wildcard (32), the number of headers
// (33-40, capped at 255; Host header annotations, which the expression leaves out, count),
// the number of kinds of criteria matched (41-43: paths, hosts, headers, methods, SNIs), and
// the Ingress kind (44-45).
func (m *routeMatch) ingressPriority() uint64 {
	o := m.rs.options()
	hosts, plain := len(m.hosts), true
	for _, h := range m.hosts {
		plain = plain && !strings.HasPrefix(*h, "*")
	}
	if o.aliasesWritten != nil {
		for _, h := range o.aliasesWritten {
			plain = plain && !strings.HasPrefix(h, "*")
		}
		hosts += len(o.aliasesWritten)
	} else {
		for _, h := range o.hostAliases {
			plain = plain && !strings.HasPrefix(*h, "*")
		}
		hosts += len(o.hostAliases)
	}
	var maxLen int
	var regex bool
	for _, p := range m.paths {
		n, re := ingressPathLength(p, m.rs.regexMarker)
		maxLen = max(maxLen, n)
		regex = regex || re
	}
	headers := len(o.headers) + o.hostHeaders
	fields := 0
	for _, has := range [...]bool{len(m.paths) > 0, hosts > 0, headers > 0, len(o.methods) > 0, len(o.snis) > 0} {
		if has {
			fields++
		}
	}
	prio := uint64(min(maxLen, 1<<16-1))
	if regex {
		prio |= 1 << 16
	}
	if hosts > 0 && plain {
		prio |= 1 << 32
	}
	prio += uint64(min(headers, 255)) << 33
	prio += uint64(fields) << 41
	return prio + priorityKindIngress<<priorityKindShift
}

// ingressPathLength is the length KIC counts for an Ingress path in the route's priority, and
// whether the path counts as a regex (Prefix and Exact do: the traditional router matches them
// by regex).
func ingressPathLength(p matchPath, marker string) (int, bool) {
	switch p.kind {
	case pathPrefix:
		if base := strings.Trim(p.value, "/"); base != "" {
			return 2 + len(base), true
		}
		return 1, true
	case pathExact:
		return 1 + len(strings.TrimLeft(p.value, "/")), true
	}
	if re, ok := strings.CutPrefix(p.value, marker); ok {
		return len(re), true
	}
	return len(p.value), false
}

// httpBasePriority is KIC's priority of an HTTPRoute split match without the relative-order
// bits: bit 43 a precise hostname, 35-42 the hostname's length, 34 an Exact path, 33 a
// RegularExpression one, 23-32 the path's length less one, 22 a method, 17-21 the header
// matches, 12-16 the query parameter matches, 44-45 the kind (sums, as KIC adds them).
func (m *routeMatch) httpBasePriority() uint64 {
	p := hostPriority(m.host())
	if len(m.paths) > 0 {
		switch pm := &m.paths[0]; {
		case pm.kind == pathNone:
		default:
			if pm.kind == pathExact {
				p += 1 << 34
			} else if pm.kind == pathRegex {
				p += 1 << 33
			}
			if pm.flags&pathNoValue == 0 && len(pm.value) > 0 {
				p += uint64(len(pm.value)-1) << 23
			}
		}
	}
	p += uint64(len(m.headers)) << 17
	if len(m.methods) > 0 {
		p += 1 << 22
	}
	p += uint64(len(m.queries)) << 12
	return p + priorityKindHTTPRoute<<priorityKindShift
}

// grpcBasePriority is KIC's priority of a GRPCRoute split match without the relative-order
// bits: bit 43 a precise hostname, 35-42 its length, 24-34 the service's length, 13-23 the
// method's, 8-12 the header matches, 44-45 the kind.
func (m *routeMatch) grpcBasePriority() uint64 {
	p := uint64(priorityKindGRPCRoute)<<priorityKindShift + hostPriority(m.host())
	for _, pm := range m.paths {
		if pm.flags&pathNoValue == 0 {
			p += uint64(len(pm.value)) << 24
		}
		if pm.flags&pathNoMethod == 0 {
			p += uint64(len(pm.method)) << 13
		}
	}
	return p + uint64(len(m.headers))<<8
}

// hostPriority is a Gateway API split match's hostname bits: 43 a precise hostname, 35-42 its
// length.
func hostPriority(host string) uint64 {
	if host == "" {
		return 0
	}
	p := uint64(len(host)) << 35
	if !strings.HasPrefix(host, "*") {
		p += 1 << 43
	}
	return p
}

// relativeMax is the relative-order value of the first (or only) split match of base.
func relativeMax(base uint64) uint64 {
	if base>>priorityKindShift == priorityKindGRPCRoute {
		return grpcRelativeMaxVal
	}
	return httpRelativeMaxVal
}

// tiePriority is the priority of the split match at index i of its tie group (in KIC's order):
// the relative bits count down from all ones and stop at zero.
func tiePriority(base uint64, i int) uint64 {
	m := relativeMax(base)
	if uint64(i) >= m {
		return base
	}
	return base + m - uint64(i)
}

package translator

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A GRPCRoute's matches as route match descriptions (routematch.go), whichever the router
// flavor: the Kong routes of each flavor (gwgrpc.go, gwgrpcexpr.go) describe theirs with these.

// describeGRPC describes one GRPCRoute match (nil: a rule without matches) under hosts: its
// method match as a path, its headers.
func describeGRPC(m *routeMatch, rs *routeSettings, hosts []*string, mt *gatewayv1.GRPCRouteMatch) {
	m.reset(dialectGRPCRoute, rs)
	m.hosts = hosts
	if mt == nil {
		m.whole = true
		return
	}
	if mm := mt.Method; mm != nil {
		p := matchPath{kind: pathGRPC}
		if mm.Type != nil && *mm.Type == gatewayv1.GRPCMethodMatchRegularExpression {
			p.kind = pathGRPCRegex
		}
		if mm.Service != nil {
			p.value = *mm.Service
		} else {
			p.flags |= pathNoValue
		}
		if mm.Method != nil {
			p.method = *mm.Method
		} else {
			p.flags |= pathNoMethod
		}
		m.paths = append(m.paths, p)
	}
	for _, h := range mt.Headers {
		k := valueOther
		switch {
		case h.Type == nil || *h.Type == gatewayv1.GRPCHeaderMatchExact:
			k = valueExact
		case *h.Type == gatewayv1.GRPCHeaderMatchRegularExpression:
			k = valueRegex
		}
		m.header(string(h.Name), h.Value, k)
	}
}

// grpcMatchAt is match j of a rule, or an empty one for a rule without matches.
func grpcMatchAt(rule *gatewayv1.GRPCRouteRule, j int) *gatewayv1.GRPCRouteMatch {
	if j < len(rule.Matches) {
		return &rule.Matches[j]
	}
	return &gatewayv1.GRPCRouteMatch{}
}

// grpcPathPart is a method match's service or method: the value, or KIC's default for a
// missing one (exactDefault for Exact matches, ".+" for RegularExpression ones).
func grpcPathPart(typ *gatewayv1.GRPCMethodMatchType, v *string, exactDefault string) string {
	if v != nil {
		return *v
	}
	if typ != nil && *typ == gatewayv1.GRPCMethodMatchRegularExpression {
		return ".+"
	}
	return exactDefault
}

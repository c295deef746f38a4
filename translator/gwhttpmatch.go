package translator

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// An HTTPRoute's matches as route match descriptions (routematch.go), whichever the router
// flavor: the Kong routes of each flavor (gwfilters.go, gwexpr.go) describe theirs with these.

// describeHTTPMatch adds an HTTPRoute match's path (pathNone for none) and method to m.
func describeHTTPMatch(m *routeMatch, mt *gatewayv1.HTTPRouteMatch) {
	p := matchPath{kind: pathNone}
	if mt.Path != nil {
		p.kind = pathPrefix
		switch t := mt.Path.Type; {
		case t != nil && *t == gatewayv1.PathMatchExact:
			p.kind = pathExact
		case t != nil && *t == gatewayv1.PathMatchRegularExpression:
			p.kind = pathRegex
		}
		if mt.Path.Value != nil {
			p.value = *mt.Path.Value
		} else {
			p.flags |= pathNoValue
		}
	}
	m.paths = append(m.paths, p)
	if mt.Method != nil {
		m.methods = append(m.methods, string(*mt.Method))
	}
}

// describeHTTPValues adds an HTTPRoute match's header and query parameter matches to m.
func describeHTTPValues(m *routeMatch, mt *gatewayv1.HTTPRouteMatch) {
	for _, x := range mt.Headers {
		k := valueOther
		switch {
		case x.Type == nil || *x.Type == gatewayv1.HeaderMatchExact:
			k = valueExact
		case *x.Type == gatewayv1.HeaderMatchRegularExpression:
			k = valueRegex
		}
		m.header(string(x.Name), x.Value, k)
	}
	for _, x := range mt.QueryParams {
		k := valueOther
		switch {
		case x.Type == nil || *x.Type == gatewayv1.QueryParamMatchExact:
			k = valueExact
		case *x.Type == gatewayv1.QueryParamMatchRegularExpression:
			k = valueRegex
		}
		m.query(string(x.Name), x.Value, k)
	}
}

// isPrefixRewrite reports a URLRewrite filter replacing the matched prefix, for which KIC makes
// a PathPrefix match capture the rest of the path.
func isPrefixRewrite(f gatewayv1.HTTPRouteFilter) bool {
	return f.Type == gatewayv1.HTTPRouteFilterURLRewrite && f.URLRewrite != nil && f.URLRewrite.Path != nil &&
		f.URLRewrite.Path.Type == gatewayv1.PrefixMatchHTTPPathModifier
}

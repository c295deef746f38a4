package translator

import (
	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// TCPIngress and UDPIngress routes under Kong's expressions router, as KIC v3.5.13 writes them:
// the traditional route's SNI (a TCPIngress rule's host) and destination port become
//
//	(tls.sni == "host") && (net.dst.port == port)
//
// (the SNI part only with a host), at priority 1, without snis or destinations. The route
// annotations then set the route's fields as under the traditional router, except the match
// criteria, which KIC ignores there (exprIgnored reports them), and without path_handling.

// streamExprPriority is the priority KIC gives every stream route under expressions.
const streamExprPriority = 1

// streamExprRoute is a stream route's expression, priority and annotation fields: host is the
// rule host ("" for none, and for every UDPIngress rule), port the listener port.
func streamExprRoute(r *document.Route, rs *routeSettings, host string, port int) {
	var m matchExpr
	m.and()
	if host != "" {
		m.snis(host)
	}
	m.ports(port)
	m.end()
	x := &exprRoute{}
	x.apply(&r.Route, &m, streamExprPriority)
	rs.applyExpr(&r.Route)
	if r.HTTPSRedirectStatusCode == nil {
		r.HTTPSRedirectStatusCode = kong.Int(426)
	}
}

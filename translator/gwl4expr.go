package translator

import (
	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator/atc"
)

// l4ExprRoute turns the traditional route of a TCPRoute, UDPRoute or TLSRoute rule into KIC's
// expression route: its SNIs (those KIC's SNI check takes) and destination ports as
// `(snis) && (ports)`, priority 1, the SNIs, destinations and path handling dropped, and the
// route annotations KIC applies under expressions. False, with a problem, when nothing is left
// to match (a TLSRoute with only wildcard hostnames): Kong refuses an empty expression.
func (t *translation) l4ExprRoute(ref store.Ref, field string, r *document.Route, rs *routeSettings) bool {
	var m matchExpr
	m.and()
	m.sniPtrs(r.SNIs)
	m.or()
	for _, d := range r.Destinations {
		if d.Port != nil {
			m.num(atc.FieldNetDstPort, atc.OpEqual, *d.Port)
		}
	}
	m.end()
	m.end()
	if m.empty() {
		t.problem(ref, field, "nothing to match under Kong's expressions router (KIC's SNI check takes no wildcard hostname); rule skipped")
		return false
	}
	(&exprRoute{}).apply(&r.Route, &m, 1)
	r.SNIs, r.Destinations, r.PathHandling = nil, nil, nil
	rs.applyExpr(&r.Route)
	return true
}

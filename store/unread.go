package store

import (
	"fmt"
	"strings"
)

// UnreadKind is a kind of KIC v3.5.13's that kongsync does not read: the live controller
// reports it when the cluster serves it (a log line, an Event, a metric), `kongsync dump` when
// the manifests hold objects of it, so that nothing KIC would have acted on is dropped silently.
type UnreadKind struct {
	Group    string
	Resource string // plural, as the CRD names it (<resource>.<group>)
	Kind     string
	Why      string // what a KIC user loses, and the gate when one decides it
}

// CRDName is the name of the CustomResourceDefinition that serves the kind.
func (u UnreadKind) CRDName() string { return u.Resource + "." + u.Group }

// GatewayAlphaKinds are the kinds KIC reads only with its GatewayAlpha feature gate on
// (default off), and kongsync likewise (BackendTLSPolicy, never: see UnreadKinds).
func GatewayAlphaKinds() []Kind { return []Kind{KindTCPRoute, KindUDPRoute, KindTLSRoute} }

// facadeUnread is KongServiceFacade's entry while its gate is off.
var facadeUnread = UnreadKind{"incubator.ingress-controller.konghq.com", "kongservicefacades", "KongServiceFacade",
	"not read: the KongServiceFacade feature gate is off (KIC's default; KIC then reads them neither, and skips " +
		"the backends naming one); --feature-gates KongServiceFacade=true reads them"}

// customEntityUnread is KongCustomEntity's entry while its gate is off.
var customEntityUnread = UnreadKind{"configuration.konghq.com", "kongcustomentities", "KongCustomEntity",
	"not read: the KongCustomEntity feature gate is off (KIC's default is on; KIC then reads them neither); " +
		"--feature-gates KongCustomEntity=true reads them"}

// UnreadKinds is the one list of KIC's kinds kongsync does not read, given whether the
// GatewayAlpha gate is on (off: TCPRoute, UDPRoute and TLSRoute are among them, as KIC then
// reads them neither), the KongServiceFacade gate (off: KongServiceFacade is among them) and
// the KongCustomEntity gate (off: KongCustomEntity is among them). A kind another change
// teaches kongsync to read leaves this list.
func UnreadKinds(gatewayAlpha, serviceFacade, customEntity bool) []UnreadKind {
	out := []UnreadKind{
		{GatewayGroup, "backendtlspolicies", "BackendTLSPolicy",
			"not read by kongsync; KIC (GatewayAlpha gate) sets the TLS of the Kong services of the Services it targets"},
	}
	if !customEntity {
		out = append(out, customEntityUnread)
	}
	if !serviceFacade {
		out = append(out, facadeUnread)
	}
	if !gatewayAlpha {
		for _, k := range GatewayAlphaKinds() {
			out = append(out, UnreadKind{GatewayGroup, strings.ToLower(string(k)) + "s", string(k),
				"not read: the GatewayAlpha feature gate is off (KIC's default; KIC then reads them neither); " +
					"--feature-gates GatewayAlpha=true reads them"})
		}
	}
	return out
}

// unreadKind returns the entry of UnreadKinds for an apiVersion and kind of a manifest.
func unreadKind(apiVersion, kind string) (UnreadKind, bool) {
	group, _, _ := strings.Cut(apiVersion, "/")
	for _, u := range UnreadKinds(false, false, false) {
		if u.Kind == kind && u.Group == group && !isGatewayAlphaKind(kind) {
			return u, true
		}
	}
	return UnreadKind{}, false
}

func isGatewayAlphaKind(kind string) bool {
	for _, k := range GatewayAlphaKinds() {
		if string(k) == kind {
			return true
		}
	}
	return false
}

// CollapseUnread replaces the manifest reader's notes on objects of UnreadKinds by one note per
// kind, in the order the kinds first appear, counting the objects and saying what is lost.
func CollapseUnread(notes []Note) []Note {
	count := map[string]int{}
	var order []string
	out := make([]Note, 0, len(notes))
	for _, n := range notes {
		if n.Unread == "" {
			out = append(out, n)
			continue
		}
		if count[n.Unread] == 0 {
			order = append(order, n.Unread)
		}
		count[n.Unread]++
	}
	for _, k := range order {
		out = append(out, Note{Source: "kongsync", Msg: unreadMsg(k, count[k], "skipped")})
	}
	return out
}

// unreadMsg words a note on n objects of an unread kind.
func unreadMsg(kind string, n int, what string) string {
	why := ""
	for _, u := range UnreadKinds(false, false, false) {
		if u.Kind == kind {
			why = u.Why
		}
	}
	return fmt.Sprintf("%d %s object(s) %s: a kind of KIC's %s", n, kind, what, why)
}

// GateKinds applies the GatewayAlpha gate to manifest objects, as the live controller applies
// it to what it watches: on, every object is kept; off, the TCPRoutes, UDPRoutes and TLSRoutes
// are dropped, one note per kind saying so. With keep (the gate not given: `kongsync dump`
// translates them as KIC's translator does), they are kept and the note says that the
// controller, with the gate off, would not read them.
func GateKinds(objs []Object, gatewayAlpha, keep bool) ([]Object, []Note) {
	if gatewayAlpha {
		return objs, nil
	}
	gated := map[Kind]int{}
	out := objs[:0:0]
	for _, o := range objs {
		k, err := KindOf(o)
		if err == nil && isGatewayAlphaKind(string(k)) {
			gated[k]++
			if !keep {
				continue
			}
		}
		out = append(out, o)
	}
	var notes []Note
	for _, k := range GatewayAlphaKinds() {
		n := gated[k]
		switch {
		case n == 0:
		case keep:
			notes = append(notes, Note{Source: "feature-gates", Msg: fmt.Sprintf("%d %s object(s) translated, as KIC's translator does; "+
				"the controller (kongsync run, as KIC) reads them only with --feature-gates GatewayAlpha=true "+
				"(off by default): give --feature-gates GatewayAlpha=false to translate as it does by default", n, k)})
		default:
			notes = append(notes, Note{Source: "feature-gates", Msg: fmt.Sprintf("%d %s object(s) not translated: "+
				"the GatewayAlpha feature gate is off (KIC's default; KIC then reads them neither)", n, k)})
		}
	}
	return out, notes
}

// GateCustomEntities applies the KongCustomEntity gate to manifest objects, as the live
// controller applies it to what it watches: on (KIC's default), every object is kept; off, the
// KongCustomEntities are dropped, one note saying so.
func GateCustomEntities(objs []Object, on bool) ([]Object, []Note) {
	return gateKind(objs, KindKongCustomEntity, on)
}

// GateFacades applies the KongServiceFacade gate to manifest objects, as the live controller
// applies it to what it watches: on, every object is kept; off, the KongServiceFacades are
// dropped, one note saying so (the translator then skips the backends naming one, as KIC).
func GateFacades(objs []Object, on bool) ([]Object, []Note) {
	return gateKind(objs, KindKongServiceFacade, on)
}

// gateKind drops the objects of kind when its gate is off, with one note saying so.
func gateKind(objs []Object, kind Kind, on bool) ([]Object, []Note) {
	if on {
		return objs, nil
	}
	n := 0
	out := objs[:0:0]
	for _, o := range objs {
		if k, err := KindOf(o); err == nil && k == kind {
			n++
			continue
		}
		out = append(out, o)
	}
	if n == 0 {
		return objs, nil
	}
	return out, []Note{{Source: "feature-gates", Msg: unreadMsg(string(kind), n, "not translated")}}
}

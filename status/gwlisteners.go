package status

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// KIC v3.5.13's messages of a listener Kong cannot serve (its Gateway controller).
const (
	msgUnsupportedProtocol = "no Kong listen with the requested protocol is configured"
	msgPortUnavailable     = "no Kong listen with the requested protocol is configured for the requested port"
)

// kongListens are the Gateway listener ports Kong serves, by protocol, as KIC derives them: each
// port of the publish Service, with the protocol of the Kong listener on its targetPort (a proxy
// listener gives HTTP, or HTTPS with ssl; a stream listener with ssl TLS; else the Service
// port's own TCP or UDP). nil: not known (no publish Service, or no replica answered yet), and
// listener ports are not checked.
type kongListens map[gatewayv1.ProtocolType]map[gatewayv1.PortNumber]bool

func listensOf(svc *corev1.Service, kong []kongsync.KongListener) kongListens {
	proxy, stream := map[int]kongsync.KongListener{}, map[int]kongsync.KongListener{}
	for _, l := range kong {
		if l.Stream {
			stream[l.Port] = l
		} else {
			proxy[l.Port] = l
		}
	}
	out := kongListens{}
	for _, p := range svc.Spec.Ports {
		proto := gatewayv1.ProtocolType(p.Protocol)
		if proto == "" {
			proto = gatewayv1.TCPProtocolType // the API server's default
		}
		target := p.TargetPort.IntValue() // a named targetPort matches no Kong port, as in KIC
		if p.TargetPort == (intstr.IntOrString{}) {
			target = int(p.Port) // the API server's default
		}
		if l, ok := stream[target]; ok && l.SSL {
			proto = gatewayv1.TLSProtocolType
		}
		if l, ok := proxy[target]; ok {
			proto = gatewayv1.HTTPProtocolType
			if l.SSL {
				proto = gatewayv1.HTTPSProtocolType
			}
		}
		if out[proto] == nil {
			out[proto] = map[gatewayv1.PortNumber]bool{}
		}
		out[proto][gatewayv1.PortNumber(p.Port)] = true
	}
	return out
}

// accepted is a listener's Accepted condition's status, reason and message: Kong must listen
// with its protocol on its port (when known).
func (k kongListens) accepted(l *gatewayv1.Listener) (bool, string, string) {
	switch {
	case k == nil:
	case len(k[l.Protocol]) == 0:
		return false, string(gatewayv1.ListenerReasonUnsupportedProtocol), msgUnsupportedProtocol
	case !k[l.Protocol][l.Port]:
		return false, string(gatewayv1.ListenerReasonPortUnavailable), msgPortUnavailable
	}
	return true, string(gatewayv1.ListenerReasonAccepted), ""
}

// listenerConflicts are the Conflicted reasons of a Gateway's listeners, by index ("" for none),
// by KIC's rules: listeners on one port must be able to share it (HTTP with HTTP; HTTPS and TLS
// with each other; TCP and UDP never) — if one cannot, every listener on the port is in
// ProtocolConflict; listeners sharing a port must differ in hostname (no hostname counting as
// one) — every listener with a repeated port and hostname is in HostnameConflict.
func listenerConflicts(ls []gatewayv1.Listener) []string {
	type portHost struct {
		port gatewayv1.PortNumber
		host gatewayv1.Hostname
	}
	first := map[gatewayv1.PortNumber]gatewayv1.ProtocolType{}
	seen, badHost := map[portHost]bool{}, map[portHost]bool{}
	badPort := map[gatewayv1.PortNumber]bool{}
	key := func(l *gatewayv1.Listener) portHost {
		k := portHost{port: l.Port}
		if l.Hostname != nil {
			k.host = *l.Hostname
		}
		return k
	}
	for i := range ls {
		l, k := &ls[i], key(&ls[i])
		proto, taken := first[l.Port]
		switch {
		case !taken:
			first[l.Port] = l.Protocol
			seen[k] = true
		case !canSharePort(l.Protocol, proto):
			badPort[l.Port] = true
		case seen[k]:
			badHost[k] = true
		default:
			seen[k] = true
		}
	}
	out := make([]string, len(ls))
	for i := range ls {
		switch {
		case badPort[ls[i].Port]:
			out[i] = string(gatewayv1.ListenerReasonProtocolConflict)
		case badHost[key(&ls[i])]:
			out[i] = string(gatewayv1.ListenerReasonHostnameConflict)
		}
	}
	return out
}

// canSharePort: KIC's (and the Gateway API's) port sharing between protocols.
func canSharePort(requested, existing gatewayv1.ProtocolType) bool {
	switch requested {
	case gatewayv1.HTTPProtocolType:
		return existing == gatewayv1.HTTPProtocolType
	case gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType:
		return existing == gatewayv1.HTTPSProtocolType || existing == gatewayv1.TLSProtocolType
	}
	return false
}

// listenerConditions are a listener's four conditions: Accepted (Kong listens with its protocol
// on its port), Conflicted (listenerConflicts), ResolvedRefs as the translator found it, and
// Programmed, True only when the other three are good (KIC's Invalid otherwise). KIC leaves out
// the good ones beside a bad one; kongsync writes all four.
func listenerConditions(ls translator.ListenerStatus, accepted bool, acceptReason, acceptMsg, conflict string, gen int64) []metav1.Condition {
	reason := ls.ResolvedRefsReason
	if reason == "" {
		reason = string(gatewayv1.ListenerReasonResolvedRefs)
	}
	msg := ""
	if !ls.ResolvedRefs {
		msg = ls.Message
	}
	conflicted := cond(string(gatewayv1.ListenerConditionConflicted), false, string(gatewayv1.ListenerReasonNoConflicts), "", gen)
	if conflict != "" {
		conflicted = cond(string(gatewayv1.ListenerConditionConflicted), true, conflict, "", gen)
	}
	programmed := cond(string(gatewayv1.ListenerConditionProgrammed), true, string(gatewayv1.ListenerReasonProgrammed), "", gen)
	if !ls.ResolvedRefs || !accepted || conflict != "" {
		programmed = cond(string(gatewayv1.ListenerConditionProgrammed), false, string(gatewayv1.ListenerReasonInvalid), "", gen)
	}
	return []metav1.Condition{
		cond(string(gatewayv1.ListenerConditionAccepted), accepted, acceptReason, acceptMsg, gen),
		conflicted,
		programmed,
		cond(string(gatewayv1.ListenerConditionResolvedRefs), ls.ResolvedRefs, reason, msg, gen),
	}
}

// gatewayAccepted is the Gateway's Accepted condition: KIC's True/Accepted while every listener
// is accepted and free of conflicts; otherwise the Gateway API's ListenersNotValid, True while
// some listener is valid and False when none is, naming the invalid ones.
func gatewayAccepted(invalid []string, listeners int, gen int64) metav1.Condition {
	if len(invalid) == 0 {
		return cond(string(gatewayv1.GatewayConditionAccepted), true, string(gatewayv1.GatewayReasonAccepted), gatewayAcceptedMessage, gen)
	}
	sort.Strings(invalid)
	msg := "listeners not accepted or in conflict (see their conditions): " + strings.Join(invalid, ", ")
	return cond(string(gatewayv1.GatewayConditionAccepted), len(invalid) < listeners, string(gatewayv1.GatewayReasonListenersNotValid), msg, gen)
}

package translator

import (
	"strconv"
)

// portMode says how an Ingress backend names its Service port; it decides the names KIC gives
// to Kong services, upstreams and routes.
type portMode uint8

const (
	portImplicit portMode = iota
	portByNumber
	portByName
)

// portDef is an Ingress backend's reference to a Service port.
type portDef struct {
	mode   portMode
	number int32
	name   string
}

// canonical is the port segment of entity names: the number, the name, or KIC's placeholder
// for a backend that names no port.
func (p portDef) canonical() string { return string(p.appendTo(nil)) }

// appendTo appends canonical() to dst.
func (p portDef) appendTo(dst []byte) []byte {
	switch p.mode {
	case portByNumber:
		return strconv.AppendInt(dst, int64(p.number), 10)
	case portByName:
		return append(dst, p.name...)
	}
	return append(dst, "implicitPort"...)
}

// kongServiceName is `<namespace>.<service>.<port>`, KIC's name for the Kong service of one
// Kubernetes Service port.
func kongServiceName(ns, svc string, p portDef) string {
	return string(appendServiceName(nil, ns, svc, p))
}

func appendServiceName(dst []byte, ns, svc string, p portDef) []byte {
	dst = append(append(append(dst, ns...), '.'), svc...)
	return p.appendTo(append(dst, '.'))
}

// upstreamName is `<service>.<namespace>.<port>.svc`: the Kong service host and upstream name.
func upstreamName(ns, svc string, p portDef) string {
	return string(appendUpstreamName(nil, ns, svc, p))
}

func appendUpstreamName(dst []byte, ns, svc string, p portDef) []byte {
	dst = append(append(append(dst, svc...), '.'), ns...)
	return append(p.appendTo(append(dst, '.')), ".svc"...)
}

// routeName is `<namespace>.<ingress>.<service>.<host>.<port>`; `*` in the host becomes `_`.
func routeName(ns, ingress, svc, host string, p portDef) string {
	return string(appendRouteName(nil, ns, ingress, svc, host, p))
}

func appendRouteName(dst []byte, ns, ingress, svc, host string, p portDef) []byte {
	dst = append(append(append(append(append(dst, ns...), '.'), ingress...), '.'), svc...)
	dst = append(dst, '.')
	for i := 0; i < len(host); i++ {
		if c := host[i]; c == '*' {
			dst = append(dst, '_')
		} else {
			dst = append(dst, c)
		}
	}
	return p.appendTo(append(dst, '.'))
}

// withID returns name (given as bytes) and its id in space as strings sharing one allocation.
func withID(name []byte, space idSpace) (string, string) {
	var p strPack
	p.grow(len(name) + 36)
	p.writeBytes(name)
	n := p.take()
	return n, p.addID(space, n)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// nsNameKey is the "namespace/name" string KIC sorts objects by (a plain string comparison,
// which differs from comparing namespace then name when a namespace is a prefix of another).
func nsNameKey(ns, name string) string { return ns + "/" + name }

// appendFacadeRouteName is KIC's route name for a KongServiceFacade backend,
// `<namespace>.<ingress>.<host>.<facade>.svc.facade` (no port: a facade names one); `*` in the
// host becomes `_`.
func appendFacadeRouteName(dst []byte, ns, ingress, host, facade string) []byte {
	dst = append(append(append(append(dst, ns...), '.'), ingress...), '.')
	for i := 0; i < len(host); i++ {
		if c := host[i]; c == '*' {
			dst = append(dst, '_')
		} else {
			dst = append(dst, c)
		}
	}
	return appendFacadeName(append(dst, '.'), "", facade)
}

// appendFacadeName is `<namespace>.<facade>.svc.facade`, a facade's Kong service name, host and
// upstream name (without ns, `<facade>.svc.facade`).
func appendFacadeName(dst []byte, ns, facade string) []byte {
	if ns != "" {
		dst = append(append(dst, ns...), '.')
	}
	return append(append(dst, facade...), ".svc.facade"...)
}

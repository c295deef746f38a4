package translator

import (
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

// Tag prefixes KIC writes on every entity, so that Kong's errors can be mapped back to objects
// and so that users migrating from KIC keep their tag-based tooling.
const (
	tagName      = "k8s-name:"
	tagNamespace = "k8s-namespace:"
	tagKind      = "k8s-kind:"
	tagUID       = "k8s-uid:"
	tagGroup     = "k8s-group:"
	tagVersion   = "k8s-version:"
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
func (p portDef) canonical() string {
	switch p.mode {
	case portByNumber:
		return strconv.FormatInt(int64(p.number), 10)
	case portByName:
		return p.name
	}
	return "implicitPort"
}

// kongServiceName is `<namespace>.<service>.<port>`, KIC's name for the Kong service of one
// Kubernetes Service port.
func kongServiceName(ns, svc string, p portDef) string {
	return ns + "." + svc + "." + p.canonical()
}

// upstreamName is `<service>.<namespace>.<port>.svc`: the Kong service host and upstream name.
func upstreamName(ns, svc string, p portDef) string {
	return svc + "." + ns + "." + p.canonical() + ".svc"
}

// routeName is `<namespace>.<ingress>.<service>.<host>.<port>`; `*` in the host becomes `_`.
func routeName(ns, ingress, svc, host string, p portDef) string {
	host = strings.ReplaceAll(host, "*", "_")
	return ns + "." + ingress + "." + svc + "." + host + "." + p.canonical()
}

// objectTags returns KIC's tags for an object: name, namespace, kind, uid, group (not for the
// core group), version, then the distinct values of its konghq.com/tags annotation. Empty
// metadata fields give no tag, as in KIC. The strings share one backing array (three
// allocations per object instead of two per tag).
func objectTags(kind store.Kind, obj metav1.Object) []*string {
	gvk := kind.GVK()
	user := splitList(obj.GetAnnotations()[annTags])
	fixed := [...]struct{ prefix, v string }{
		{tagName, obj.GetName()}, {tagNamespace, obj.GetNamespace()}, {tagKind, gvk.Kind},
		{tagUID, string(obj.GetUID())}, {tagGroup, gvk.Group}, {tagVersion, gvk.Version},
	}
	size := 0
	for _, f := range fixed {
		size += len(f.prefix) + len(f.v)
	}
	var b strings.Builder
	b.Grow(size)
	var ends [len(fixed)]int
	for i, f := range fixed {
		if f.v != "" {
			b.WriteString(f.prefix)
			b.WriteString(f.v)
		}
		ends[i] = b.Len()
	}
	all := b.String()
	vals := make([]string, 0, len(fixed)+len(user))
	prev := 0
	for _, end := range ends {
		if end > prev {
			vals = append(vals, all[prev:end])
		}
		prev = end
	}
	for i, t := range user {
		if !containsString(user[:i], t) {
			vals = append(vals, t)
		}
	}
	tags := make([]*string, len(vals))
	for i := range vals {
		tags[i] = &vals[i]
	}
	return tags
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

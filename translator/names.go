package translator

import (
	"strconv"

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

// objectTags returns KIC's tags for an object: name, namespace, kind, uid, group (not for the
// core group), version, then the distinct values of its konghq.com/tags annotation. Empty
// metadata fields give no tag, as in KIC. The tag strings share one allocation, and the slice
// and its values another.
func objectTags(kind store.Kind, obj metav1.Object) []*string {
	return objectTagsIn(kind, obj, nil, nil)
}

// objectTagsIn is objectTags with the tags kept in blk, when given and there are no
// konghq.com/tags: an entity then holds its tags in its own allocation. nsTag, when given,
// remembers the last namespace tag made ({namespace, tag}): objects of one namespace share it.
func objectTagsIn(kind store.Kind, obj metav1.Object, blk *tagBlock, nsTag *[2]string) []*string {
	gvk := kind.GVK()
	user := splitList(obj.GetAnnotations()[annTags])
	fixed := [...]struct{ prefix, v string }{
		{tagName, obj.GetName()}, {tagNamespace, obj.GetNamespace()}, {tagKind, gvk.Kind},
		{tagUID, string(obj.GetUID())}, {tagGroup, gvk.Group}, {tagVersion, gvk.Version},
	}
	shared := ""
	if nsTag != nil && nsTag[0] == obj.GetNamespace() && nsTag[1] != "" {
		shared = nsTag[1]
	}
	size := 0
	for i, f := range fixed {
		if _, ok := constTag(f.prefix, f.v); !ok && (i != 1 || shared == "") {
			size += len(f.prefix) + len(f.v)
		}
	}
	var p strPack
	p.grow(size)
	var vals []string
	var tags []*string
	if len(user) == 0 {
		if blk == nil {
			blk = &tagBlock{}
		}
		vals, tags = blk.vals[:0], blk.ptrs[:0]
	} else {
		vals = make([]string, 0, len(fixed)+len(user))
		tags = make([]*string, 0, cap(vals))
	}
	for i, f := range fixed {
		if c, ok := constTag(f.prefix, f.v); ok {
			vals = append(vals, c)
		} else if i == 1 && shared != "" {
			vals = append(vals, shared)
		} else if f.v != "" {
			p.b.WriteString(f.prefix)
			vals = append(vals, p.add(f.v))
			if i == 1 && nsTag != nil {
				*nsTag = [2]string{f.v, vals[len(vals)-1]}
			}
		}
	}
	for i, t := range user {
		if !containsString(user[:i], t) {
			vals = append(vals, t)
		}
	}
	for i := range vals {
		tags = append(tags, &vals[i])
	}
	return tags
}

// constTag returns the tag prefix+v as a constant for the kind, group and version values of the
// kinds translated most, which then cost no copy per object.
func constTag(prefix, v string) (string, bool) {
	switch {
	case prefix == tagKind && v == "Ingress":
		return tagKind + "Ingress", true
	case prefix == tagKind && v == "Service":
		return tagKind + "Service", true
	case prefix == tagKind && v == "Secret":
		return tagKind + "Secret", true
	case prefix == tagGroup && v == "networking.k8s.io":
		return tagGroup + "networking.k8s.io", true
	case prefix == tagVersion && v == "v1":
		return tagVersion + "v1", true
	}
	return "", false
}

// tagBlock holds the tags of an object without konghq.com/tags: at most the six fixed ones.
type tagBlock struct {
	vals [6]string
	ptrs [6]*string
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

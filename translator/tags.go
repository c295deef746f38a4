package translator

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// The k8s-* tags, KIC's scheme through which every Kong entity names the Kubernetes object it
// came from. This file is their one home: the translator writes them (objectTags) and reads them
// back (RefFromTags, which the sync loop uses to map Kong's errors to objects; tagObject and
// routeIngress, which assemble uses), so the format cannot drift between writer and readers.
// Users migrating from KIC keep their tag-based tooling.
const (
	TagName      = "k8s-name:"
	TagNamespace = "k8s-namespace:"
	TagKind      = "k8s-kind:"
	TagUID       = "k8s-uid:"
	TagGroup     = "k8s-group:"
	TagVersion   = "k8s-version:"
	// TagNamedRouteRule names the Gateway API route rule (spec.rules[].name) a Kong route came from.
	TagNamedRouteRule = "k8s-named-route-rule:"
)

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
	return objectTagsPacked(kind, obj, blk, nsTag, nil)
}

// objectTagsPacked is objectTagsIn with the tag strings in pack, when given (an entity made in
// bulk with its strings).
func objectTagsPacked(kind store.Kind, obj metav1.Object, blk *tagBlock, nsTag *[2]string, pack *strPack) []*string {
	gvk := kind.GVK()
	user := splitList(obj.GetAnnotations()[annTags])
	fixed := [...]struct{ prefix, v string }{
		{TagName, obj.GetName()}, {TagNamespace, obj.GetNamespace()}, {TagKind, gvk.Kind},
		{TagUID, string(obj.GetUID())}, {TagGroup, gvk.Group}, {TagVersion, gvk.Version},
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
	p := pack
	if p == nil {
		p = &strPack{}
	}
	p.reserve(size)
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
	vals = append(vals, uniqueInPlace(user)...)
	for i := range vals {
		tags = append(tags, &vals[i])
	}
	return tags
}

// constTag returns the tag prefix+v as a constant for the kind, group and version values of the
// kinds translated most, which then cost no copy per object.
func constTag(prefix, v string) (string, bool) {
	switch {
	case prefix == TagKind && v == "Ingress":
		return TagKind + "Ingress", true
	case prefix == TagKind && v == "Service":
		return TagKind + "Service", true
	case prefix == TagKind && v == "Secret":
		return TagKind + "Secret", true
	case prefix == TagGroup && v == "networking.k8s.io":
		return TagGroup + "networking.k8s.io", true
	case prefix == TagKind && v == "HTTPRoute":
		return TagKind + "HTTPRoute", true
	case prefix == TagKind && v == "GRPCRoute":
		return TagKind + "GRPCRoute", true
	case prefix == TagGroup && v == "gateway.networking.k8s.io":
		return TagGroup + "gateway.networking.k8s.io", true
	case prefix == TagVersion && v == "v1":
		return TagVersion + "v1", true
	}
	return "", false
}

// tagBlock holds the tags of an object without konghq.com/tags: at most the six fixed ones.
type tagBlock struct {
	vals [6]string
	ptrs [6]*string
}

// RefFromTags reads the k8s-* tags of a Kong entity, the first of each (the fixed tags precede
// the values of konghq.com/tags, which could repeat a prefix). ok is false when the name or kind
// is missing, or when the namespace is missing for a namespaced kind.
func RefFromTags(tags []string) (store.Ref, bool) {
	var ref store.Ref
	var group string
	seen := [4]bool{}
	take := func(i int, dst *string, t, prefix string) {
		if !seen[i] {
			*dst, seen[i] = strings.TrimPrefix(t, prefix), true
		}
	}
	var kind string
	for _, t := range tags {
		switch {
		case strings.HasPrefix(t, TagKind):
			take(0, &kind, t, TagKind)
		case strings.HasPrefix(t, TagNamespace):
			take(1, &ref.Namespace, t, TagNamespace)
		case strings.HasPrefix(t, TagName):
			take(2, &ref.Name, t, TagName)
		case strings.HasPrefix(t, TagGroup):
			take(3, &group, t, TagGroup)
		}
	}
	ref.Kind = store.Kind(kind)
	if ref.Kind == "" || ref.Name == "" {
		return store.Ref{}, false
	}
	if known(ref.Kind) && ref.Kind.GVK().Group != group && group != "" {
		return store.Ref{}, false // same kind name in another API group: not ours
	}
	if ref.Namespace == "" && !clusterScoped[ref.Kind] {
		return store.Ref{}, false
	}
	return ref, true
}

// clusterScoped are the kinds whose entities carry no k8s-namespace tag.
var clusterScoped = map[store.Kind]bool{
	store.KindIngressClass: true, "KongClusterPlugin": true, "GatewayClass": true, store.KindKongVault: true, store.KindKongLicense: true,
}

func known(k store.Kind) bool {
	for _, s := range store.Kinds {
		if s == k {
			return true
		}
	}
	return false
}

// tagObject reads the namespace and name of the object an entity came from out of its
// k8s-namespace and k8s-name tags, the first of each (KIC's fixed tags precede user tags).
func tagObject(tags []*string) (ns, name string, ok bool) {
	var haveNS, haveName bool
	for _, tp := range tags {
		if tp == nil {
			continue
		}
		switch tag := *tp; {
		case !haveName && strings.HasPrefix(tag, TagName):
			name, haveName = tag[len(TagName):], true
		case !haveNS && strings.HasPrefix(tag, TagNamespace):
			ns, haveNS = tag[len(TagNamespace):], true
		}
	}
	return ns, name, haveNS && haveName
}

// routeIngress reads the namespace and name of a route's Ingress from its tags.
func routeIngress(r *document.Route) (ns, name string, ok bool) {
	kind := false
	for _, tg := range r.Tags {
		if tg == nil {
			continue
		}
		switch v := *tg; {
		case strings.HasPrefix(v, TagNamespace):
			ns = v[len(TagNamespace):]
		case strings.HasPrefix(v, TagName):
			name = v[len(TagName):]
		case v == TagKind+"Ingress":
			kind = true
		}
	}
	return ns, name, kind && name != ""
}

// objectTagsWith is objectTags with prefix+value tags for values after KIC's fixed tags and
// before the object's konghq.com/tags (KIC's additional tags, such as k8s-named-route-rule).
func objectTagsWith(kind store.Kind, obj metav1.Object, prefix string, values []string) []*string {
	tags := objectTags(kind, obj)
	if len(values) == 0 {
		return tags
	}
	nUser := len(uniqueInPlace(splitList(obj.GetAnnotations()[annTags])))
	at := len(tags) - nUser
	extra := make([]*string, len(values))
	for i, v := range values {
		s := prefix + v
		extra[i] = &s
	}
	return slices.Insert(slices.Clip(tags), at, extra...)
}

// uniqueInPlace keeps the first of each string of list, in order, reusing list's storage. A
// set takes over from a search from a few strings on: an annotation can list 100,000 tags.
func uniqueInPlace(list []string) []string {
	if len(list) <= 8 {
		out := list[:0]
		for _, v := range list {
			if !containsString(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	seen := make(map[string]struct{}, len(list))
	out := list[:0]
	for _, v := range list {
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	return out
}

// firstTag returns the value of the first tag with prefix (KIC's fixed tags precede user tags).
func firstTag(tags []*string, prefix string) string {
	for _, tp := range tags {
		if tp != nil && strings.HasPrefix(*tp, prefix) {
			return (*tp)[len(prefix):]
		}
	}
	return ""
}

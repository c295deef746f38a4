package translator

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The recording view: pieces see the snapshot only through it, and every lookup they make is
// noted in the running piece's reads (memo.go), which is what decides when a piece is reused.

// lookup is snap.Get with the typed fast paths for the kinds pieces read most; a missing object
// is a nil interface, never a typed nil.
func lookup(snap *store.Snapshot, ref store.Ref) (store.Object, bool) {
	if ref.Kind == store.KindService {
		if s, ok := snap.Service(ref.Namespace, ref.Name); ok {
			return s, true
		}
		return nil, false
	}
	return snap.Get(ref)
}

// reads is what one piece looked up. mask has the bit of every kind read (kindBit): a piece
// whose kinds all kept their lists since it was last checked needs no lookups to be reused.
type reads struct {
	objs  []objRead
	lists []listRead
	kinds []kindRead
	mask  uint32
}

// objRead is one object looked up by kind, namespace and name, as found (nil: missing).
type objRead struct {
	ref store.Ref
	obj store.Object
}

// listRead is one EndpointSlice index lookup, as found.
type listRead struct {
	ns, svc string
	list    []*discoveryv1.EndpointSlice
}

// kindRead is a scan of a whole kind: valid while the kind's list is the same list (snapshots
// share the lists of kinds that did not change).
type kindRead struct {
	kind store.Kind
	list []store.Object
}

// view is the snapshot as a piece sees it: lookups are recorded in rec while a piece runs
// (rec is nil in assemble, whose reads are redone on every build anyway).
type view struct {
	snap *store.Snapshot
	rec  *reads
}

func (v *view) note(kind store.Kind, ns, name string, o store.Object) {
	if v.rec != nil {
		v.rec.objs = append(v.rec.objs, objRead{ref: store.Ref{Kind: kind, Namespace: ns, Name: name}, obj: o})
		v.rec.mask |= kindBit(kind)
	}
}

// noted records a typed lookup's answer: the object, or a nil interface when missing (never a
// typed nil, which would not equal a later "missing").
func noted[T store.Object](v *view, kind store.Kind, ns, name string, o T, ok bool) (T, bool) {
	var obj store.Object
	if ok {
		obj = o
	}
	v.note(kind, ns, name, obj)
	return o, ok
}

// Service looks up a Service.
func (v *view) Service(ns, name string) (*corev1.Service, bool) {
	s, ok := v.snap.Service(ns, name)
	return noted(v, store.KindService, ns, name, s, ok)
}

// Secret looks up a Secret.
func (v *view) Secret(ns, name string) (*corev1.Secret, bool) {
	s, ok := v.snap.Secret(ns, name)
	return noted(v, store.KindSecret, ns, name, s, ok)
}

// ConfigMap looks up a ConfigMap.
func (v *view) ConfigMap(ns, name string) (*corev1.ConfigMap, bool) {
	c, ok := v.snap.ConfigMap(ns, name)
	return noted(v, store.KindConfigMap, ns, name, c, ok)
}

// KongUpstreamPolicy looks up a KongUpstreamPolicy.
func (v *view) KongUpstreamPolicy(ns, name string) (*kup.KongUpstreamPolicy, bool) {
	p, ok := v.snap.KongUpstreamPolicy(ns, name)
	return noted(v, store.KindKongUpstreamPolicy, ns, name, p, ok)
}

// KongIngress looks up a KongIngress.
func (v *view) KongIngress(ns, name string) (*configurationv1.KongIngress, bool) {
	k, ok := v.snap.KongIngress(ns, name)
	return noted(v, store.KindKongIngress, ns, name, k, ok)
}

// KongServiceFacade looks up a KongServiceFacade.
func (v *view) KongServiceFacade(ns, name string) (*kic.KongServiceFacade, bool) {
	f, ok := v.snap.KongServiceFacade(ns, name)
	return noted(v, store.KindKongServiceFacade, ns, name, f, ok)
}

// Get looks up any object.
func (v *view) Get(ref store.Ref) (store.Object, bool) {
	o, ok := v.snap.Get(ref)
	v.note(ref.Kind, ref.Namespace, ref.Name, o)
	return o, ok
}

// EndpointSlicesFor looks up a Service's EndpointSlices.
func (v *view) EndpointSlicesFor(ns, svc string) []*discoveryv1.EndpointSlice {
	l := v.snap.EndpointSlicesFor(ns, svc)
	if v.rec != nil {
		v.rec.lists = append(v.rec.lists, listRead{ns: ns, svc: svc, list: l})
		v.rec.mask |= kindBit(store.KindEndpointSlice)
	}
	return l
}

// Objects scans a whole kind.
func (v *view) Objects(k store.Kind) []store.Object {
	l := v.snap.Objects(k)
	if v.rec != nil {
		v.rec.kinds = append(v.rec.kinds, kindRead{kind: k, list: l})
		v.rec.mask |= kindBit(k)
	}
	return l
}

// Secrets scans every Secret.
func (v *view) Secrets() []*corev1.Secret {
	v.Objects(store.KindSecret)
	return v.snap.Secrets()
}

// ConfigMaps scans every ConfigMap.
func (v *view) ConfigMaps() []*corev1.ConfigMap {
	v.Objects(store.KindConfigMap)
	return v.snap.ConfigMaps()
}

package informer

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// crdResource is one custom resource kind the translator reads. Its CRD may be installed before
// or after kongsync starts, and removed again (crdwatch.go follows it). versions are the
// versions kongsync decodes, preferred first: each is read into the same typed struct, the one
// the offline manifest reader produces.
type crdResource struct {
	group      string
	resource   string
	versions   []string
	kind       store.Kind
	namespaced bool
	newObj     func() store.Object
}

// crdName is the name of the CustomResourceDefinition that serves the resource.
func (r crdResource) crdName() string { return r.resource + "." + r.group }

// crdResources are the Kong and Gateway API kinds. The preferred Gateway API versions are those
// KIC v3.5.13 reads (v1, v1alpha2 for the L4 and TLS routes, v1beta1 for ReferenceGrant); a
// cluster that does not serve them (the standard channel of gateway-api v1.6 serves only v1 of
// TCPRoute, UDPRoute and TLSRoute) is read at another served version. All of them decode into the
// sigs.k8s.io/gateway-api v1 types, whose JSON is the same for what is read.
var crdResources = []crdResource{
	{configurationv1.SchemeGroupVersion.Group, "kongconsumers", []string{"v1"}, store.KindKongConsumer, true,
		func() store.Object { return &configurationv1.KongConsumer{} }},
	{configurationv1.SchemeGroupVersion.Group, "kongplugins", []string{"v1"}, store.KindKongPlugin, true,
		func() store.Object { return &configurationv1.KongPlugin{} }},
	{configurationv1.SchemeGroupVersion.Group, "kongclusterplugins", []string{"v1"}, store.KindKongClusterPlugin, false,
		func() store.Object { return &configurationv1.KongClusterPlugin{} }},
	{configurationv1beta1.SchemeGroupVersion.Group, "kongupstreampolicies", []string{"v1beta1"}, store.KindKongUpstreamPolicy, true,
		func() store.Object { return &configurationv1beta1.KongUpstreamPolicy{} }},
	{configurationv1beta1.SchemeGroupVersion.Group, "tcpingresses", []string{"v1beta1"}, store.KindTCPIngress, true,
		func() store.Object { return &configurationv1beta1.TCPIngress{} }},
	{configurationv1beta1.SchemeGroupVersion.Group, "udpingresses", []string{"v1beta1"}, store.KindUDPIngress, true,
		func() store.Object { return &configurationv1beta1.UDPIngress{} }},
	{configurationv1beta1.SchemeGroupVersion.Group, "kongconsumergroups", []string{"v1beta1"}, store.KindKongConsumerGroup, true,
		func() store.Object { return &configurationv1beta1.KongConsumerGroup{} }},
	{configurationv1.SchemeGroupVersion.Group, "kongingresses", []string{"v1"}, store.KindKongIngress, true,
		func() store.Object { return &configurationv1.KongIngress{} }},
	{configurationv1alpha1.SchemeGroupVersion.Group, "ingressclassparameterses", []string{"v1alpha1"}, store.KindIngressClassParameters, true,
		func() store.Object { return &configurationv1alpha1.IngressClassParameters{} }},
	{configurationv1alpha1.SchemeGroupVersion.Group, "kongvaults", []string{"v1alpha1"}, store.KindKongVault, false,
		func() store.Object { return &configurationv1alpha1.KongVault{} }},
	{configurationv1alpha1.SchemeGroupVersion.Group, "konglicenses", []string{"v1alpha1"}, store.KindKongLicense, false,
		func() store.Object { return &configurationv1alpha1.KongLicense{} }},
	{configurationv1alpha1.SchemeGroupVersion.Group, "kongcustomentities", []string{"v1alpha1"}, store.KindKongCustomEntity, true,
		func() store.Object { return &configurationv1alpha1.KongCustomEntity{} }},
	{incubatorv1alpha1.SchemeGroupVersion.Group, "kongservicefacades", []string{"v1alpha1"}, store.KindKongServiceFacade, true,
		func() store.Object { return &incubatorv1alpha1.KongServiceFacade{} }},
	{store.GatewayGroup, "gatewayclasses", []string{"v1", "v1beta1"}, store.KindGatewayClass, false,
		func() store.Object { return &gatewayv1.GatewayClass{} }},
	{store.GatewayGroup, "gateways", []string{"v1", "v1beta1"}, store.KindGateway, true,
		func() store.Object { return &gatewayv1.Gateway{} }},
	{store.GatewayGroup, "httproutes", []string{"v1", "v1beta1"}, store.KindHTTPRoute, true,
		func() store.Object { return &gatewayv1.HTTPRoute{} }},
	{store.GatewayGroup, "grpcroutes", []string{"v1", "v1alpha2"}, store.KindGRPCRoute, true,
		func() store.Object { return &gatewayv1.GRPCRoute{} }},
	{store.GatewayGroup, "tcproutes", []string{"v1alpha2", "v1"}, store.KindTCPRoute, true,
		func() store.Object { return &gatewayv1.TCPRoute{} }},
	{store.GatewayGroup, "udproutes", []string{"v1alpha2", "v1"}, store.KindUDPRoute, true,
		func() store.Object { return &gatewayv1.UDPRoute{} }},
	{store.GatewayGroup, "tlsroutes", []string{"v1alpha2", "v1", "v1alpha3"}, store.KindTLSRoute, true,
		func() store.Object { return &gatewayv1.TLSRoute{} }},
	{store.GatewayGroup, "referencegrants", []string{"v1beta1", "v1", "v1alpha2"}, store.KindReferenceGrant, true,
		func() store.Object { return &gatewayv1.ReferenceGrant{} }},
}

// crdResourceOf returns the entry of crdResources for kind.
func crdResourceOf(kind store.Kind) (crdResource, bool) {
	for _, r := range crdResources {
		if r.kind == kind {
			return r, true
		}
	}
	return crdResource{}, false
}

// namespaceGVR is what the Namespace informers watch (as metadata only).
var namespaceGVR = corev1.SchemeGroupVersion.WithResource("namespaces")

// watchSpec is one informer of a custom resource (or of Namespaces): its kind, the version it
// reads, and its scope.
type watchSpec struct {
	kind store.Kind
	gvr  schema.GroupVersionResource
	// namespace is the namespace listed; "" for all namespaces or a cluster-scoped kind.
	namespace string
	// name limits a Namespace informer to the Namespace of that name (under --watch-namespace,
	// only the watched namespaces' labels are read).
	name string
}

// scope identifies what a watch covers whatever version it reads: a watch replacing another of
// the same scope at a new version takes over its objects.
type scope struct {
	kind            store.Kind
	namespace, name string
}

func (s watchSpec) scope() scope { return scope{s.kind, s.namespace, s.name} }

// covers reports whether a stored object is within the watch's scope.
func (s scope) covers(namespace, name string) bool {
	switch {
	case s.name != "":
		return name == s.name
	case s.namespace != "":
		return namespace == s.namespace
	}
	return true
}

// servedSet holds the resources discovery lists, as group/version/resource.
type servedSet map[schema.GroupVersionResource]bool

// version picks the version r is read at: the first of r.versions the server serves.
func (s servedSet) version(r crdResource) (string, bool) {
	for _, v := range r.versions {
		if s[schema.GroupVersionResource{Group: r.group, Version: v, Resource: r.resource}] {
			return v, true
		}
	}
	return "", false
}

// desiredWatches lists the informers to run for what the server serves: each served resource at
// its chosen version, per watched namespace if it is namespaced (namespaces holds "" for all),
// and the Namespaces while any Gateway API kind is watched.
func desiredWatches(served servedSet, namespaces []string) []watchSpec {
	var out []watchSpec
	gateway := false
	for _, r := range crdResources {
		v, ok := served.version(r)
		if !ok {
			continue
		}
		gateway = gateway || slices.Contains(store.GatewayKinds, r.kind)
		gvr := schema.GroupVersionResource{Group: r.group, Version: v, Resource: r.resource}
		if !r.namespaced {
			out = append(out, watchSpec{kind: r.kind, gvr: gvr})
			continue
		}
		for _, ns := range namespaces {
			out = append(out, watchSpec{kind: r.kind, gvr: gvr, namespace: ns})
		}
	}
	if gateway {
		for _, ns := range namespaces {
			out = append(out, watchSpec{kind: store.KindNamespace, gvr: namespaceGVR, name: ns})
		}
	}
	return out
}

// resourceLister is the part of the discovery client kongsync uses.
type resourceLister interface {
	ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
}

// discoverServed asks discovery which of crdResources' versions the API server serves. A group
// version the server does not know serves none; any other error fails the whole discovery, so a
// flaky API server never makes a served kind look removed.
func discoverServed(disc resourceLister) (servedSet, error) {
	served := servedSet{}
	asked := map[schema.GroupVersion]bool{}
	for _, r := range crdResources {
		for _, v := range r.versions {
			gv := schema.GroupVersion{Group: r.group, Version: v}
			if asked[gv] {
				continue
			}
			asked[gv] = true
			list, err := disc.ServerResourcesForGroupVersion(gv.String())
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("controller: discovering %s: %w", gv, err)
			}
			for _, res := range list.APIResources {
				served[gv.WithResource(res.Name)] = true
			}
		}
	}
	return served, nil
}

// undecodable is an object of a custom resource that did not decode into its typed struct: the
// handler logs it and drops the object from the store rather than keep a stale version, and the
// informer goes on with the others (a transform error would fail its whole list).
type undecodable struct {
	*unstructured.Unstructured
	err error
}

// trimObjectMeta is trimMeta through the metav1.Object interface, keeping every annotation but
// the last-applied one (custom resources carry the konghq.com/ ones KIC reads, and few others).
func trimObjectMeta(o store.Object) {
	o.SetManagedFields(nil)
	o.SetOwnerReferences(nil)
	o.SetFinalizers(nil)
	if a := o.GetAnnotations(); a != nil {
		if _, ok := a[lastAppliedAnnotation]; ok {
			delete(a, lastAppliedAnnotation)
			o.SetAnnotations(a)
		}
	}
}

// transformNamespace keeps what allowedRoutes selectors read of a Namespace: its name and
// labels (and the identity the store compares).
func transformNamespace(obj any) (any, error) {
	p, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion, Labels: p.Labels}}, nil
}

// transformCRD keeps the name of a CustomResourceDefinition (and its resourceVersion, so that an
// update still reads as one): the watcher only needs to hear that one of ours changed.
func transformCRD(obj any) (any, error) {
	if p, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return &metav1.PartialObjectMetadata{TypeMeta: p.TypeMeta, ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion}}, nil
	}
	return obj, nil
}

// Package store keeps the Kubernetes objects kongsync translates, indexed for the lookups the
// translator makes, and hands out immutable snapshots of them. It is fed either by informers
// (the live controller) or by manifest files (the offline dump); it never imports the translator.
package store

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
)

// Object is what the store holds: any typed Kubernetes object with metadata.
type Object interface {
	metav1.Object
	runtime.Object
}

// Kind names a kind of object the store knows. Informer objects arrive without TypeMeta, so the
// store derives the kind from the Go type rather than trusting apiVersion/kind fields.
type Kind string

// The kinds the store holds. Adding a kind means adding it here, in kindOf and in GVK.
const (
	KindIngress       Kind = "Ingress"
	KindIngressClass  Kind = "IngressClass"
	KindService       Kind = "Service"
	KindEndpointSlice Kind = "EndpointSlice"
	KindSecret        Kind = "Secret"
	// KindConfigMap is read only when labelled konghq.com/ca-cert: "true" (CA certificates).
	KindConfigMap Kind = "ConfigMap"

	KindKongConsumer      Kind = "KongConsumer"
	KindKongPlugin        Kind = "KongPlugin"
	KindKongClusterPlugin Kind = "KongClusterPlugin"

	KindKongUpstreamPolicy Kind = "KongUpstreamPolicy"
	KindTCPIngress         Kind = "TCPIngress"
	KindUDPIngress         Kind = "UDPIngress"
	KindKongConsumerGroup  Kind = "KongConsumerGroup"

	KindKongIngress            Kind = "KongIngress"
	KindIngressClassParameters Kind = "IngressClassParameters"

	// KindKongVault is cluster-scoped.
	KindKongVault Kind = "KongVault"
	// KindKongLicense is cluster-scoped.
	KindKongLicense Kind = "KongLicense"

	// KindKongServiceFacade (incubator.ingress-controller.konghq.com) is read only with the
	// KongServiceFacade feature gate on.
	KindKongServiceFacade Kind = "KongServiceFacade"
	// KindKongCustomEntity is read only with the KongCustomEntity feature gate on (the default).
	KindKongCustomEntity Kind = "KongCustomEntity"

	KindGatewayClass   Kind = "GatewayClass"
	KindGateway        Kind = "Gateway"
	KindHTTPRoute      Kind = "HTTPRoute"
	KindGRPCRoute      Kind = "GRPCRoute"
	KindTCPRoute       Kind = "TCPRoute"
	KindUDPRoute       Kind = "UDPRoute"
	KindTLSRoute       Kind = "TLSRoute"
	KindReferenceGrant Kind = "ReferenceGrant"

	// KindNamespace is read for its labels only (Gateway listeners' allowedRoutes selectors).
	KindNamespace Kind = "Namespace"
)

// GatewayGroup is the Gateway API's group.
const GatewayGroup = "gateway.networking.k8s.io"

// Kinds lists every kind the store holds, in a fixed order (used for deterministic iteration).
var Kinds = []Kind{KindIngress, KindIngressClass, KindService, KindEndpointSlice, KindSecret,
	KindKongConsumer, KindKongPlugin, KindKongClusterPlugin, KindKongUpstreamPolicy,
	KindTCPIngress, KindUDPIngress,
	KindGatewayClass, KindGateway, KindHTTPRoute, KindGRPCRoute, KindTCPRoute, KindUDPRoute, KindTLSRoute,
	KindReferenceGrant, KindNamespace,
	KindKongConsumerGroup,
	KindKongIngress,
	KindIngressClassParameters,
	KindKongVault,
	KindKongLicense,
	KindKongServiceFacade,
	KindConfigMap,
	KindKongCustomEntity,
}

// GatewayKinds are the Gateway API kinds, all held as sigs.k8s.io/gateway-api/apis/v1 types
// whatever version they were read at (the versions' schemas are the same for what is read).
var GatewayKinds = []Kind{KindGatewayClass, KindGateway, KindHTTPRoute, KindGRPCRoute, KindTCPRoute,
	KindUDPRoute, KindTLSRoute, KindReferenceGrant}

// GVK is the group/version/kind of each stored kind; tags and events need it because objects
// fetched by informers carry no TypeMeta. The Gateway API versions are the ones KIC v3.5.13
// reads (its k8s-version tags): v1alpha2 for the L4 and TLS routes, v1beta1 for ReferenceGrant.
func (k Kind) GVK() schema.GroupVersionKind {
	switch k {
	case KindGatewayClass, KindGateway, KindHTTPRoute, KindGRPCRoute:
		return schema.GroupVersionKind{Group: GatewayGroup, Version: "v1", Kind: string(k)}
	case KindTCPRoute, KindUDPRoute, KindTLSRoute:
		return schema.GroupVersionKind{Group: GatewayGroup, Version: "v1alpha2", Kind: string(k)}
	case KindReferenceGrant:
		return schema.GroupVersionKind{Group: GatewayGroup, Version: "v1beta1", Kind: string(k)}
	case KindIngress, KindIngressClass:
		return networkingv1.SchemeGroupVersion.WithKind(string(k))
	case KindEndpointSlice:
		return discoveryv1.SchemeGroupVersion.WithKind(string(k))
	case KindKongConsumer, KindKongPlugin, KindKongClusterPlugin:
		return configurationv1.SchemeGroupVersion.WithKind(string(k))
	case KindKongUpstreamPolicy, KindTCPIngress, KindUDPIngress, KindKongConsumerGroup:
		return configurationv1beta1.SchemeGroupVersion.WithKind(string(k))
	case KindKongIngress:
		return configurationv1.SchemeGroupVersion.WithKind(string(k))
	case KindIngressClassParameters, KindKongVault, KindKongLicense, KindKongCustomEntity:
		return configurationv1alpha1.SchemeGroupVersion.WithKind(string(k))
	case KindKongServiceFacade:
		return incubatorv1alpha1.SchemeGroupVersion.WithKind(string(k))
	default:
		return corev1.SchemeGroupVersion.WithKind(string(k))
	}
}

// KindOf returns the store kind of a typed object, or an error for a type the store does not hold.
func KindOf(obj runtime.Object) (Kind, error) {
	switch obj.(type) {
	case *networkingv1.Ingress:
		return KindIngress, nil
	case *networkingv1.IngressClass:
		return KindIngressClass, nil
	case *corev1.Service:
		return KindService, nil
	case *discoveryv1.EndpointSlice:
		return KindEndpointSlice, nil
	case *corev1.Secret:
		return KindSecret, nil
	case *corev1.ConfigMap:
		return KindConfigMap, nil
	case *corev1.Namespace:
		return KindNamespace, nil
	case *configurationv1.KongConsumer:
		return KindKongConsumer, nil
	case *configurationv1.KongPlugin:
		return KindKongPlugin, nil
	case *configurationv1.KongClusterPlugin:
		return KindKongClusterPlugin, nil
	case *configurationv1beta1.KongUpstreamPolicy:
		return KindKongUpstreamPolicy, nil
	case *configurationv1beta1.TCPIngress:
		return KindTCPIngress, nil
	case *configurationv1beta1.UDPIngress:
		return KindUDPIngress, nil
	case *configurationv1beta1.KongConsumerGroup:
		return KindKongConsumerGroup, nil
	case *configurationv1.KongIngress:
		return KindKongIngress, nil
	case *configurationv1alpha1.IngressClassParameters:
		return KindIngressClassParameters, nil
	case *configurationv1alpha1.KongVault:
		return KindKongVault, nil
	case *configurationv1alpha1.KongLicense:
		return KindKongLicense, nil
	case *configurationv1alpha1.KongCustomEntity:
		return KindKongCustomEntity, nil
	case *incubatorv1alpha1.KongServiceFacade:
		return KindKongServiceFacade, nil
	}
	return gatewayKindOf(obj)
}

func gatewayKindOf(obj runtime.Object) (Kind, error) {
	switch obj.(type) {
	case *gatewayv1.GatewayClass:
		return KindGatewayClass, nil
	case *gatewayv1.Gateway:
		return KindGateway, nil
	case *gatewayv1.HTTPRoute:
		return KindHTTPRoute, nil
	case *gatewayv1.GRPCRoute:
		return KindGRPCRoute, nil
	case *gatewayv1.TCPRoute:
		return KindTCPRoute, nil
	case *gatewayv1.UDPRoute:
		return KindUDPRoute, nil
	case *gatewayv1.TLSRoute:
		return KindTLSRoute, nil
	case *gatewayv1.ReferenceGrant:
		return KindReferenceGrant, nil
	}
	return "", fmt.Errorf("store: unsupported object type %T", obj)
}

// Ref identifies one object: the unit problems, events and exclusions are keyed by.
type Ref struct {
	Kind      Kind
	Namespace string
	Name      string
}

// String renders a ref the way problems and logs name objects: "Kind namespace/name".
func (r Ref) String() string {
	if r.Namespace == "" {
		return string(r.Kind) + " " + r.Name
	}
	return string(r.Kind) + " " + r.Namespace + "/" + r.Name
}

// RefOf returns the ref of a typed object the store holds.
func RefOf(obj Object) (Ref, error) {
	k, err := KindOf(obj)
	if err != nil {
		return Ref{}, err
	}
	return Ref{Kind: k, Namespace: obj.GetNamespace(), Name: obj.GetName()}, nil
}

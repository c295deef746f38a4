package fallback

import (
	"encoding/json"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The annotations KIC's rules read.
const (
	annPlugins        = "konghq.com/plugins"
	annUpstreamPolicy = "konghq.com/upstream-policy"
	annIngressClass   = "kubernetes.io/ingress.class"
)

// KindKongCustomEntity is KongCustomEntity (configuration.konghq.com/v1alpha1), a kind the store
// holds (its rule reads the spec through JSON, so an unstructured object works too).
const KindKongCustomEntity = store.KindKongCustomEntity

// rule calls dep with every object obj depends on, by KIC v3.5.13's rules
// (internal/dataplane/fallback/graph_dependencies*.go). A ref to an object snap does not hold is
// no dependency; the graph drops it.
type rule func(snap *store.Snapshot, obj store.Object, dep func(store.Ref))

// rules is every stored kind's rule; a kind with none depends on nothing (KIC's "object types
// that have no dependencies", and the two kinds KIC's graph does not hold: Namespace and
// KongLicense). TestEveryKindHasARule keeps it complete.
var rules = map[store.Kind]rule{
	store.KindIngress:           ingressDeps,
	store.KindService:           serviceLikeDeps,
	store.KindKongServiceFacade: serviceLikeDeps,
	store.KindHTTPRoute:         routeDeps(httpRouteBackends),
	store.KindGRPCRoute:         routeDeps(grpcRouteBackends),
	store.KindTCPRoute:          routeDeps(tcpRouteBackends),
	store.KindUDPRoute:          routeDeps(udpRouteBackends),
	store.KindTLSRoute:          routeDeps(tlsRouteBackends),
	store.KindKongPlugin:        kongPluginDeps,
	store.KindKongClusterPlugin: kongClusterPluginDeps,
	store.KindKongConsumer:      consumerDeps,
	store.KindKongConsumerGroup: pluginDeps,
	store.KindTCPIngress:        streamIngressDeps,
	store.KindUDPIngress:        streamIngressDeps,
	KindKongCustomEntity:        customEntityDeps,

	store.KindIngressClass: nil, store.KindSecret: nil, store.KindConfigMap: nil, store.KindEndpointSlice: nil,
	store.KindReferenceGrant: nil, store.KindGateway: nil, store.KindGatewayClass: nil, store.KindKongIngress: nil,
	store.KindKongUpstreamPolicy: nil, store.KindIngressClassParameters: nil, store.KindKongVault: nil,
	store.KindNamespace: nil, store.KindKongLicense: nil,
}

// Dependencies lists the objects of snap that obj depends on, by KIC's rules, in the order the
// rule finds them (duplicates kept).
func Dependencies(snap *store.Snapshot, obj store.Object) []store.Ref {
	return slices.DeleteFunc(References(snap, obj), func(d store.Ref) bool {
		_, ok := snap.Get(d)
		return !ok
	})
}

// References lists every object obj names by KIC's rules, whether or not snap holds it, in the
// order the rule finds them (duplicates kept): what obj would depend on, were they there.
func References(snap *store.Snapshot, obj store.Object) []store.Ref {
	ref, err := store.RefOf(obj)
	if err != nil {
		ref.Kind = kindOfUnknown(obj)
	}
	var out []store.Ref
	if r := rules[ref.Kind]; r != nil {
		r(snap, obj, func(d store.Ref) { out = append(out, d) })
	}
	return out
}

// kindOfUnknown names the kind of an object the store does not know yet by its TypeMeta (a
// KongCustomEntity before the store holds the kind).
func kindOfUnknown(obj store.Object) store.Kind {
	if t, ok := obj.(interface{ GetKind() string }); ok {
		return store.Kind(t.GetKind())
	}
	return store.Kind(obj.GetObjectKind().GroupVersionKind().Kind)
}

// pluginDeps: the KongPlugins named by konghq.com/plugins in the object's namespace, else the
// KongClusterPlugin of that name (a KongPlugin takes priority, as in attachment). Names are
// comma-separated and trimmed; KIC's rule reads no "namespace:name" form, so such an entry
// names nothing here.
func pluginDeps(snap *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	ann := obj.GetAnnotations()[annPlugins]
	for len(ann) > 0 {
		var name string
		name, ann, _ = strings.Cut(ann, ",")
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		p := store.Ref{Kind: store.KindKongPlugin, Namespace: obj.GetNamespace(), Name: name}
		if _, ok := snap.Get(p); ok {
			dep(p)
			continue
		}
		dep(store.Ref{Kind: store.KindKongClusterPlugin, Name: name})
	}
}

// upstreamPolicyDep: the KongUpstreamPolicy konghq.com/upstream-policy names, in the object's
// namespace.
func upstreamPolicyDep(obj store.Object, dep func(store.Ref)) {
	if name, ok := obj.GetAnnotations()[annUpstreamPolicy]; ok {
		dep(store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: obj.GetNamespace(), Name: name})
	}
}

// serviceLikeDeps is a Service's or a KongServiceFacade's rule: plugins and upstream policy.
// Neither depends on its EndpointSlices, nor a facade on its backend Service (KIC's rules).
func serviceLikeDeps(snap *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	pluginDeps(snap, obj, dep)
	upstreamPolicyDep(obj, dep)
}

// ingressDeps: the IngressClass (spec.ingressClassName, else the class annotation), the
// Services and KongServiceFacades of the rules' paths (not the default backend), the upstream
// policy annotation and plugins.
func ingressDeps(snap *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return
	}
	class := ""
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	if class == "" {
		class = ing.Annotations[annIngressClass]
	}
	if class != "" {
		dep(store.Ref{Kind: store.KindIngressClass, Name: class})
	}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if s := p.Backend.Service; s != nil {
				dep(store.Ref{Kind: store.KindService, Namespace: ing.Namespace, Name: s.Name})
			}
			if res := p.Backend.Resource; res != nil && res.Kind == incubatorv1alpha1.KongServiceFacadeKind &&
				res.APIGroup != nil && *res.APIGroup == incubatorv1alpha1.SchemeGroupVersion.Group {
				dep(store.Ref{Kind: store.KindKongServiceFacade, Namespace: ing.Namespace, Name: res.Name})
			}
		}
	}
	upstreamPolicyDep(obj, dep)
	pluginDeps(snap, obj, dep)
}

// routeDeps makes a Gateway API route's rule: its rules' backend Services (in the namespace a
// backendRef names, else the route's; only refs whose kind is set and is core Service, as KIC's
// IsBackendRefGroupKindSupported) and plugins. Parent Gateways, ReferenceGrants and filters'
// objects are no dependencies.
func routeDeps[T store.Object](backends func(T) []gatewayv1.BackendRef) rule {
	return func(snap *store.Snapshot, obj store.Object, dep func(store.Ref)) {
		route, ok := obj.(T)
		if !ok {
			return
		}
		for _, b := range backends(route) {
			if !coreService(b.Group, b.Kind) {
				continue
			}
			ns := obj.GetNamespace()
			if b.Namespace != nil {
				ns = string(*b.Namespace)
			}
			dep(store.Ref{Kind: store.KindService, Namespace: ns, Name: string(b.Name)})
		}
		pluginDeps(snap, obj, dep)
	}
}

func coreService(group *gatewayv1.Group, kind *gatewayv1.Kind) bool {
	if kind == nil || *kind != "Service" {
		return false
	}
	return group == nil || *group == "" || *group == "core"
}

func httpRouteBackends(r *gatewayv1.HTTPRoute) []gatewayv1.BackendRef {
	var out []gatewayv1.BackendRef
	for _, rule := range r.Spec.Rules {
		for _, b := range rule.BackendRefs {
			out = append(out, b.BackendRef)
		}
	}
	return out
}

func grpcRouteBackends(r *gatewayv1.GRPCRoute) []gatewayv1.BackendRef {
	var out []gatewayv1.BackendRef
	for _, rule := range r.Spec.Rules {
		for _, b := range rule.BackendRefs {
			out = append(out, b.BackendRef)
		}
	}
	return out
}

func tcpRouteBackends(r *gatewayv1.TCPRoute) []gatewayv1.BackendRef {
	var out []gatewayv1.BackendRef
	for _, rule := range r.Spec.Rules {
		out = append(out, rule.BackendRefs...)
	}
	return out
}

func udpRouteBackends(r *gatewayv1.UDPRoute) []gatewayv1.BackendRef {
	var out []gatewayv1.BackendRef
	for _, rule := range r.Spec.Rules {
		out = append(out, rule.BackendRefs...)
	}
	return out
}

func tlsRouteBackends(r *gatewayv1.TLSRoute) []gatewayv1.BackendRef {
	var out []gatewayv1.BackendRef
	for _, rule := range r.Spec.Rules {
		out = append(out, rule.BackendRefs...)
	}
	return out
}

// kongPluginDeps: the Secrets of configFrom and configPatches, in the plugin's namespace.
func kongPluginDeps(_ *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	p, ok := obj.(*configurationv1.KongPlugin)
	if !ok {
		return
	}
	if p.ConfigFrom != nil {
		dep(store.Ref{Kind: store.KindSecret, Namespace: p.Namespace, Name: p.ConfigFrom.SecretValue.Secret})
	}
	for _, cp := range p.ConfigPatches {
		dep(store.Ref{Kind: store.KindSecret, Namespace: p.Namespace, Name: cp.ValueFrom.SecretValue.Secret})
	}
}

// kongClusterPluginDeps: the Secrets of configFrom and configPatches, in the namespaces they name.
func kongClusterPluginDeps(_ *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	p, ok := obj.(*configurationv1.KongClusterPlugin)
	if !ok {
		return
	}
	if cf := p.ConfigFrom; cf != nil {
		dep(store.Ref{Kind: store.KindSecret, Namespace: cf.SecretValue.Namespace, Name: cf.SecretValue.Secret})
	}
	for _, cp := range p.ConfigPatches {
		v := cp.ValueFrom.SecretValue
		dep(store.Ref{Kind: store.KindSecret, Namespace: v.Namespace, Name: v.Secret})
	}
}

// consumerDeps: plugins and the credential Secrets (in the consumer's namespace). Consumer
// groups are no dependency.
func consumerDeps(snap *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	pluginDeps(snap, obj, dep)
	c, ok := obj.(*configurationv1.KongConsumer)
	if !ok {
		return
	}
	for _, name := range c.Credentials {
		dep(store.Ref{Kind: store.KindSecret, Namespace: c.Namespace, Name: name})
	}
}

// streamIngressDeps: a TCPIngress's or UDPIngress's plugins and rules' Services.
func streamIngressDeps(snap *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	pluginDeps(snap, obj, dep)
	var rules []configurationv1beta1.StreamRule
	switch o := obj.(type) {
	case *configurationv1beta1.TCPIngress:
		rules = o.StreamRules()
	case *configurationv1beta1.UDPIngress:
		rules = o.StreamRules()
	}
	for _, r := range rules {
		dep(store.Ref{Kind: store.KindService, Namespace: obj.GetNamespace(), Name: r.Backend.ServiceName})
	}
}

// customEntityDeps: the KongPlugin (in the entity's namespace: KIC's rule ignores a parentRef
// naming another namespace) or KongClusterPlugin spec.parentRef names, group
// configuration.konghq.com. The spec is read through its JSON form, whatever Go type holds the
// kind.
func customEntityDeps(_ *store.Snapshot, obj store.Object, dep func(store.Ref)) {
	var v struct {
		Spec struct {
			ParentRef *struct {
				Group     *string `json:"group"`
				Kind      *string `json:"kind"`
				Namespace *string `json:"namespace"`
				Name      string  `json:"name"`
			} `json:"parentRef"`
		} `json:"spec"`
	}
	b, err := json.Marshal(obj)
	if err != nil || json.Unmarshal(b, &v) != nil || v.Spec.ParentRef == nil {
		return
	}
	p := v.Spec.ParentRef
	if p.Group == nil || *p.Group != configurationv1.SchemeGroupVersion.Group || p.Kind == nil {
		return
	}
	switch *p.Kind {
	case string(store.KindKongPlugin):
		if p.Namespace != nil && *p.Namespace != "" && *p.Namespace != obj.GetNamespace() {
			return
		}
		dep(store.Ref{Kind: store.KindKongPlugin, Namespace: obj.GetNamespace(), Name: p.Name})
	case string(store.KindKongClusterPlugin):
		dep(store.Ref{Kind: store.KindKongClusterPlugin, Name: p.Name})
	}
}

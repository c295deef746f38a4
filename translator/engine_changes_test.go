package translator

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	icp "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
)

// The changes a world makes: mutate edits one field of an object of any kind. The edits of
// Ingresses are in engine_changes_ingress_test.go, those of Secrets and Kong's kinds in
// engine_changes_kong_test.go; the other core kinds' and the helpers they share are here.

// mutate edits one field of o that translation reads and describes the edit.
func (w *world) mutate(o store.Object) string {
	switch o := o.(type) {
	case *networkingv1.Ingress:
		return w.mutateIngress(o)
	case *networkingv1.IngressClass:
		return w.mutateIngressClass(o)
	case *corev1.Service:
		return w.mutateService(o)
	case *discoveryv1.EndpointSlice:
		return w.mutateEndpointSlice(o)
	case *corev1.Secret:
		return w.mutateSecret(o)
	case *corev1.ConfigMap:
		return w.mutateConfigMap(o)
	case *configurationv1.KongConsumer:
		return w.mutateConsumer(o)
	case *configurationv1.KongPlugin:
		return w.mutatePluginFields(&o.ObjectMeta, &o.PluginFields, false)
	case *configurationv1.KongClusterPlugin:
		return w.mutateClusterPlugin(o)
	case *kup.KongUpstreamPolicy:
		return w.mutatePolicy(&o.Spec)
	case *kup.TCPIngress, *kup.UDPIngress:
		return w.mutateStream(o)
	case *kup.KongConsumerGroup:
		return w.mutateConsumerGroup(o)
	case *configurationv1.KongIngress:
		return w.mutateKongIngress(o)
	case *icp.IngressClassParameters:
		return w.mutateClassParams(o)
	case *icp.KongVault:
		return w.mutateVault(o)
	case *icp.KongLicense:
		return w.mutateLicense(o)
	case *icp.KongCustomEntity:
		return w.mutateCustomEntity(o)
	case *kic.KongServiceFacade:
		return w.mutateFacade(o)
	}
	if what, ok := w.mutateGatewayKind(o); ok {
		return what
	}
	w.t.Fatalf("mutate: unexpected %T", o)
	return ""
}

// retime changes an object's creation time, which decides who wins among objects of its kind
// (TLS hosts, the default backend, usernames, certificate ids): shifted by hours, or set just
// before, equal to or just after another object's (equal: the names decide), or unset.
// For an Ingress the other object is, when there is one, a rival: an Ingress claiming one of
// its TLS hosts, or also having a default backend.
func (w *world) retime(m *metav1.ObjectMeta, k store.Kind, rivals ...store.Ref) string {
	var other time.Time
	present := w.refs(k, true)
	if len(rivals) > 0 && w.r.IntN(4) > 0 {
		present = rivals
	}
	if len(present) > 0 {
		o, _ := w.get(pick(w.r, present))
		other = o.GetCreationTimestamp().Time
	}
	var what string
	switch w.r.IntN(6) {
	case 0, 1:
		d := time.Duration(w.r.IntN(7)-3) * time.Hour
		m.CreationTimestamp = metav1.NewTime(m.CreationTimestamp.Add(d))
		return fmt.Sprintf("creationTimestamp %+v", d)
	case 2:
		m.CreationTimestamp, what = metav1.NewTime(other.Add(-time.Second)), "just before"
	case 3:
		m.CreationTimestamp, what = metav1.NewTime(other), "equal to"
	case 4:
		m.CreationTimestamp, what = metav1.NewTime(other.Add(time.Second)), "just after"
	default:
		m.CreationTimestamp = metav1.Time{}
		return "creationTimestamp unset"
	}
	return fmt.Sprintf("creationTimestamp %s another %s's (%s)", what, k, other.Format(time.RFC3339))
}

func (w *world) setClassAnnotation(m *metav1.ObjectMeta) string {
	switch v := pick(w.r, []string{"kong", "other", "", "-"}); v {
	case "-":
		delete(m.Annotations, annIngressClass)
		return "class annotation removed"
	default:
		setAnn(m, annIngressClass, v)
		return fmt.Sprintf("class annotation %q", v)
	}
}

// setAnnFrom sets one annotation of the table to one of its values, or removes it.
func (w *world) setAnnFrom(m *metav1.ObjectMeta, table map[string][]string) string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	k := pick(w.r, keys)
	if _, ok := m.Annotations[k]; ok && w.r.IntN(3) == 0 {
		delete(m.Annotations, k)
		return "annotation " + k + " removed"
	}
	v := pick(w.r, table[k])
	setAnn(m, k, v)
	return fmt.Sprintf("annotation %s=%q", k, v)
}

// setPluginsAnnotation sets konghq.com/plugins to one or two plugin names of the namespace or
// of KongClusterPlugins (some missing), or removes it.
func (w *world) setPluginsAnnotation(m *metav1.ObjectMeta) string {
	if _, ok := m.Annotations[annPlugins]; ok && w.r.IntN(3) == 0 {
		delete(m.Annotations, annPlugins)
		return "plugins annotation removed"
	}
	names := append(w.names(store.KindKongPlugin, m.Namespace), w.names(store.KindKongClusterPlugin, "")...)
	v := pick(w.r, names)
	if w.r.IntN(3) == 0 {
		v += ", " + pick(w.r, names)
	}
	setAnn(m, annPlugins, v)
	return fmt.Sprintf("plugins annotation %q", v)
}

func setAnn(m *metav1.ObjectMeta, k, v string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

func setLabel(m *metav1.ObjectMeta, k, v string) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[k] = v
}

// Service annotations and values the mutations draw from: valid ones and invalid ones.
var serviceAnnotations = map[string][]string{
	annProtocol:         {"http", "https", "grpc", "grpcs", "tcp", "bogus"},
	annPath:             {"/base", "/base/", "relative", ""},
	annConnectTimeout:   {"5000", "abc", "99999999999"},
	annReadTimeout:      {"60000", "-1"},
	annWriteTimeout:     {"1", "1.5"},
	annRetries:          {"3", "-1", "x"},
	annHostHeader:       {"internal.example.com", ""},
	annTLSVerify:        {"true", "false", "yes-ish"},
	annTLSVerifyDepth:   {"1", "65", "x"},
	annServiceUpstream:  {"true", "false"},
	annTags:             {"svc-tag", ""},
	annOverride:         {"some-kongingress"},
	annCACertConfigMaps: {"cm"},
}

func (w *world) mutateIngressClass(o *networkingv1.IngressClass) string {
	switch w.r.IntN(5) {
	case 4:
		return w.setClassParams(o)
	case 0:
		o.Spec.Controller = pick(w.r, []string{workload.ControllerName, "example.com/other"})
		return "controller " + o.Spec.Controller
	case 1:
		v := pick(w.r, []string{"True", "yes", "-"})
		if v == "-" {
			delete(o.Annotations, store.DefaultClassAnnotation)
			return "default annotation removed"
		}
		setAnn(&o.ObjectMeta, store.DefaultClassAnnotation, v)
		return fmt.Sprintf("default annotation %q", v)
	}
	// Toggle the default class, and often toggle it back a few steps later.
	toggle := func(ic *networkingv1.IngressClass) string {
		if ic.Annotations[store.DefaultClassAnnotation] == "true" {
			setAnn(&ic.ObjectMeta, store.DefaultClassAnnotation, "false")
			return "default off"
		}
		setAnn(&ic.ObjectMeta, store.DefaultClassAnnotation, "true")
		return "default on"
	}
	what := toggle(o)
	if w.r.IntN(2) == 0 {
		ref := store.Ref{Kind: store.KindIngressClass, Name: o.Name}
		w.later(1+w.r.IntN(3), "default of "+ref.String()+" toggled back", func() {
			if cur, ok := w.get(ref); ok {
				c := cur.DeepCopyObject().(*networkingv1.IngressClass)
				toggle(c)
				w.put(c)
				w.count(store.KindIngressClass, "toggle back")
			}
		})
	}
	return what
}

func (w *world) mutateService(o *corev1.Service) string {
	m := &o.ObjectMeta
	switch n := w.r.IntN(12); {
	case n == 0 && len(o.Spec.Ports) > 0:
		i := w.r.IntN(len(o.Spec.Ports))
		o.Spec.Ports[i].Port = pick(w.r, []int32{80, 443, 8080, 9999})
		return fmt.Sprintf("ports[%d].port %d", i, o.Spec.Ports[i].Port)
	case n == 1:
		o.Spec.Ports = append(o.Spec.Ports, corev1.ServicePort{Name: pick(w.r, []string{"https", "http", "grpc", ""}),
			Port: pick(w.r, []int32{443, 8443, 80}), TargetPort: intstr.FromInt32(8443), Protocol: corev1.ProtocolTCP})
		return "port added"
	case n == 2 && len(o.Spec.Ports) > 0:
		i := w.r.IntN(len(o.Spec.Ports))
		o.Spec.Ports = slices.Delete(o.Spec.Ports, i, i+1)
		return fmt.Sprintf("port %d removed", i)
	case n == 3 && len(o.Spec.Ports) > 0:
		return w.renamePort(o)
	case n == 4:
		return w.toggleExternalName(o)
	case n == 5 || n == 6:
		return w.setAnnFrom(m, serviceAnnotations)
	case n == 7:
		return w.setPluginsAnnotation(m)
	case n == 8:
		return w.setNameAnnotation(m, annUpstreamPolicy, "upstream-policy", store.KindKongUpstreamPolicy)
	case n == 9:
		return w.setNameAnnotation(m, annClientCert, "client-cert", store.KindSecret)
	case n == 10:
		return w.setCACertSecrets(m)
	case n == 11:
		return w.setNameAnnotation(m, annOverride, "override", store.KindKongIngress)
	}
	return w.setAnnFrom(m, serviceAnnotations)
}

// renamePort changes the name or the target port of one of the Service's ports.
func (w *world) renamePort(o *corev1.Service) string {
	i := w.r.IntN(len(o.Spec.Ports))
	if w.r.IntN(2) == 0 {
		o.Spec.Ports[i].Name = pick(w.r, []string{"http", "web", ""})
		return fmt.Sprintf("ports[%d].name %q", i, o.Spec.Ports[i].Name)
	}
	o.Spec.Ports[i].TargetPort = pick(w.r, []intstr.IntOrString{intstr.FromInt32(8080), intstr.FromString("http"),
		intstr.FromInt32(9090)})
	return fmt.Sprintf("ports[%d].targetPort %s", i, o.Spec.Ports[i].TargetPort.String())
}

// toggleExternalName turns an ExternalName Service into a ClusterIP one, or the other way round
// with a valid, invalid or empty external name.
func (w *world) toggleExternalName(o *corev1.Service) string {
	if o.Spec.Type == corev1.ServiceTypeExternalName {
		o.Spec.Type, o.Spec.ExternalName = corev1.ServiceTypeClusterIP, ""
		return "ClusterIP"
	}
	o.Spec.Type = corev1.ServiceTypeExternalName
	o.Spec.ExternalName = pick(w.r, []string{"upstream.example.com", "bad_name!", ""})
	return fmt.Sprintf("ExternalName %q", o.Spec.ExternalName)
}

// setNameAnnotation sets annotation ann to the name of an object of kind k in m's namespace
// (maybe one that never exists), or removes it; what names the annotation in the description.
func (w *world) setNameAnnotation(m *metav1.ObjectMeta, ann, what string, k store.Kind) string {
	if _, ok := m.Annotations[ann]; ok && w.r.IntN(3) == 0 {
		delete(m.Annotations, ann)
		return what + " removed"
	}
	v := pick(w.r, w.names(k, m.Namespace))
	setAnn(m, ann, v)
	return what + " " + v
}

// setCACertSecrets sets konghq.com/ca-certificates-secrets to one or two Secret names of m's
// namespace, or removes it.
func (w *world) setCACertSecrets(m *metav1.ObjectMeta) string {
	if _, ok := m.Annotations[annCACertSecrets]; ok && w.r.IntN(3) == 0 {
		delete(m.Annotations, annCACertSecrets)
		return "ca-certificates-secrets removed"
	}
	names := w.names(store.KindSecret, m.Namespace)
	v := pick(w.r, names)
	if w.r.IntN(2) == 0 {
		v += "," + pick(w.r, names)
	}
	setAnn(m, annCACertSecrets, v)
	return "ca-certificates-secrets " + v
}

func (w *world) mutateEndpointSlice(o *discoveryv1.EndpointSlice) string {
	yes := true
	switch n := w.r.IntN(9); {
	case n == 0 && len(o.Endpoints) > 0:
		e := &o.Endpoints[w.r.IntN(len(o.Endpoints))]
		v := e.Conditions.Ready == nil || !*e.Conditions.Ready
		e.Conditions.Ready = &v
		return fmt.Sprintf("ready %v", v)
	case n == 1 && len(o.Endpoints) > 0:
		e := &o.Endpoints[w.r.IntN(len(o.Endpoints))]
		v := e.Conditions.Terminating == nil || !*e.Conditions.Terminating
		e.Conditions.Terminating = &v
		s := !v || w.r.IntN(2) == 0
		e.Conditions.Serving = &s
		return fmt.Sprintf("terminating %v serving %v", v, s)
	case n == 2:
		o.Endpoints = append(o.Endpoints, discoveryv1.Endpoint{Addresses: []string{w.address()},
			Conditions: discoveryv1.EndpointConditions{Ready: &yes}})
		return "endpoint added"
	case n == 3 && len(o.Endpoints) > 0:
		i := w.r.IntN(len(o.Endpoints))
		o.Endpoints = slices.Delete(o.Endpoints, i, i+1)
		return fmt.Sprintf("endpoint %d removed", i)
	case n == 4 && len(o.Endpoints) > 0:
		e := &o.Endpoints[w.r.IntN(len(o.Endpoints))]
		e.Addresses = []string{w.address()}
		return "address " + e.Addresses[0]
	case n == 5:
		if len(o.Ports) > 0 && w.r.IntN(4) == 0 {
			o.Ports = nil
			return "ports removed"
		}
		port := pick(w.r, []int32{8080, 8443, 9090, 80})
		name := pick(w.r, []string{"http", "https", ""})
		o.Ports = []discoveryv1.EndpointPort{{Name: &name, Port: &port}}
		return fmt.Sprintf("port %s/%d", name, port)
	case n == 6: // moves the slice to another Service
		if w.r.IntN(5) == 0 {
			delete(o.Labels, discoveryv1.LabelServiceName)
			return "service-name label removed"
		}
		svc := pick(w.r, w.names(store.KindService, o.Namespace))
		setLabel(&o.ObjectMeta, discoveryv1.LabelServiceName, svc)
		return "service-name " + svc
	case n == 7:
		o.AddressType = pick(w.r, []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6,
			discoveryv1.AddressTypeFQDN})
		return "addressType " + string(o.AddressType)
	}
	o.Endpoints = nil
	return "no endpoints"
}

func (w *world) address() string {
	switch w.r.IntN(8) {
	case 0:
		return fmt.Sprintf("fd00::%x", w.r.IntN(0xffff))
	case 1:
		return pick(w.r, []string{"not an address", "backend.example.com", "10.0.0.256"})
	}
	return fmt.Sprintf("10.9.%d.%d", w.r.IntN(4), 2+w.r.IntN(250))
}

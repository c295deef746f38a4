package translator

import (
	"fmt"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	icp "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The random world's KongIngress and IngressClassParameters: objects connecting them to the
// workload, and their edits.

// kicObjects are a KongIngress named by the first Service of the workload (konghq.com/override)
// and an IngressClassParameters our IngressClass names, both in the workload's first namespace.
func kicObjects(workloadObjs []store.Object) []store.Object {
	var out []store.Object
	for _, o := range workloadObjs {
		svc, ok := o.(*corev1.Service)
		if !ok {
			continue
		}
		c := svc.DeepCopy()
		setAnn(&c.ObjectMeta, annOverride, "ki-0")
		out = append(out, c, &configurationv1.KongIngress{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: "ki-0"},
			Upstream: &configurationv1.KongIngressUpstream{Algorithm: kong.String("least-connections"), HostHeader: kong.String("ki.example.com")}})
		out = append(out, &icp.IngressClassParameters{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: "params"},
			Spec: icp.IngressClassParametersSpec{ServiceUpstream: true}})
		break
	}
	for _, o := range workloadObjs {
		if ic, ok := o.(*networkingv1.IngressClass); ok && ic.Name == "kong" && len(out) == 3 {
			c := ic.DeepCopy()
			c.Spec.Parameters = paramsRefTo(out[2].GetNamespace(), "params", icp.SchemeGroupVersion.Group)
			out = append(out, c)
		}
	}
	return out
}

// paramsRefTo is an IngressClass parameters reference to namespace/name in group.
func paramsRefTo(ns, name, group string) *networkingv1.IngressClassParametersReference {
	scope := "Namespace"
	return &networkingv1.IngressClassParametersReference{APIGroup: &group, Kind: icp.IngressClassParametersKind,
		Name: name, Namespace: &ns, Scope: &scope}
}

// mutateKongIngress edits one field of a KongIngress's upstream section (often to a value that
// is refused), or adds or removes the proxy section.
func (w *world) mutateKongIngress(o *configurationv1.KongIngress) string {
	if o.Upstream == nil {
		o.Upstream = &configurationv1.KongIngressUpstream{}
	}
	u := o.Upstream
	switch w.r.IntN(6) {
	case 0:
		u.Algorithm = kong.String(pick(w.r, []string{"round-robin", "consistent-hashing", "latency", "random"}))
		return "upstream.algorithm " + *u.Algorithm
	case 1:
		v := pick(w.r, []int{10, 5, 1000})
		u.Slots = &v
		return fmt.Sprintf("upstream.slots %d", v)
	case 2:
		u.HostHeader = kong.String(pick(w.r, []string{"a.example.com", "b.example.com"}))
		return "upstream.host_header " + *u.HostHeader
	case 3:
		u.HashOn = kong.String(pick(w.r, []string{"ip", "header", "consumer"}))
		if w.r.IntN(2) == 0 {
			u.HashOnHeader = kong.String("x-user")
		}
		return "upstream.hash_on " + *u.HashOn
	case 4:
		if o.Proxy != nil {
			o.Proxy = nil
			return "proxy removed"
		}
		o.Proxy = []byte(`{"retries": 1}`)
		return "proxy added"
	}
	if u.Healthchecks != nil {
		u.Healthchecks = nil
		return "upstream.healthchecks removed"
	}
	u.Healthchecks = &kong.Healthcheck{Active: &kong.ActiveHealthcheck{HTTPPath: kong.String(pick(w.r, []string{"/st", "st"}))}}
	return "upstream.healthchecks.active.http_path " + *u.Healthchecks.Active.HTTPPath
}

// mutateClassParams toggles one of the two settings.
func (w *world) mutateClassParams(o *icp.IngressClassParameters) string {
	if w.r.IntN(2) == 0 {
		o.Spec.ServiceUpstream = !o.Spec.ServiceUpstream
		return fmt.Sprintf("serviceUpstream %v", o.Spec.ServiceUpstream)
	}
	o.Spec.EnableLegacyRegexDetection = !o.Spec.EnableLegacyRegexDetection
	return fmt.Sprintf("enableLegacyRegexDetection %v", o.Spec.EnableLegacyRegexDetection)
}

// setClassParams points an IngressClass's parameters at an IngressClassParameters (maybe one
// that does not exist, or through another group), or removes them.
func (w *world) setClassParams(o *networkingv1.IngressClass) string {
	if o.Spec.Parameters != nil && w.r.IntN(3) == 0 {
		o.Spec.Parameters = nil
		return "parameters removed"
	}
	names := w.names(store.KindIngressClassParameters, "")
	ns := pick(w.r, w.namespaces)
	if refs := w.refs(store.KindIngressClassParameters, true); len(refs) > 0 && w.r.IntN(3) > 0 {
		r := pick(w.r, refs)
		ns, names = r.Namespace, []string{r.Name}
	}
	group := icp.SchemeGroupVersion.Group
	if w.r.IntN(6) == 0 {
		group = "example.com"
	}
	name := pick(w.r, names)
	o.Spec.Parameters = paramsRefTo(ns, name, group)
	return fmt.Sprintf("parameters %s %s/%s", group, ns, name)
}

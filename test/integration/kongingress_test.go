//go:build integration

package integration

import (
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// A KongIngress named by a Service's konghq.com/override (Kong's published CRD, with its CEL
// rules) shapes that Service's upstream in Kong; an update reaches Kong; the CRD refuses the
// proxy section KIC 3.x no longer reads.
func TestKongIngressFromPublishedCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	kis := dynamic.NewForConfigOrDie(plane.RestConfig()).Resource(configurationv1.SchemeGroupVersion.WithResource("kongingresses")).Namespace(ns)
	ki := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1", "kind": "KongIngress",
		"metadata": map[string]any{"name": "legacy", "namespace": ns},
		"upstream": map[string]any{"algorithm": "least-connections", "host_header": "ki.example.com"},
	}}
	created, err := kis.Create(ctxT(t), ki, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refused := ki.DeepCopy()
	refused.SetName("with-proxy")
	refused.Object["proxy"] = map[string]any{"retries": int64(1)}
	if _, err := kis.Create(ctxT(t), refused, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "proxy") {
		t.Fatalf("the published CRD should refuse a proxy section, got %v", err)
	}
	a := app{ns: ns, name: "web", host: "kongingress.example.com"}
	svc := a.service()
	svc.Annotations = map[string]string{configurationv1.OverrideAnnotation: "legacy"}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctxT(t), a.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "ki", ns, []*kongdouble.Server{kong}, nil)
	name := "web." + ns + ".80.svc"
	waitDouble(t, kong, "the KongIngress on the upstream", func() bool {
		u := upstreamIn(kong, name)
		return u["algorithm"] == "least-connections" && u["host_header"] == "ki.example.com"
	})
	created.Object["upstream"] = map[string]any{"algorithm": "consistent-hashing", "hash_on": "header", "hash_on_header": "x-user"}
	if _, err := kis.Update(ctxT(t), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the updated KongIngress on the upstream", func() bool {
		u := upstreamIn(kong, name)
		return u["algorithm"] == "consistent-hashing" && u["hash_on_header"] == "x-user" && u["host_header"] == nil
	})
}

// IngressClassParameters named by our IngressClass: serviceUpstream switches the upstream's
// targets from the endpoints to the Service's DNS name, live, and back when it is turned off.
func TestIngressClassParametersServiceUpstream(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	class := "params-" + ns
	params := dynamic.NewForConfigOrDie(plane.RestConfig()).
		Resource(configurationv1alpha1.SchemeGroupVersion.WithResource("ingressclassparameterses")).Namespace(ns)
	icp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1alpha1", "kind": "IngressClassParameters",
		"metadata": map[string]any{"name": "params", "namespace": ns},
		"spec":     map[string]any{"serviceUpstream": false},
	}}
	created, err := params.Create(ctxT(t), icp, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Spec: networkingv1.IngressClassSpec{
		Controller: "ingress-controllers.konghq.com/kong",
		Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("configuration.konghq.com"),
			Kind: "IngressClassParameters", Name: "params", Namespace: ptr(ns), Scope: ptr("Namespace")}}}
	if _, err := admin.NetworkingV1().IngressClasses().Create(ctxT(t), ic, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.NetworkingV1().IngressClasses().Delete(ctxT(t), class, metav1.DeleteOptions{}) })
	a := app{ns: ns, name: "web", host: "service-upstream.example.com"}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(ctxT(t), a.endpointSlice("10.244.0.7"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ing := a.ingress()
	ing.Spec.IngressClassName = ptr(class)
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctxT(t), ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "icp", ns, []*kongdouble.Server{kong}, func(c *runner.Config) { c.IngressClass = class })
	name := "web." + ns + ".80.svc"
	targets := func() string { return strings.Join(targetsIn(upstreamIn(kong, name)), ",") }
	waitDouble(t, kong, "the endpoint as the target", func() bool { return targets() == "10.244.0.7:8080" })
	created.Object["spec"] = map[string]any{"serviceUpstream": true}
	if created, err = params.Update(ctxT(t), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the Service's DNS name as the target", func() bool { return targets() == "web."+ns+".svc:80" })
	created.Object["spec"] = map[string]any{"serviceUpstream": false}
	if _, err := params.Update(ctxT(t), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the endpoint again", func() bool { return targets() == "10.244.0.7:8080" })
}

// targetsIn lists an upstream's targets.
func targetsIn(u map[string]any) []string {
	ts, _ := u["targets"].([]any)
	var out []string
	for _, x := range ts {
		if m, ok := x.(map[string]any); ok {
			s, _ := m["target"].(string)
			out = append(out, s)
		}
	}
	return out
}

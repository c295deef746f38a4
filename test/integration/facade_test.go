//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// With the KongServiceFacade gate on and Kong's published CRDs, an Ingress backend naming a
// facade gets the facade's Kong service (KIC's name and tags), the facade gets Programmed, and
// a KongUpstreamPolicy on the facade lists it among its ancestors.
func TestKongServiceFacadeFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	facades := dynamic.NewForConfigOrDie(plane.RestConfig()).Resource(schema.GroupVersionResource{
		Group: "incubator.ingress-controller.konghq.com", Version: "v1alpha1", Resource: "kongservicefacades"}).Namespace(ns)
	policies := kongResource("v1beta1", "kongupstreampolicies", ns)
	pol := kongObject("v1beta1", "KongUpstreamPolicy", ns, "lc", "", map[string]any{"spec": map[string]any{"algorithm": "least-connections"}})
	if _, err := policies.Create(ctx, pol, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	web := app{ns: ns, name: "web", host: "facade.example.com"}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, web.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	facade := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "incubator.ingress-controller.konghq.com/v1alpha1", "kind": "KongServiceFacade",
		"metadata": map[string]any{"name": "front", "namespace": ns, "annotations": map[string]any{
			"kubernetes.io/ingress.class": "kong", "konghq.com/upstream-policy": "lc"}},
		"spec": map[string]any{"backendRef": map[string]any{"name": "web", "port": int64(80)}},
	}}
	if _, err := facades.Create(ctx, facade, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = facades.Delete(context.Background(), "front", metav1.DeleteOptions{}) })
	ing := web.ingress()
	ing.Spec.Rules[0].HTTP.Paths[0].Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{
		APIGroup: ptr("incubator.ingress-controller.konghq.com"), Kind: "KongServiceFacade", Name: "front"}}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "facade", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		statusConfig(c)
		c.Features.KongServiceFacade = true
	})
	name := ns + ".front.svc.facade"
	waitDouble(t, kong, "the facade's Kong service with the policy on its upstream", func() bool {
		c := kong.Config()
		return strings.Contains(c, `"name":"`+name+`"`) && strings.Contains(c, "k8s-kind:KongServiceFacade") &&
			upstreamIn(kong, name)["algorithm"] == "least-connections" && hasHost(kong, web.host)
	})
	waitProgrammed(t, facades, "front", "True/Programmed")
	waitWatched(t, policies, "the facade among the policy's ancestors", func() bool {
		return ancestorsOf(t, policies, "lc") == "KongServiceFacade/front Accepted=True/Accepted Programmed=True/Programmed"
	})
}

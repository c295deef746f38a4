//go:build integration

package integration

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// With Kong's CRDs installed, a KongConsumer of our class reaches Kong and leaves it when
// deleted (dynamic informers, converted to kongsync's typed structs as the offline reader does).
func TestKongConsumerFromCRD(t *testing.T) {
	kubectl(t, "apply", "--server-side", "-f", "testdata/kong-crds.yaml")
	kubectl(t, "wait", "--for=condition=established", "--timeout=30s", "-f", "testdata/kong-crds.yaml")
	ns := newNamespace(t)
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	consumers := dyn.Resource(configurationv1.SchemeGroupVersion.WithResource("kongconsumers")).Namespace(ns)
	kc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1", "kind": "KongConsumer",
		"metadata": map[string]any{"name": "alice", "namespace": ns,
			"annotations": map[string]any{"kubernetes.io/ingress.class": "kong"}},
		"username": "alice-" + ns,
	}}
	if _, err := consumers.Create(ctxT(t), kc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = consumers.Delete(ctxT(t), "alice", metav1.DeleteOptions{}) })
	app{ns: ns, name: "web", host: "consumer.example.com"}.create(t)
	kong := newDouble(t)
	startKongsync(t, "crd", ns, []*kongdouble.Server{kong}, nil)
	hasConsumer := func() bool { return strings.Contains(kong.Config(), `"alice-`+ns+`"`) }
	waitDouble(t, kong, "the KongConsumer in Kong", func() bool { return hasHost(kong, "consumer.example.com") && hasConsumer() })
	if err := consumers.Delete(ctxT(t), "alice", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the consumer gone with its KongConsumer", func() bool {
		return hasHost(kong, "consumer.example.com") && !hasConsumer()
	})
}

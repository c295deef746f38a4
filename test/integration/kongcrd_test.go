//go:build integration

package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/internal/apis/kongcrds"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// With Kong's CRDs installed, a KongConsumer of our class reaches Kong and leaves it when
// deleted (dynamic informers, converted to kongsync's typed structs as the offline reader does).
func TestKongConsumerFromCRD(t *testing.T) {
	installKongCRDs(t)
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

// A KongPlugin whose config comes from an Opaque Secret (configFrom) reaches Kong on the route
// of the Ingress that references it; the Secret, referenced only by the KongPlugin, is fetched
// and followed when it changes.
func TestKongPluginFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	conf := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "limits"},
		Data: map[string][]byte{"config": []byte(`{"minute": 17, "policy": "local"}`)}}
	if _, err := admin.CoreV1().Secrets(ns).Create(ctxT(t), conf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	plugins := dyn.Resource(configurationv1.SchemeGroupVersion.WithResource("kongplugins")).Namespace(ns)
	kp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1", "kind": "KongPlugin",
		"metadata":   map[string]any{"name": "limits", "namespace": ns},
		"plugin":     "rate-limiting",
		"configFrom": map[string]any{"secretKeyRef": map[string]any{"name": "limits", "key": "config"}},
	}}
	if _, err := plugins.Create(ctxT(t), kp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a := app{ns: ns, name: "web", host: "plugin.example.com"}
	ing := a.ingress()
	ing.Annotations = map[string]string{"konghq.com/plugins": "limits"}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctxT(t), ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "plugin", ns, []*kongdouble.Server{kong}, nil)
	limit := func(n string) func() bool {
		return func() bool {
			c := kong.Config()
			return strings.Contains(c, `"route":"`+ns+`.web.web.plugin.example.com.80"`) && strings.Contains(c, `"minute":`+n)
		}
	}
	waitDouble(t, kong, "the KongPlugin on the route, config from its Secret", limit("17"))
	conf.Data["config"] = []byte(`{"minute": 23, "policy": "local"}`)
	if _, err := admin.CoreV1().Secrets(ns).Update(ctxT(t), conf, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the plugin following its Secret", limit("23"))
}

// Kong's CRDs installed while kongsync runs are watched from then on, without a restart; removed
// again, their objects leave Kong. (The CRDs are installed again at the end for the tests after.)
func TestKongCRDsInstalledAfterStart(t *testing.T) {
	removeKongCRDs(t)
	t.Cleanup(func() { installKongCRDs(t) })
	ns := newNamespace(t)
	app{ns: ns, name: "web", host: "late-crds.example.com"}.create(t)
	kong := newDouble(t)
	startKongsync(t, "late-crds", ns, []*kongdouble.Server{kong}, nil)
	waitDouble(t, kong, "the Ingress in Kong", func() bool { return hasHost(kong, "late-crds.example.com") })

	installKongCRDs(t)
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	consumers := dyn.Resource(configurationv1.SchemeGroupVersion.WithResource("kongconsumers")).Namespace(ns)
	kc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1", "kind": "KongConsumer",
		"metadata": map[string]any{"name": "late", "namespace": ns,
			"annotations": map[string]any{"kubernetes.io/ingress.class": "kong"}},
		"username": "late-" + ns,
	}}
	if _, err := consumers.Create(ctxT(t), kc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hasConsumer := func() bool { return strings.Contains(kong.Config(), `"late-`+ns+`"`) }
	waitDouble(t, kong, "the KongConsumer of CRDs installed after start", hasConsumer)

	removeKongCRDs(t)
	waitDouble(t, kong, "the consumer gone with its CRD, the Ingress kept", func() bool {
		return !hasConsumer() && hasHost(kong, "late-crds.example.com")
	})
}

// removeKongCRDs deletes Kong's CRDs, if installed, and waits until they are gone with their
// objects (the bound as in removeGatewayCRDs).
func removeKongCRDs(t *testing.T) {
	t.Helper()
	kubectl(t, append([]string{"delete", "--ignore-not-found", "--wait", "--timeout=300s"}, kongCRDArgs(t)...)...)
}

// installKongCRDs applies Kong's published CRDs, the files KIC v3.5.13 installs (module cache,
// internal/apis/kongcrds), with their schemas, CEL rules, defaults and status subresources, and
// waits until the API server serves them.
func installKongCRDs(t *testing.T) {
	t.Helper()
	files := kongCRDArgs(t)
	kubectl(t, append([]string{"apply", "--server-side"}, files...)...)
	kubectl(t, append([]string{"wait", "--for=condition=established", "--timeout=30s"}, files...)...)
}

// kongCRDArgs is "-f FILE" for each of Kong's CRD files.
func kongCRDArgs(t *testing.T) []string {
	t.Helper()
	files, err := kongcrds.AllFiles()
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, f := range files {
		args = append(args, "-f", f)
	}
	return args
}

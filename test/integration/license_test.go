//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/runner"
)

// licenseStatus is a KongLicense's entry of controller name ctrl: its Programmed condition as
// "Status/Reason", "" when absent.
func licenseStatus(t *testing.T, r dynamic.ResourceInterface, name, ctrl string) string {
	t.Helper()
	u, err := r.Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, _, _ := unstructured.NestedSlice(u.Object, "status", "controllers")
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if m["controllerName"] != ctrl {
			continue
		}
		conds, _ := m["conditions"].([]any)
		for _, x := range conds {
			if cm, _ := x.(map[string]any); cm["type"] == "Programmed" {
				return cm["status"].(string) + "/" + cm["reason"].(string)
			}
		}
	}
	return ""
}

// With Kong's published CRDs, the newest enabled KongLicense (cluster-scoped) reaches a Kong
// Enterprise as its license, and gets KIC's controller status (PickedAsLatest; the older one
// ReplacedByNewer). Against a Kong that is not Enterprise nothing is sent: each license gets a
// Warning Event and its status says so (Invalid).
func TestKongLicenseFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	licenses := kongResource("v1alpha1", "konglicenses", "")
	sfx := ns[len(ns)-8:]
	// Created in this order, possibly within one second: a tie goes to the lower name, so the
	// second one is the newest either way.
	older, newest := "b-"+sfx, "a-"+sfx
	for _, name := range []string{older, newest} {
		obj := kongObject("v1alpha1", "KongLicense", "", name, "", map[string]any{
			"rawLicenseString": `{"license":{"payload":{"customer":"` + name + `"}}}`})
		if _, err := licenses.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = licenses.Delete(ctxT(t), name, metav1.DeleteOptions{}) })
	}
	const ctrl = "konghq.com/kong-ingress-controller/5b374a9e.konghq.com" // KIC's name with the default --election-id
	ee := kongdouble.New(kongdouble.Options{Version: "3.9.1.0-enterprise-edition"})
	t.Cleanup(ee.Close)
	in := startKongsync(t, "license-ee", ns, []*kongdouble.Server{ee}, statusConfig)
	waitDouble(t, ee, "the newest license in Kong Enterprise", func() bool {
		c := ee.Config()
		return strings.Contains(c, `"licenses":[`) && strings.Contains(c, newest) && !strings.Contains(c, older)
	})
	waitWatched(t, licenses, "the license statuses", func() bool {
		return licenseStatus(t, licenses, newest, ctrl) == "True/PickedAsLatest" && licenseStatus(t, licenses, older, ctrl) == "False/ReplacedByNewer"
	})
	in.stop()

	oss := newDouble(t)
	startKongsync(t, "license-oss", ns, []*kongdouble.Server{oss}, func(c *runner.Config) {
		statusConfig(c)
		c.EmitKubernetesEvents = true
	})
	waitEvent(t, "default", "KongLicense", newest, metrics.ReasonTranslationFailed)
	waitWatched(t, licenses, "the licenses not sent", func() bool {
		return licenseStatus(t, licenses, newest, ctrl) == "False/Invalid" && licenseStatus(t, licenses, older, ctrl) == "False/Invalid"
	})
	if c := oss.Config(); strings.Contains(c, "licenses") {
		t.Errorf("a license reached a Kong that is not Enterprise: %s", c)
	}
}

// waitWatched waits until cond holds, checking it now and after every change to r's objects (a
// watch; no polling).
func waitWatched(t *testing.T, r dynamic.ResourceInterface, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), waitTimeout)
	defer cancel()
	list, err := r.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cond() {
		return
	}
	w, err := r.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed waiting for %s", what)
			}
			if cond() {
				return
			}
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

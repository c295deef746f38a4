package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
)

func TestTypedTransform(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1", "kind": "KongPlugin",
		"metadata": map[string]any{"name": "p", "namespace": "a", "uid": "u1", "resourceVersion": "7",
			"annotations":   map[string]any{lastAppliedAnnotation: "{}", "keep": "me"},
			"managedFields": []any{map[string]any{"manager": "kubectl"}}},
		"plugin": "correlation-id",
		"config": map[string]any{"header_name": "X-Request-ID"},
	}}
	out, err := typedTransform(kongResources[1])(u)
	if err != nil {
		t.Fatal(err)
	}
	kp, ok := out.(*configurationv1.KongPlugin)
	if !ok {
		t.Fatalf("transform returned %T", out)
	}
	if kp.PluginName != "correlation-id" || string(kp.Config) != `{"header_name":"X-Request-ID"}` ||
		kp.Namespace != "a" || kp.UID != "u1" || kp.ResourceVersion != "7" {
		t.Errorf("converted plugin = %+v (config %s)", kp, kp.Config)
	}
	if _, ok := kp.Annotations[lastAppliedAnnotation]; ok || kp.Annotations["keep"] != "me" || len(kp.ManagedFields) != 0 {
		t.Errorf("metadata not trimmed: %+v", kp.ObjectMeta)
	}
	// Non-unstructured input (already converted, e.g. from a tombstone) passes through.
	same := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	if got, _ := typedTransform(kongResources[1])(same); got != same {
		t.Error("typed input was not passed through")
	}
}

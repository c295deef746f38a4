package informer

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
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

func TestTypedTransformUpstreamPolicy(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1beta1", "kind": "KongUpstreamPolicy",
		"metadata": map[string]any{"name": "p", "namespace": "a"},
		"spec": map[string]any{"algorithm": "consistent-hashing", "slots": int64(100),
			"hashOn":       map[string]any{"header": "x-user"},
			"healthchecks": map[string]any{"threshold": int64(20)}},
		"status": map[string]any{"ancestors": []any{}},
	}}
	var kr kongResource
	for _, r := range kongResources {
		if r.kind == store.KindKongUpstreamPolicy {
			kr = r
		}
	}
	if kr.gv != configurationv1beta1.SchemeGroupVersion || kr.resource != "kongupstreampolicies" || !kr.namespaced {
		t.Fatalf("KongUpstreamPolicy resource = %+v", kr)
	}
	out, err := typedTransform(kr)(u)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := out.(*configurationv1beta1.KongUpstreamPolicy)
	if !ok {
		t.Fatalf("transform returned %T", out)
	}
	if *p.Spec.Algorithm != "consistent-hashing" || *p.Spec.Slots != 100 || *p.Spec.HashOn.Header != "x-user" ||
		*p.Spec.Healthchecks.Threshold != 20 || p.Namespace != "a" {
		t.Errorf("converted policy = %+v", p)
	}
}

// TestServedKongResources: resources are discovered per group version; a group version the
// server does not know (v1beta1 here, or everything) serves none of its resources.
func TestServedKongResources(t *testing.T) {
	cs := fake.NewClientset()
	disc := cs.Discovery().(*fakediscovery.FakeDiscovery)
	served, err := servedKongResources(disc)
	if err != nil || len(served) != 0 {
		t.Fatalf("no Kong CRDs: served %v, %v", served, err)
	}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "configuration.konghq.com/v1",
		APIResources: []metav1.APIResource{{Name: "kongplugins"}, {Name: "kongconsumers"}}}}
	served, err = servedKongResources(disc)
	if err != nil || !served["configuration.konghq.com/v1/kongplugins"] || served["configuration.konghq.com/v1beta1/kongupstreampolicies"] {
		t.Fatalf("v1 only: served %v, %v", served, err)
	}
	disc.Resources = append(disc.Resources, &metav1.APIResourceList{GroupVersion: "configuration.konghq.com/v1beta1",
		APIResources: []metav1.APIResource{{Name: "kongupstreampolicies"}, {Name: "kongconsumergroups"}}})
	served, err = servedKongResources(disc)
	if err != nil || !served["configuration.konghq.com/v1beta1/kongupstreampolicies"] || served["configuration.konghq.com/v1/kongclusterplugins"] {
		t.Fatalf("v1 and v1beta1: served %v, %v", served, err)
	}
}

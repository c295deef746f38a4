package v1beta1

import (
	"encoding/json"
	"reflect"
	"testing"
)

const groupJSON = `{"apiVersion":"configuration.konghq.com/v1beta1","kind":"KongConsumerGroup",
"metadata":{"name":"g","namespace":"n","annotations":{"konghq.com/plugins":"p"}},
"spec":{"name":"kong-g","tags":["a","b"],
 "controlPlaneRef":{"type":"konnectNamespacedRef","konnectID":"x","konnectNamespacedRef":{"name":"cp","namespace":"ns"}}}}`

func TestConsumerGroupJSONShape(t *testing.T) {
	var g KongConsumerGroup
	if err := json.Unmarshal([]byte(groupJSON), &g); err != nil {
		t.Fatal(err)
	}
	s := g.Spec
	if g.Name != "g" || s.Name != "kong-g" || len(s.Tags) != 2 || s.ControlPlaneRef.Type != "konnectNamespacedRef" ||
		*s.ControlPlaneRef.KonnectID != "x" || s.ControlPlaneRef.KonnectNamespacedRef.Namespace != "ns" {
		t.Fatalf("decoded %+v", g)
	}
	if s.ControlPlaneRef.ForKIC() {
		t.Fatal("a konnectNamespacedRef is not KIC's")
	}
	for _, r := range []*ControlPlaneRef{nil, {}, {Type: "kic"}} {
		if !r.ForKIC() {
			t.Fatalf("%+v is KIC's", r)
		}
	}
}

func TestConsumerGroupDeepCopyIsIndependent(t *testing.T) {
	var g KongConsumerGroup
	if err := json.Unmarshal([]byte(groupJSON), &g); err != nil {
		t.Fatal(err)
	}
	orig, _ := json.Marshal(&g)
	q := g.DeepCopyObject().(*KongConsumerGroup)
	if !reflect.DeepEqual(&g, q) {
		t.Fatalf("copy differs:\n%+v\n%+v", g, *q)
	}
	q.Spec.Tags[0], *q.Spec.ControlPlaneRef.KonnectID, q.Spec.ControlPlaneRef.KonnectNamespacedRef.Name = "x", "y", "z"
	q.Annotations["konghq.com/plugins"] = "q"
	after, _ := json.Marshal(&g)
	if string(orig) != string(after) {
		t.Fatalf("copy shares memory with the original:\n%s\n%s", orig, after)
	}
	if (*KongConsumerGroup)(nil).DeepCopy() != nil {
		t.Fatal("nil copies to nil")
	}
}

package informer

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kongsync/kongsync/store"
)

func configMap(ns, name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, ResourceVersion: "1",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Data: map[string]string{"id": "x"}, BinaryData: map[string][]byte{"b": []byte("y")}}
}

// Only ConfigMaps labelled konghq.com/ca-cert: "true" are listed (a server-side label
// selector), trimmed to their labels and data.
func TestCACertConfigMaps(t *testing.T) {
	cs := newClients(configMap("a", "ca", map[string]string{CACertLabel: "true"}),
		configMap("a", "other", nil), configMap("a", "no", map[string]string{CACertLabel: "false"}))
	st, _, _ := startController(t, cs, Options{})
	o, ok := st.Get(store.Ref{Kind: store.KindConfigMap, Namespace: "a", Name: "ca"})
	if !ok {
		t.Fatal("labelled ConfigMap a/ca missing")
	}
	cm := o.(*corev1.ConfigMap)
	if cm.Data["id"] != "x" || cm.BinaryData != nil || cm.ManagedFields != nil {
		t.Errorf("stored ConfigMap = %+v, want data kept, binaryData and managed fields dropped", cm)
	}
	for _, name := range []string{"other", "no"} {
		if _, ok := st.Get(store.Ref{Kind: store.KindConfigMap, Namespace: "a", Name: name}); ok {
			t.Errorf("ConfigMap a/%s without the label was stored", name)
		}
	}
	for _, a := range cs.typed.Actions() {
		if l, ok := a.(k8stesting.ListAction); ok && a.GetResource().Resource == "configmaps" {
			if got := l.GetListRestrictions().Labels.String(); got != CACertLabel+"=true" {
				t.Errorf("ConfigMaps listed with label selector %q, want %s=true", got, CACertLabel)
			}
		}
	}
}

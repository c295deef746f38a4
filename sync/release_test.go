package sync_test

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// Kong refuses an entity of a Service that another object of its namespace made (the soak's
// seed 10478896188499724243: the UDP service a UDPIngress made of a Service whose path
// annotation a UDP service cannot carry, which the translator now leaves out of UDP services;
// the double here refuses the Service once, whatever the configuration). Deleting the
// UDPIngress may cure it without the Service changing: the Service gets its chance again and
// comes back. Before release.go only a change of the Service itself did, and it stayed out of
// Kong for good.
func TestRejectionCuredByAnotherObject(t *testing.T) {
	st := store.New()
	lv := startLive(t, st, translator.DefaultOptions(), kongdouble.Options{},
		func(k *kongdouble.Server) { k.RejectObjects(1, taggedService("svc")) }, nil)
	udp := &configurationv1beta1.UDPIngress{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "u", UID: types.UID("uid-u"),
		ResourceVersion: "1", Annotations: map[string]string{"kubernetes.io/ingress.class": "kong"}},
		Spec: configurationv1beta1.UDPIngressSpec{Rules: []configurationv1beta1.UDPIngressRule{{Port: 9999,
			Backend: configurationv1beta1.IngressBackend{ServiceName: "svc", ServicePort: 80}}}}}
	svc := store.Ref{Kind: store.KindService, Namespace: "a", Name: "svc"}
	upsert(t, lv, fbService("svc", "1", "/base"), fbIngress("i", "1", "svc"), fbIngress("k", "1", "ok"),
		fbService("ok", "1", ""), udp)
	lv.waitFor("the Service's rejection", func() bool { return slices.Equal(lv.loop.Excluded(), []store.Ref{svc}) })
	lv.synced()
	if got := routeHosts(lv.kong); !slices.Equal(got, []string{"k.example.com"}) {
		t.Fatalf("Kong routes %v, want only k's while the Service is left out", got)
	}
	if !st.Delete(store.Ref{Kind: store.KindUDPIngress, Namespace: "a", Name: "u"}) {
		t.Fatal("UDPIngress not deleted")
	}
	lv.loop.Notify()
	lv.waitFor("the Service back", func() bool { return len(lv.loop.Excluded()) == 0 })
	lv.synced()
	if got := routeHosts(lv.kong); !slices.Equal(got, []string{"i.example.com", "k.example.com"}) {
		t.Fatalf("Kong routes %v after the UDPIngress went, want i's and k's", got)
	}
}

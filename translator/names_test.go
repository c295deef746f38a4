package translator

import (
	"reflect"
	"testing"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

func TestNames(t *testing.T) {
	num := portDef{mode: portByNumber, number: 80}
	named := portDef{mode: portByName, name: "http"}
	implicit := portDef{mode: portImplicit}
	if got := kongServiceName("ns", "svc", num); got != "ns.svc.80" {
		t.Errorf("kongServiceName = %q", got)
	}
	if got := upstreamName("ns", "svc", named); got != "svc.ns.http.svc" {
		t.Errorf("upstreamName = %q", got)
	}
	if got := upstreamName("ns", "svc", implicit); got != "svc.ns.implicitPort.svc" {
		t.Errorf("upstreamName implicit = %q", got)
	}
	if got := routeName("ns", "ing", "svc", "*.example.com", num); got != "ns.ing.svc._.example.com.80" {
		t.Errorf("routeName = %q", got)
	}
	if got := routeName("ns", "ing", "svc", "", named); got != "ns.ing.svc..http" {
		t.Errorf("routeName without host = %q", got)
	}
}

// TestIDs checks ids against values KIC v3.5.13 produced for the same names (its golden corpus).
func TestIDs(t *testing.T) {
	s := &kong.Service{Name: kong.String("foo-namespace.foo-svc.80")}
	r := &kong.Route{Name: kong.String("foo-namespace.foo.foo-svc.example.com.80")}
	if err := s.FillID(""); err != nil || *s.ID != "fe1e2edc-5479-52fe-b0f4-b90d8d5f83ba" {
		t.Errorf("service id = %v, %v", *s.ID, err)
	}
	if err := r.FillID(""); err != nil || *r.ID != "3eee2c18-8fcc-5661-8f84-5c89adfa404f" {
		t.Errorf("route id = %v, %v", *r.ID, err)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tls", UID: "c6ac927c-4f5a-4e88-8b5d-c7b01d0f43af"}}
	if got := certificateID(sec); got != "c6ac927c-4f5a-4e88-8b5d-c7b01d0f43af" {
		t.Errorf("certificateID = %q, want the Secret's UID", got)
	}
	sec.UID = "not-a-uuid"
	if got := certificateID(sec); got == "not-a-uuid" {
		t.Errorf("certificateID kept a malformed uid")
	}
	sec.UID = ""
	a, b := certificateID(sec), certificateID(sec)
	sec.Name = "other"
	if a != b || a == certificateID(sec) || len(a) != 36 {
		t.Errorf("generated certificate ids must be stable per Secret and differ between Secrets: %q %q %q", a, b, certificateID(sec))
	}
}

func TestObjectTags(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{
		Name: "app", Namespace: "ns", UID: "u1",
		Annotations: map[string]string{annTags: "b, a,,b"},
	}}
	want := []string{"k8s-name:app", "k8s-namespace:ns", "k8s-kind:Ingress", "k8s-uid:u1",
		"k8s-group:networking.k8s.io", "k8s-version:v1", "b", "a"}
	if got := values(objectTags(store.KindIngress, ing)); !reflect.DeepEqual(got, want) {
		t.Errorf("Ingress tags = %q, want %q", got, want)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}}
	want = []string{"k8s-name:web", "k8s-namespace:ns", "k8s-kind:Service", "k8s-version:v1"}
	if got := values(objectTags(store.KindService, svc)); !reflect.DeepEqual(got, want) {
		t.Errorf("Service tags = %q, want %q", got, want)
	}
}

// TestConsistentAnnotations covers KIC's rule for Kong services backed by several Services,
// which Ingresses never produce (one Service per Kong service) but later route kinds will.
func TestConsistentAnnotations(t *testing.T) {
	mk := func(name string, anns map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: anns}}
	}
	tr := &translation{}
	same := []*corev1.Service{
		mk("a", map[string]string{annProtocol: "https", "other/x": "1"}),
		mk("b", map[string]string{annProtocol: "https"}),
	}
	if !tr.consistentAnnotations("k", same) || len(tr.problems) != 0 {
		t.Fatalf("identical konghq.com annotations must agree: %v", tr.problems)
	}
	differ := []*corev1.Service{
		mk("a", map[string]string{annProtocol: "https", annRetries: "1"}),
		mk("b", map[string]string{annProtocol: "http"}),
	}
	if tr.consistentAnnotations("k", differ) {
		t.Fatal("disagreeing annotations must skip the Kong service")
	}
	got := problemsText(finishProblems(tr.problems))
	want := "Service ns/a: metadata.annotations[konghq.com/protocol]: must have the same value on every Service behind Kong service k; that Kong service is skipped\n" +
		"Service ns/a: metadata.annotations[konghq.com/retries]: must have the same value on every Service behind Kong service k; that Kong service is skipped\n" +
		"Service ns/b: metadata.annotations[konghq.com/protocol]: must have the same value on every Service behind Kong service k; that Kong service is skipped\n" +
		"Service ns/b: metadata.annotations[konghq.com/retries]: must have the same value on every Service behind Kong service k; that Kong service is skipped\n"
	if got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}

func values(ps []*string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// TestIDSpaceMatchesFillID checks the allocation-light id computation against go-kong's FillID.
func TestIDSpaceMatchesFillID(t *testing.T) {
	svcs, routes := newIDSpace("services"), newIDSpace("routes")
	for _, name := range []string{"a", "foo-namespace.foo-svc.80", "ns.ing.svc._.example.com.http", "ü.ñ", ""} {
		s := &kong.Service{Name: kong.String(name)}
		r := &kong.Route{Name: kong.String(name)}
		if name == "" {
			continue // FillID refuses empty names; translation never produces them
		}
		_ = s.FillID("")
		_ = r.FillID("")
		if got := svcs.id(name); got != *s.ID {
			t.Errorf("service id of %q = %s, FillID = %s", name, got, *s.ID)
		}
		if got := routes.id(name); got != *r.ID {
			t.Errorf("route id of %q = %s, FillID = %s", name, got, *r.ID)
		}
	}
}

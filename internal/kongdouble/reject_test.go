package kongdouble

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// RejectObjects answers as KIC's golden harness's mock Admin API does
// (buildPostConfigErrorResponseWithBrokenObjects in kong_client_golden_test.go): its body, decoded,
// is the one KIC formats, for the first push only.
func TestRejectObjectsIsKICsHarness(t *testing.T) {
	objs := []TaggedObject{{Name: "svc", Namespace: "ns", Kind: "Service", Version: "v1", UID: "u1"},
		{Name: "kong", Kind: "IngressClass", Group: "networking.k8s.io", Version: "v1"}}
	kic := `{"flattened_errors": [`
	for i, o := range objs {
		if i > 0 {
			kic += ","
		}
		kic += fmt.Sprintf(`{"errors": [{"messages": ["broken object"]}], "entity_tags": ["k8s-name:%s","k8s-namespace:%s","k8s-kind:%s","k8s-group:%s", "k8s-version:%s", "k8s-uid:%s"]}`,
			o.Name, o.Namespace, o.Kind, o.Group, o.Version, o.UID)
	}
	kic += `]}`
	var want, got any
	if err := json.Unmarshal([]byte(kic), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(BrokenObjectsBody(objs...)), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body %v\nwant %v", got, want)
	}
	s := New(Options{})
	defer s.Close()
	s.RejectObjects(1, objs...)
	for i, want := range []int{http.StatusBadRequest, http.StatusCreated} {
		if code, _ := postConfig(t, s, "?flatten_errors=1", `{"_format_version": "3.0"}`); code != want {
			t.Errorf("POST %d: %d, want %d", i+1, code, want)
		}
	}
}

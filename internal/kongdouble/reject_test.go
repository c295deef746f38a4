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

// RefuseObjects refuses a configuration while it holds an entity of a refused object, nested
// ones included, naming only those it holds, and takes one without them.
func TestRefuseObjectsWhileHeld(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	svc := TaggedObject{Name: "svc", Namespace: "ns", Kind: "Service", Version: "v1"}
	ing := TaggedObject{Name: "ing", Namespace: "ns", Kind: "Ingress", Group: "networking.k8s.io", Version: "v1"}
	other := TaggedObject{Name: "svc", Namespace: "other", Kind: "Service", Version: "v1"}
	s.RefuseObjects(svc, ing, other)
	tags := func(o TaggedObject) string {
		return fmt.Sprintf(`["k8s-name:%s","k8s-namespace:%s","k8s-kind:%s"]`, o.Name, o.Namespace, o.Kind)
	}
	withRoute := `{"_format_version": "3.0", "services": [{"name": "a", "host": "a.svc", "tags": ["k8s-name:ok","k8s-namespace:ns","k8s-kind:Service"],
		"routes": [{"name": "r", "paths": ["/"], "tags": ` + tags(ing) + `}]}]}`
	code, body := postConfig(t, s, "?flatten_errors=1", withRoute)
	if code != http.StatusBadRequest {
		t.Fatalf("config holding a refused route: %d", code)
	}
	if fe, _ := body["flattened_errors"].([]any); len(fe) != 1 || !hasTag(fe[0].(map[string]any)["entity_tags"].([]any), "k8s-name:ing") {
		t.Errorf("refusal names %v, want only ing", body["flattened_errors"])
	}
	held := `{"_format_version": "3.0", "services": [{"name": "b", "host": "b.svc", "tags": ` + tags(svc) + `}]}`
	if code, _ := postConfig(t, s, "?flatten_errors=1", held); code != http.StatusBadRequest {
		t.Errorf("config holding a refused service: %d", code)
	}
	clean := `{"_format_version": "3.0", "services": [{"name": "a", "host": "a.svc", "tags": ["k8s-name:ok","k8s-namespace:ns","k8s-kind:Service"]}]}`
	if code, _ := postConfig(t, s, "?flatten_errors=1", clean); code != http.StatusCreated {
		t.Errorf("config without refused objects: %d", code)
	}
	s.RefuseObjects()
	if code, _ := postConfig(t, s, "?flatten_errors=1", held); code != http.StatusCreated {
		t.Errorf("after RefuseObjects(): %d", code)
	}
}

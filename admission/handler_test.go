package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// cluster is the store the webhook judges against: an IngressClass, a Service with an
// Ingress, a KongPlugin reading its config from a Secret.
const cluster = `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
spec: {controller: ingress-controllers.konghq.com/kong}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: default, annotations: {konghq.com/plugins: limits}}
spec:
  ingressClassName: kong
  rules: [{host: web.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]
---
apiVersion: v1
kind: Secret
metadata: {name: limits, namespace: default}
stringData: {config: '{"minute": 5}'}
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: limits, namespace: default}
plugin: rate-limiting
configFrom: {secretKeyRef: {name: limits, key: config}}
`

func newTestValidator(t testing.TB, synced bool, namespaces ...string) *Validator {
	t.Helper()
	objs, notes, err := store.DecodeManifests("cluster", strings.NewReader(cluster))
	if err != nil || len(notes) > 0 {
		t.Fatalf("cluster: %v %v", err, notes)
	}
	st, _ := store.Load(objs)
	return New(st, translator.DefaultOptions(), func() bool { return synced }, namespaces)
}

// review posts an AdmissionReview for the manifest (JSON or YAML) to the handler.
func review(t *testing.T, h http.Handler, op admissionv1.Operation, resource, object, old string) (int, *admissionv1.AdmissionResponse, string) {
	t.Helper()
	req := admissionv1.AdmissionRequest{UID: "uid-1", Operation: op}
	group, rest, _ := strings.Cut(resource, "/")
	version, res, _ := strings.Cut(rest, "/")
	req.Resource.Group, req.Resource.Version, req.Resource.Resource = group, version, res
	req.Object.Raw = []byte(object)
	if old != "" {
		req.OldObject.Raw = []byte(old)
	}
	var m map[string]any
	_ = json.Unmarshal(req.Object.Raw, &m)
	if md, ok := m["metadata"].(map[string]any); ok {
		req.Name, _ = md["name"].(string)
		req.Namespace, _ = md["namespace"].(string)
	}
	body, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
	if w.Code != http.StatusOK {
		return w.Code, nil, w.Body.String()
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" || out.Response == nil || out.Response.UID != "uid-1" {
		t.Fatalf("response review %s", w.Body.String())
	}
	return w.Code, out.Response, w.Body.String()
}

const (
	goodPlugin = `{"apiVersion":"configuration.konghq.com/v1","kind":"KongPlugin","metadata":{"name":"p","namespace":"default"},"plugin":"key-auth","config":{"key_names":["k"]}}`
	badPlugin  = `{"apiVersion":"configuration.konghq.com/v1","kind":"KongPlugin","metadata":{"name":"p","namespace":"default"},"plugin":"key-auth","config":["not","an","object"]}`
	plugins    = "configuration.konghq.com/v1/kongplugins"
	ingresses  = "networking.k8s.io/v1/ingresses"
	secrets    = "/v1/secrets"
)

func ingress(name, annotations, backend string) string {
	return `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"` + name + `","namespace":"default","annotations":{` + annotations + `}},
	"spec":{"ingressClassName":"kong","rules":[{"host":"` + name + `.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"` + backend + `","port":{"number":80}}}}]}}]}}`
}

func TestReviews(t *testing.T) {
	h := Handler(newTestValidator(t, true), logr.Discard(), nil)
	for _, tc := range []struct {
		name          string
		op            admissionv1.Operation
		resource      string
		object, old   string
		allowed       bool
		message, warn string // substrings; "" checks nothing
	}{
		{"a KongPlugin whose config is no object", admissionv1.Create, plugins, badPlugin, "", false,
			"KongPlugin default/p: config: config must be a JSON object; KongPlugin skipped", ""},
		{"a good KongPlugin", admissionv1.Create, plugins, goodPlugin, "", true, "", ""},
		{"a KongPlugin broken already, updated", admissionv1.Update, plugins, badPlugin, badPlugin, true, "", ""},
		{"a good KongPlugin broken by an update", admissionv1.Update, plugins, badPlugin, goodPlugin, false, "config must be a JSON object", ""},
		{"an Ingress with bad annotations", admissionv1.Create, ingresses,
			ingress("bad", `"konghq.com/strip-path":"maybe","konghq.com/protocols":"ftp"`, "web"), "", false,
			"Ingress default/bad: metadata.annotations[konghq.com/protocols]: invalid value \"ftp\"", ""},
		{"an Ingress with konghq.com/override, which KIC 3.x ignores too, only warns", admissionv1.Create, ingresses,
			ingress("legacy", `"konghq.com/override":"ki"`, "web"), "", true,
			"", "Ingress default/legacy: metadata.annotations[konghq.com/override]: KongIngress \"ki\": overrides on an Ingress are no longer supported"},
		{"an Ingress before its Service", admissionv1.Create, ingresses, ingress("early", "", "later"), "", true,
			"", "Ingress default/early: spec.rules[0].http.paths[0].backend.service.name: Service default/later not found"},
		{"a Secret breaking the KongPlugin that reads it", admissionv1.Update, secrets,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"limits","namespace":"default"},"data":{"config":"e25vcGU="}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"limits","namespace":"default"},"data":{"config":"eyJtaW51dGUiOiA2fQ=="}}`,
			false, "KongPlugin default/limits: configFrom.secretKeyRef: the Secret value is neither a JSON nor a YAML object", ""},
		{"a Secret change the KongPlugin can read", admissionv1.Update, secrets,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"limits","namespace":"default"},"data":{"config":"eyJtaW51dGUiOiA3fQ=="}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"limits","namespace":"default"},"data":{"config":"eyJtaW51dGUiOiA2fQ=="}}`, true, "", ""},
		{"a Service with a bad annotation only warns", admissionv1.Update, "/v1/services",
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default","annotations":{"konghq.com/retries":"many"}},"spec":{"ports":[{"name":"http","port":80}]}}`,
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},"spec":{"ports":[{"name":"http","port":80}]}}`,
			true, "", "Service default/web: metadata.annotations[konghq.com/retries]"},
		{"a kind kongsync does not read", admissionv1.Create, "configuration.konghq.com/v1alpha1/kongkeys",
			`{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"KongKey","metadata":{"name":"k","namespace":"default"}}`, "", true,
			"", "kongsync does not read this object"},
		{"a deletion", admissionv1.Delete, plugins, badPlugin, "", true, "", ""},
	} {
		code, resp, body := review(t, h, tc.op, tc.resource, tc.object, tc.old)
		if code != http.StatusOK {
			t.Errorf("%s: HTTP %d %s", tc.name, code, body)
			continue
		}
		warnings := strings.Join(resp.Warnings, "\n")
		if resp.Allowed != tc.allowed || !strings.Contains(resp.Result.Message, tc.message) || !strings.Contains(warnings, tc.warn) ||
			(tc.warn == "" && warnings != "") || (!tc.allowed && resp.Result.Code != 400) || (tc.allowed && resp.Result.Message != "") {
			t.Errorf("%s: allowed %v code %d message %q warnings %q", tc.name, resp.Allowed, resp.Result.Code, resp.Result.Message, resp.Warnings)
		}
	}
}

// Before the store is complete, and outside the watched namespaces, objects pass unchecked.
func TestReviewsUnchecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    *Validator
		warn string
	}{
		{"not synced", newTestValidator(t, false), "kongsync is still reading the cluster"},
		{"other namespace", newTestValidator(t, true, "elsewhere"), ""},
	} {
		_, resp, _ := review(t, Handler(tc.v, logr.Discard(), nil), admissionv1.Create, plugins, badPlugin, "")
		if !resp.Allowed || !strings.Contains(strings.Join(resp.Warnings, ""), tc.warn) {
			t.Errorf("%s: allowed %v warnings %v", tc.name, resp.Allowed, resp.Warnings)
		}
	}
}

// A body that is no review is a 400; an object kongsync cannot read a 500 (the API server then
// applies the webhook's failurePolicy, as with KIC).
func TestBadReviews(t *testing.T) {
	var seen []time.Duration
	h := Handler(newTestValidator(t, true), logr.Discard(), func(d time.Duration, _ Verdict) { seen = append(seen, d) })
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"kind":"AdmissionReview"}`)))
	if w.Code != http.StatusBadRequest {
		t.Errorf("a review without request: %d", w.Code)
	}
	code, _, body := review(t, h, admissionv1.Create, ingresses,
		`{"apiVersion":"networking.k8s.io/v2","kind":"Ingress","metadata":{"name":"x","namespace":"default"}}`, "")
	if code != http.StatusInternalServerError || !strings.Contains(body, "unsupported apiVersion") {
		t.Errorf("an Ingress of an unknown version: %d %s", code, body)
	}
	if len(seen) != 0 {
		t.Errorf("observed %d failed reviews", len(seen))
	}
	review(t, h, admissionv1.Create, plugins, goodPlugin, "")
	if len(seen) != 1 {
		t.Errorf("observed %d reviews, want 1", len(seen))
	}
}

// A Secret that only the object under review references is not in the store: it is read
// through Fetch, and its content judged.
func TestReviewFetchesReferencedSecrets(t *testing.T) {
	v := newTestValidator(t, true)
	secrets := map[string]string{"ok": `{"minute": 9}`, "broken": "- not\n- an object\n"}
	var fetched []string
	v.Fetch = func(_ context.Context, ref store.Ref) (store.Object, error) {
		fetched = append(fetched, ref.String())
		val, ok := secrets[ref.Name]
		if !ok {
			return nil, nil
		}
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
			Data: map[string][]byte{"config": []byte(val)}}, nil
	}
	h := Handler(v, logr.Discard(), nil)
	plugin := func(secret string) string {
		return `{"apiVersion":"configuration.konghq.com/v1","kind":"KongPlugin","metadata":{"name":"q","namespace":"default"},
		"plugin":"rate-limiting","configFrom":{"secretKeyRef":{"name":"` + secret + `","key":"config"}}}`
	}
	for _, tc := range []struct {
		secret  string
		allowed bool
		text    string
	}{
		{"ok", true, ""},
		{"broken", false, "the Secret value is neither a JSON nor a YAML object"},
		{"missing", true, "Secret default/missing does not exist"}, // a warning: it may come next
	} {
		_, resp, _ := review(t, h, admissionv1.Create, plugins, plugin(tc.secret), "")
		text := resp.Result.Message + strings.Join(resp.Warnings, "")
		if resp.Allowed != tc.allowed || !strings.Contains(text, tc.text) {
			t.Errorf("Secret %s: allowed %v, %q", tc.secret, resp.Allowed, text)
		}
	}
	if strings.Join(fetched, ",") != "Secret default/ok,Secret default/broken,Secret default/missing" {
		t.Errorf("fetched %v", fetched)
	}
	// A Secret the store holds is not fetched.
	fetched = nil
	review(t, h, admissionv1.Create, plugins, plugin("limits"), "")
	if len(fetched) != 0 {
		t.Errorf("fetched %v, which the store holds", fetched)
	}
}

// Kong's chart registers the webhook with admissionReviewVersions [v1beta1]: the answer must
// come back in the request's version, or the API server discards it (and, with the chart's
// failurePolicy Ignore, admits the object).
func TestReviewAnswersInRequestVersion(t *testing.T) {
	h := Handler(newTestValidator(t, true), logr.Discard(), nil)
	for _, tt := range []struct{ sent, want string }{
		{"admission.k8s.io/v1beta1", "admission.k8s.io/v1beta1"},
		{"admission.k8s.io/v1", "admission.k8s.io/v1"},
		{"", "admission.k8s.io/v1"},
	} {
		req := admissionv1.AdmissionRequest{UID: "uid-2", Operation: admissionv1.Create, Name: "p", Namespace: "default"}
		req.Resource.Group, req.Resource.Version, req.Resource.Resource = "configuration.konghq.com", "v1", "kongplugins"
		req.Object.Raw = []byte(badPlugin)
		body, _ := json.Marshal(map[string]any{"apiVersion": tt.sent, "kind": "AdmissionReview", "request": req})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		var out admissionv1.AdmissionReview
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusOK {
			t.Fatalf("%q: %d %s (%v)", tt.sent, w.Code, w.Body.String(), err)
		}
		if out.APIVersion != tt.want || out.Response == nil || out.Response.UID != "uid-2" || out.Response.Allowed {
			t.Errorf("%q: answered %s, want %s refusing uid-2", tt.sent, w.Body.String(), tt.want)
		}
	}
}

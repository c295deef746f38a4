package metrics

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/sync/fallback"
)

func dumpDoc(key string) *document.Document {
	d := document.New()
	d.Certificates = []*document.Certificate{{ID: kong.String("c1"), Cert: kong.String("CERT"), Key: kong.String(key)}}
	d.Services = []*document.Service{{Service: kong.Service{Name: kong.String("svc"), Host: kong.String("web")}}}
	return d
}

// KIC's /debug/config endpoints: 204 before anything, then the last success and failure
// (redacted unless sensitive), Kong's raw answer, and the objects left out as "fallback".
func TestConfigDumpHandler(t *testing.T) {
	d := &kongsync.Dumps{}
	var plan fallback.Plan
	redacted := ConfigDumpHandler(d, func() fallback.Plan { return plan }, false)
	sensitive := ConfigDumpHandler(d, func() fallback.Plan { return plan }, true)
	for _, path := range []string{"/successful", "/failed", "/raw-error"} {
		if code, _ := get(redacted, path); code != http.StatusNoContent {
			t.Errorf("%s before any push = %d, want 204", path, code)
		}
	}
	if _, body := get(redacted, "/fallback"); strings.TrimSpace(body) != `{"status":"not-triggered"}` {
		t.Errorf("/fallback = %s", body)
	}
	good, _ := kongsync.NewPayload(dumpDoc("GOOD-KEY"))
	bad, _ := kongsync.NewPayload(dumpDoc("BAD-KEY"))
	d.Record("http://kong:8001", good, kongsync.Outcome{Result: kongsync.ResultAccepted, Status: 201}, time.Now())
	errBody := `{"flattened_errors":[{"entity_type":"certificate","entity":{"key":"BAD-KEY"},"errors":[{"type":"field","field":"key","message":"invalid key"}]}]}`
	d.Record("http://kong:8002", bad, kongsync.Outcome{Result: kongsync.ResultRejected, Status: 400, Body: []byte(errBody),
		Err: errors.New("POST /config: HTTP 400")}, time.Now())

	var resp struct {
		Hash    string         `json:"hash"`
		Config  map[string]any `json:"config"`
		Replica string         `json:"replica"`
	}
	code, body := get(redacted, "/successful")
	if err := json.Unmarshal([]byte(body), &resp); err != nil || code != 200 {
		t.Fatalf("/successful = %d %s (%v)", code, body, err)
	}
	if resp.Hash != good.Hash() || resp.Replica != "http://kong:8001" || resp.Config["_format_version"] != "3.0" ||
		strings.Contains(body, "GOOD-KEY") || !strings.Contains(body, document.RedactedValue) {
		t.Errorf("redacted /successful = %s", body)
	}
	if _, body := get(sensitive, "/successful"); !strings.Contains(body, `"config":`+string(good.Config.Bytes())) {
		t.Errorf("sensitive /successful is not the config as posted: %s", body)
	}
	if _, body := get(redacted, "/failed"); !strings.Contains(body, bad.Hash()) || strings.Contains(body, "BAD-KEY") {
		t.Errorf("redacted /failed = %s", body)
	}
	if _, body := get(redacted, "/raw-error"); strings.Contains(body, "BAD-KEY") || !strings.Contains(body, "invalid key") {
		t.Errorf("redacted /raw-error = %s", body)
	}
	if _, body := get(sensitive, "/raw-error"); body != errBody {
		t.Errorf("sensitive /raw-error = %s, want Kong's body as received", body)
	}
	svc := store.Ref{Kind: store.KindService, Namespace: "a", Name: "s"}
	ing := store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "i"}
	plan = fallback.Plan{Broken: []store.Ref{svc},
		Excluded: []fallback.Affected{
			{Ref: ing, Object: &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "i", UID: "u2"}}, Causes: []store.Ref{svc}},
			{Ref: svc, Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s", UID: "u1"}}, Causes: []store.Ref{svc}}},
		Backfilled: []fallback.Affected{
			{Ref: svc, Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s", UID: "u1"}}, Causes: []store.Ref{svc}}}}
	// KIC's FallbackResponse: broken objects without a version, the others with their causes as
	// KIC's object hashes.
	want := `{"status":"triggered",` +
		`"brokenObjects":[{"group":"","kind":"Service","namespace":"a","name":"s","id":"u1"}],` +
		`"excludedObjects":[{"group":"networking.k8s.io","kind":"Ingress","version":"v1","namespace":"a","name":"i","id":"u2","causingObjects":["core/Service:a/s"]},` +
		`{"group":"","kind":"Service","version":"v1","namespace":"a","name":"s","id":"u1","causingObjects":["core/Service:a/s"]}],` +
		`"backfilledObjects":[{"group":"","kind":"Service","version":"v1","namespace":"a","name":"s","id":"u1","causingObjects":["core/Service:a/s"]}]}`
	if _, body := get(redacted, "/fallback"); strings.TrimSpace(body) != want {
		t.Errorf("/fallback =\n%s\nwant\n%s", body, want)
	}
}

func get(h http.Handler, path string) (int, string) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w.Code, w.Body.String()
}

package admission

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
)

// The webhook answers for every tenant: whatever object a tenant submits, it must answer in
// bounded time and memory, the same way twice, and never echo a Secret's data (issue 20).

// aliasBomb is a YAML value of about size bytes whose aliases expand to size × fan² bytes,
// with fan² + fan aliases: few enough that go-yaml's alias-count guard lets it through.
func aliasBomb(size, fan int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "minute: &s %q\nl1: &l1 [", strings.Repeat("x", size))
	b.WriteString(strings.TrimSuffix(strings.Repeat("*s, ", fan), ", "))
	b.WriteString("]\nl2: [")
	b.WriteString(strings.TrimSuffix(strings.Repeat("*l1, ", fan), ", "))
	b.WriteString("]\n")
	return b.String()
}

// limitsSecret is the cluster's Secret default/limits (which the KongPlugin limits reads its
// config from) with the given config value.
func limitsSecret(config string) string {
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "limits", "namespace": "default"},
		"data":     map[string]string{"config": base64.StdEncoding.EncodeToString([]byte(config))}})
	return string(b)
}

// TestReviewAliasBombSecret: a Secret whose value expands to ~100 MB is refused (the plugin
// reading it gets a problem) without the webhook building the expansion.
func TestReviewAliasBombSecret(t *testing.T) {
	h := Handler(newTestValidator(t, true), logr.Discard(), nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	code, res, body := review(t, h, admissionv1.Update, secrets, limitsSecret(aliasBomb(256<<10, 20)), limitsSecret(`{"minute": 5}`))
	runtime.ReadMemStats(&after)
	if code != http.StatusOK || res == nil {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	if res.Allowed || !strings.Contains(res.Result.Message, "KongPlugin default/limits") {
		t.Errorf("allowed %v, message %q: want the Secret refused, naming the plugin that reads it", res.Allowed, res.Result.Message)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the review allocated %d MB", alloc>>20)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the review took %v", d)
	}
}

// FuzzReview submits arbitrary bytes as the object of a CREATE or UPDATE of one of the kinds
// the webhook judges.
func FuzzReview(f *testing.F) {
	for _, s := range []string{goodPlugin, badPlugin, ingress("web", `"konghq.com/plugins":"limits"`, "web"),
		ingress("x", `"konghq.com/host-aliases":"a.io,a.io,b.io","konghq.com/methods":"GET,\u001b[2J"`, "web"),
		limitsSecret(`{"minute": 5}`), limitsSecret("a: &a [1]\nb: [*a, *a]\n<<: {c: 1}\n"), limitsSecret(aliasBomb(1<<10, 20)),
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"k","namespace":"default","labels":{"konghq.com/credential":"key-auth"}},"stringData":{"key":"sekr1t-value-0123"}}`,
	} {
		for op := range uint8(2) {
			f.Add([]byte(s), op)
		}
	}
	resources := []string{plugins, ingresses, secrets, "configuration.konghq.com/v1/kongconsumers", "/v1/services"}
	v := newTestValidator(f, true)
	h := Handler(v, logr.Discard(), nil)
	f.Fuzz(func(t *testing.T, object []byte, op uint8) {
		if len(object) > 1<<20 || !json.Valid(object) {
			return // the API server sends an object as JSON, at most ~1.5 MiB
		}
		resource := resources[int(op/2)%len(resources)]
		operation := admissionv1.Create
		old := ""
		if op%2 == 1 {
			operation, old = admissionv1.Update, goodPlugin
		}
		start := time.Now()
		code, res, body := review(t, h, operation, resource, string(object), old)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("the review took %v", d)
		}
		checkAnswer(t, object, code, res, body)
		code2, res2, body2 := review(t, h, operation, resource, string(object), old)
		if code2 != code || (res == nil) != (res2 == nil) || res != nil && (res.Allowed != res2.Allowed || res.Result.Message != res2.Result.Message) {
			t.Fatalf("two answers to one review: %d %s / %d %s", code, body, code2, body2)
		}
	})
}

func checkAnswer(t *testing.T, object []byte, code int, res *admissionv1.AdmissionResponse, body string) {
	t.Helper()
	if code != http.StatusOK && code != http.StatusInternalServerError {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	msg := body
	if res != nil {
		msg = res.Result.Message + strings.Join(res.Warnings, "\n")
	}
	if len(msg) > 256<<10 {
		t.Fatalf("an answer of %d bytes", len(msg))
	}
	for _, r := range msg {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == utf8.RuneError {
			t.Fatalf("the answer holds the raw character %U: %q", r, msg)
		}
	}
	for _, secret := range secretValues(object) {
		if strings.Contains(msg, secret) {
			t.Fatalf("the answer holds a Secret's data: %q", msg)
		}
	}
}

// secretValues are the data values (8 bytes or more) of object when it is a Secret.
func secretValues(object []byte) []string {
	var s struct {
		Kind       string            `json:"kind"`
		Data       map[string][]byte `json:"data"`
		StringData map[string]string `json:"stringData"`
	}
	if json.Unmarshal(object, &s) != nil || s.Kind != "Secret" {
		return nil
	}
	var out []string
	for _, v := range s.Data {
		if len(v) >= 8 {
			out = append(out, string(v))
		}
	}
	for _, v := range s.StringData {
		if len(v) >= 8 {
			out = append(out, v)
		}
	}
	return out
}

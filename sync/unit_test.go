package sync

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

func secret(name string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: "1"}}
}

func TestPayloadHashIsOfTheConfigString(t *testing.T) {
	doc := document.New()
	doc.Services = []*document.Service{{Service: kong.Service{Name: kong.String("a<&>b"), Host: kong.String("h")}}}
	p, err := NewPayload(doc)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Config string }
	if err := json.Unmarshal(readBody(t, p), &body); err != nil {
		t.Fatal(err)
	}
	if body.Config != string(p.Config.Bytes()) || document.Hash([]byte(body.Config)) != p.Hash() || p.StatusHash() != p.Hash() {
		t.Fatalf("body config %q, hash %s", body.Config, p.Hash())
	}
	empty, _ := NewPayload(document.New())
	if !empty.Empty || empty.StatusHash() != document.EmptyHash {
		t.Errorf("empty document: Empty=%v StatusHash=%s", empty.Empty, empty.StatusHash())
	}
}

func TestBackoff(t *testing.T) {
	b := newBackoff(100*time.Millisecond, time.Second)
	for _, c := range []struct {
		n        int
		min, max time.Duration
	}{{1, 50 * time.Millisecond, 100 * time.Millisecond}, {2, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 400 * time.Millisecond, 800 * time.Millisecond}, {5, 500 * time.Millisecond, time.Second}, {50, 500 * time.Millisecond, time.Second}} {
		for _, r := range []float64{0, 0.5, 0.999} {
			b.rand = func() float64 { return r }
			if d := b.delay(c.n); d < c.min || d > c.max {
				t.Errorf("delay(%d) with rand %v = %v, want in [%v, %v]", c.n, r, d, c.min, c.max)
			}
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, "0.5": 500 * time.Millisecond, "-1": 0, "9999": time.Minute, "soon": 0,
		"Thu, 01 Jan 2026 00:00:10 GMT": 10 * time.Second,
	} {
		if got := parseRetryAfter(in, now, time.Minute); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// An entity without k8s tags (e.g. a target) is traced through its parent's id in the document.
func TestOwnerOfFallsBackToParent(t *testing.T) {
	doc := document.New()
	doc.Upstreams = []*document.Upstream{{Upstream: kong.Upstream{ID: kong.String("u-1"), Name: kong.String("u"),
		Tags: kong.StringSlice("k8s-name:web", "k8s-namespace:shop", "k8s-kind:Service")}}}
	body := []byte(`{"code":14,"message":"declarative config is invalid: {}","flattened_errors":[{"entity_type":"target","entity_id":"t-1",
		"entity":{"target":"1.2.3.4:80","upstream":{"id":"u-1"},"key":"never kept"},"errors":[{"type":"entity","message":"dup"}]}]}`)
	ents, msg, err := parseConfigError(body)
	if err != nil || len(ents) != 1 || msg != "declarative config is invalid: {}" {
		t.Fatalf("%v %q %v", ents, msg, err)
	}
	ref, ok := ownerOf(ents[0], doc)
	if !ok || ref != (store.Ref{Kind: store.KindService, Namespace: "shop", Name: "web"}) {
		t.Fatalf("ownerOf = %v, %v", ref, ok)
	}
	if s := ents[0].String(); s != "target t-1: dup" {
		t.Errorf("String() = %q", s)
	}
}

// The body's hand-rolled quoting must decode to exactly the config bytes, which is what Kong
// hashes.
func FuzzConfigBody(f *testing.F) {
	for _, s := range []string{"", `{"a":"b\"c\\d"}`, "tab\there\nnl\r\x00\x1f", "<&>\u2028\u2029 é 日本", `\u0000`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		var got struct{ Config string }
		p := &Payload{Config: document.NewConfig([]byte(s))}
		if err := json.Unmarshal(readBody(t, p), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got.Config != s {
			t.Fatalf("round trip %q → %q", s, got.Config)
		}
	})
}

// Kong quotes the duplicate value in uniqueness errors; for credentials that value is a secret.
func TestCredentialValuesRedacted(t *testing.T) {
	body := []byte(`{"flattened_errors":[
		{"entity_type":"keyauth_credential","entity_tags":["k8s-name:key","k8s-namespace:default","k8s-kind:Secret"],
		 "errors":[{"type":"entity","message":"uniqueness violation: 'keyauth_credentials' entity with key set to 'sup3r-s3cret' already declared"}]},
		{"entity_type":"consumer","errors":[{"type":"entity","message":"uniqueness violation: 'consumers' entity with username set to 'alice' already declared"}]}]}`)
	ents, _, err := parseConfigError(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := ents[0].Errors[0].Message; got != "uniqueness violation: 'keyauth_credentials' entity with key set to '[redacted]' already declared" {
		t.Errorf("credential message %q", got)
	}
	if got := ents[1].Errors[0].Message; got != "uniqueness violation: 'consumers' entity with username set to 'alice' already declared" {
		t.Errorf("consumer message changed: %q", got)
	}
}

// A rejection naming an IngressClass is reported but, by default, the class is not left out:
// that would drop every Ingress of the class. With FallbackConfiguration, KIC's rules apply: the
// class is broken, and it and its Ingresses are left out.
func TestIngressClassNeverExcluded(t *testing.T) {
	for _, gate := range []bool{false, true} {
		st := store.New()
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kong", ResourceVersion: "1"}}
		if _, err := st.Upsert(ic); err != nil {
			t.Fatal(err)
		}
		rep := &reporter{}
		l, err := New(Config{Source: st, Build: buildWith(fakeTranslate), Reporter: rep, FallbackConfiguration: gate})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := NewPayload(document.New())
		p.snap = st.Snapshot()
		l.current = p
		rebuild := l.handleRejection(rejectionMsg{replica: "http://kong", payload: p, outcome: Outcome{Entities: []EntityError{{
			Type: "route", Tags: []string{"k8s-name:kong", "k8s-kind:IngressClass", "k8s-group:networking.k8s.io"},
			Errors: []FieldError{{Type: "entity", Message: "boom"}}}}}})
		_, rej, _ := rep.snapshot()
		if len(rej) != 1 || rej[0].Object.Kind != store.KindIngressClass {
			t.Fatalf("gate %v: rejections %v", gate, rej)
		}
		if rebuild != gate || len(l.Excluded()) != map[bool]int{false: 0, true: 1}[gate] {
			t.Fatalf("gate %v: rebuild %v, excluded %v", gate, rebuild, l.Excluded())
		}
	}
}

// UseLastValidConfigForFallback without the gate is refused, as KIC refuses the flag.
func TestLastValidNeedsTheGate(t *testing.T) {
	_, err := New(Config{Source: store.New(), Build: buildWith(fakeTranslate), UseLastValidConfigForFallback: true})
	if !errors.Is(err, errLastValidWithoutGate) {
		t.Fatalf("err = %v", err)
	}
}

// TestPayloadWithEncodeFunc: a payload built through a document.JSONCache (what the engine
// encodes with) carries the same config, body and hash as the default encoding.
func TestPayloadWithEncodeFunc(t *testing.T) {
	doc := document.New()
	doc.Upstreams = []*document.Upstream{{Upstream: kong.Upstream{Name: kong.String("u.svc")}}}
	want, err := NewPayload(doc)
	if err != nil {
		t.Fatal(err)
	}
	jc := document.NewJSONCache()
	for range 2 {
		cfg, err := jc.EncodeConfig(doc)
		if err != nil {
			t.Fatal(err)
		}
		got := &Payload{Config: cfg, doc: doc}
		if got.Hash() != want.Hash() || !bytes.Equal(got.Config.Bytes(), want.Config.Bytes()) ||
			!bytes.Equal(readBody(t, got), readBody(t, want)) {
			t.Fatalf("payload with JSONCache differs: %s vs %s", got.Hash(), want.Hash())
		}
	}
}

// readBody reads a payload's request body and checks it has the length Body announced.
func readBody(t *testing.T, p *Payload) []byte {
	t.Helper()
	rd, n := p.Body()
	b, err := io.ReadAll(rd)
	if err != nil || int64(len(b)) != n {
		t.Fatalf("body: %d bytes (%v), announced %d", len(b), err, n)
	}
	return b
}

// Kong's 400 echoes the entities it refused: their secrets are hidden from redacted dumps, the
// errors are kept.
func TestRedactErrorBody(t *testing.T) {
	body := `{"code":14,"message":"declarative config is invalid: {}","fields":{"certificates":[{"key":"invalid key"}]},
	"flattened_errors":[
	 {"entity_type":"certificate","entity":{"cert":"CERT","key":"PRIVATE-KEY","snis":[]},"errors":[{"type":"field","field":"key","message":"invalid key"}]},
	 {"entity_type":"consumer","entity":{"username":"u","keyauth_credentials":[{"key":"K1"}],"basicauth_credentials":[{"username":"b","password":"PW"}]},"errors":[]},
	 {"entity_type":"keyauth_credential","entity":{"key":"K2"},"errors":[{"type":"entity","message":"uniqueness violation: 'keyauth_credentials' entity with key set to 'K2' already declared"}]}]}`
	got := string(RedactErrorBody([]byte(body)))
	for _, secret := range []string{"PRIVATE-KEY", "K1", "K2", "PW"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted body still holds %q: %s", secret, got)
		}
	}
	for _, kept := range []string{`"cert":"CERT"`, `"message":"invalid key"`, `"fields":{"certificates":[{"key":"invalid key"}]}`, `"username":"b"`,
		"with key set to '{vault://redacted-value}' already declared"} {
		if !strings.Contains(got, kept) {
			t.Errorf("redacted body lacks %s: %s", kept, got)
		}
	}
	if html := "<html>413</html>"; string(RedactErrorBody([]byte(html))) != html {
		t.Error("a non-JSON body should be returned as it is")
	}
}

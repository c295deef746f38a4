//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kongsync/kongsync/informer"
	"github.com/kongsync/kongsync/store"
)

// secretTap records the response bodies of every Secret request the controller makes, keyed by
// the request's selectors and whether it asked for metadata only.
type secretTap struct {
	next   http.RoundTripper
	mu     sync.Mutex
	bodies map[string]*bytes.Buffer
}

func (s *secretTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(req)
	if err != nil || !strings.Contains(req.URL.Path, "/secrets") {
		return resp, err
	}
	q := req.URL.Query()
	key := "full"
	if strings.Contains(req.Header.Get("Accept"), "as=PartialObjectMetadata") {
		key = "meta"
	}
	key += " field=" + q.Get("fieldSelector") + " label=" + q.Get("labelSelector")
	if !strings.HasSuffix(req.URL.Path, "/secrets") {
		key = "get " + req.URL.Path
	}
	s.mu.Lock()
	if s.bodies[key] == nil {
		s.bodies[key] = &bytes.Buffer{}
	}
	buf := s.bodies[key]
	s.mu.Unlock()
	resp.Body = &tapBody{ReadCloser: resp.Body, tap: s, buf: buf}
	return resp, nil
}

// tapBody copies what the client reads into the tap.
type tapBody struct {
	io.ReadCloser
	tap *secretTap
	buf *bytes.Buffer
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.tap.mu.Lock()
	b.buf.Write(p[:n])
	b.tap.mu.Unlock()
	return n, err
}

// contains lists the request keys whose bodies hold any of needles.
func (s *secretTap) contains(needles ...[]byte) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k, b := range s.bodies {
		for _, n := range needles {
			if bytes.Contains(b.Bytes(), n) {
				keys = append(keys, k)
				break
			}
		}
	}
	return keys
}

func (s *secretTap) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, b := range s.bodies {
		n += b.Len()
	}
	return n
}

// notifyChan signals store changes.
type notifyChan chan struct{}

func (n notifyChan) Notify() {
	select {
	case n <- struct{}{}:
	default:
	}
}

// startController runs the Secret-watching controller alone on ns, its HTTP traffic tapped.
func startSecretController(t *testing.T, ns string) (*store.Store, notifyChan, *secretTap) {
	t.Helper()
	tap := &secretTap{bodies: map[string]*bytes.Buffer{}}
	rc := plane.RestConfig()
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { tap.next = rt; return tap })
	client := kubernetes.NewForConfigOrDie(rc)
	meta := metadata.NewForConfigOrDie(rc)
	st := store.New()
	n := make(notifyChan, 1)
	c, err := informer.New(client, st, n, logr.Discard(), informer.Options{Namespaces: []string{ns}, Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return st, n, tap
}

func waitStore(t *testing.T, n notifyChan, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for !cond() {
		select {
		case <-n:
		case <-deadline:
			t.Fatalf("timed out waiting for: %s", what)
		}
	}
}

func randomData(t *testing.T, size int) []byte {
	t.Helper()
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// An unrelated Opaque Secret's data never crosses the wire, neither in the initial lists nor in
// the watches when it changes; a TLS Secret's does (proving the tap sees Secret traffic).
func TestUnrelatedSecretDataNeverTransferred(t *testing.T) {
	ns := newNamespace(t)
	ctx := ctxT(t)
	unrelated := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unrelated"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"blob": randomData(t, 256<<10)}}
	if _, err := admin.CoreV1().Secrets(ns).Create(ctx, unrelated, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	st, n, tap := startSecretController(t, ns)
	if _, ok := st.Get(store.Ref{Kind: store.KindSecret, Namespace: ns, Name: "unrelated"}); ok {
		t.Fatal("unrelated Secret in the store")
	}
	changed := randomData(t, 256<<10)
	unrelated.Data["blob"] = changed
	if _, err := admin.CoreV1().Secrets(ns).Update(ctx, unrelated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A sentinel matching all three full informers' selectors, written after the change: once
	// every full watch has delivered it, it has delivered whatever it would of the change.
	sentinelKey := randomData(t, 32)
	sentinel := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sentinel",
		Labels: map[string]string{informer.CACertLabel: "true", informer.CredentialLabel: "key-auth"}},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("crt"), "tls.key": sentinelKey}}
	if _, err := admin.CoreV1().Secrets(ns).Create(ctx, sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(waitTimeout)
	for len(tap.contains(sentinelKey, []byte(base64.StdEncoding.EncodeToString(sentinelKey)))) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the three full Secret watches did not all deliver the sentinel: %v", tap.contains(sentinelKey))
		}
		select {
		case <-n:
		case <-time.After(50 * time.Millisecond):
		}
	}
	waitStore(t, n, "sentinel in the store", func() bool {
		_, ok := st.Get(store.Ref{Kind: store.KindSecret, Namespace: ns, Name: "sentinel"})
		return ok
	})
	for _, data := range [][]byte{unrelated.Data["blob"], changed} {
		probe := data[1000:1064] // raw in protobuf bodies
		b64 := base64.StdEncoding.EncodeToString(data)[3000:3100]
		if keys := tap.contains(probe, []byte(b64)); len(keys) != 0 {
			t.Errorf("unrelated Secret data transferred in %v", keys)
		}
	}
	if total := tap.total(); total >= 256<<10 {
		t.Errorf("%d bytes of Secret responses for one 256 KiB unrelated Secret and a small TLS one", total)
	}
	t.Logf("Secret responses: %d bytes", tap.total())
}

// A referenced Opaque Secret that appears after its Ingress is GOT, GOT again when it changes
// and leaves the store when deleted.
func TestReferencedOpaqueSecretLifecycle(t *testing.T) {
	ns := newNamespace(t)
	ctx := ctxT(t)
	a := app{ns: ns, name: "late", host: "late.example.com"}
	ing := a.ingress()
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{a.host}, SecretName: "late-secret"}}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	st, n, _ := startSecretController(t, ns)
	ref := store.Ref{Kind: store.KindSecret, Namespace: ns, Name: "late-secret"}
	data := func() string {
		o, ok := st.Get(ref)
		if !ok {
			return ""
		}
		return string(o.(*corev1.Secret).Data["key"])
	}
	if data() != "" {
		t.Fatal("Secret in the store before it exists")
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "late-secret"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"key": []byte("v1")}}
	s, err := admin.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStore(t, n, "Secret GOT once created", func() bool { return data() == "v1" })
	s.Data["key"] = []byte("v2-" + hex.EncodeToString(randomData(t, 4)))
	if _, err := admin.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStore(t, n, "changed Secret GOT again", func() bool { return data() == string(s.Data["key"]) })
	if err := admin.CoreV1().Secrets(ns).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStore(t, n, "deleted Secret leaves the store", func() bool { _, ok := st.Get(ref); return !ok })
}

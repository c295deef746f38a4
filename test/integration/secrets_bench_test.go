//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kongsync/kongsync/informer"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
)

// benchSecrets is how many Ingresses each reference their own Secret.
const benchSecrets = 200

// BenchmarkStartReferencedSecrets measures Controller.Start (informer lists, then every
// referenced Secret stored) in a namespace of benchSecrets Ingresses, each referencing its own
// Secret: of type Opaque, which no full informer covers, so that Start must GET every one of
// them, with the client rate limit `kongsync run` uses by default (--apiserver-qps 100,
// --apiserver-burst 300), with a tighter one (qps 50, burst 100) and without one; and
// of type kubernetes.io/tls, listed by a full informer (no GET). Every op is a fresh controller
// and client, as a restarted kongsync.
func BenchmarkStartReferencedSecrets(b *testing.B) {
	for _, typ := range []corev1.SecretType{corev1.SecretTypeOpaque, corev1.SecretTypeTLS} {
		ns := benchNamespace(b)
		createReferencedSecrets(b, ns, typ)
		d := runner.Defaults()
		for _, lim := range []struct {
			qps   float32
			burst int
		}{{d.APIServerQPS, d.APIServerBurst}, {50, 100}, {-1, 0}} {
			name := fmt.Sprintf("type=%s/qps=%g/burst=%d", strings.TrimPrefix(string(typ), "kubernetes.io/"), lim.qps, lim.burst)
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					startReferencedSecrets(b, ns, lim.qps, lim.burst)
				}
			})
		}
	}
}

// createReferencedSecrets creates benchSecrets Secrets of type typ in ns, each referenced by
// the TLS section of one Ingress.
func createReferencedSecrets(b *testing.B, ns string, typ corev1.SecretType) {
	ctx := context.Background()
	for i := range benchSecrets {
		name := fmt.Sprintf("s%03d", i)
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: typ,
			Data: map[string][]byte{"tls.crt": []byte("crt"), "tls.key": []byte("key")}}
		if _, err := admin.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: networkingv1.IngressSpec{TLS: []networkingv1.IngressTLS{{SecretName: name}},
				DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
		if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// startReferencedSecrets starts one controller on ns, checks that Start returned with every
// referenced Secret stored, and stops it.
func startReferencedSecrets(b *testing.B, ns string, qps float32, burst int) {
	rc := plane.RestConfig()
	rc.QPS, rc.Burst = qps, burst
	client := kubernetes.NewForConfigOrDie(rc)
	meta := metadata.NewForConfigOrDie(rc)
	st := store.New()
	c, err := informer.New(client, st, make(notifyChan, 1), logr.Discard(),
		informer.Options{Namespaces: []string{ns}, Metadata: meta})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); c.Shutdown() }()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, o := range st.Snapshot().Objects(store.KindSecret) {
		if o.GetNamespace() == ns {
			n++
		}
	}
	if n != benchSecrets {
		b.Fatalf("%d Secrets stored when Start returned, want %d", n, benchSecrets)
	}
}

// benchNamespace creates a namespace for a benchmark and deletes its objects at cleanup.
func benchNamespace(b *testing.B) string {
	buf := make([]byte, 4)
	_, _ = rand.Read(buf)
	name := "bench-secrets-" + hex.EncodeToString(buf)
	ctx := context.Background()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		all, del := metav1.ListOptions{}, metav1.DeleteOptions{}
		_ = admin.NetworkingV1().Ingresses(name).DeleteCollection(ctx, del, all)
		_ = admin.CoreV1().Secrets(name).DeleteCollection(ctx, del, all)
		_ = admin.CoreV1().Namespaces().Delete(ctx, name, del)
	})
	return name
}

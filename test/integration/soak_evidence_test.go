//go:build integration

package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// violation stops the soak: it writes the evidence (the expected config and each Kong's, their
// differences, the problems, the refused objects) beside the change log, the kongsync logs and
// the seed already in the output directory, and fails with the way to replay it.
func (s *soak) violation(msg string, exp *expectation, diffs map[int][]document.Difference) {
	s.logf("VIOLATION: %s", msg)
	write := func(name string, v any) {
		b, _ := json.MarshalIndent(v, "", "  ")
		_ = os.WriteFile(s.path(name), b, 0o644)
	}
	_ = os.WriteFile(s.path("violation.txt"), []byte(msg+"\n"), 0o644)
	if exp != nil {
		write("expected.json", exp.doc)
		var ps []string
		for _, p := range exp.built.Problems {
			ps = append(ps, p.String())
		}
		_ = os.WriteFile(s.path("problems.txt"), []byte(strings.Join(ps, "\n")+"\n"), 0o644)
		write("refused.json", exp.rejected)
	}
	for i, d := range s.doubles {
		write(fmt.Sprintf("actual-kong%d.json", i), d.Document())
		var lines []string
		for _, x := range diffs[i] {
			lines = append(lines, x.String())
		}
		_ = os.WriteFile(s.path(fmt.Sprintf("diff-kong%d.txt", i)), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		s.writePosts(i, d.Posts())
	}
	s.t.Fatalf("soak: %s\nevidence: %s\nreplay (router_flavor %s, from the seed): SOAK_SEED=%d SOAK_DURATION=%s make soak (then add {%d, %s} to soakRegressions)",
		msg, s.out, s.flavor, s.seed, s.dur, s.seed, s.dur)
}

// writePosts lists a double's POSTs: poster, status, times, hash.
func (s *soak) writePosts(i int, posts []kongdouble.Request) {
	var b strings.Builder
	for _, p := range posts {
		fmt.Fprintf(&b, "%s %s %d %s %s\n", p.Start.Format("15:04:05.000"), p.End.Format("15:04:05.000"),
			p.Status, p.Header.Get(identityHeader), postedHash(p))
	}
	_ = os.WriteFile(s.path(fmt.Sprintf("posts-kong%d.txt", i)), []byte(b.String()), 0o644)
}

// finish stops the doubles, deletes what the soak created and, when it passed, its output
// directory (unless SOAK_KEEP is set).
func (s *soak) finish() {
	for _, d := range append(s.doubles, s.scratch) {
		if d != nil {
			d.Close()
		}
	}
	for _, p := range s.procs.live() {
		s.procs.kill(p, false)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, k := range append(s.world.kinds, s.world.later...) {
		ri := s.dyn.Resource(k.gvr())
		if !k.namespaced {
			for _, n := range k.names {
				_ = ri.Delete(ctx, n, metav1.DeleteOptions{})
			}
			continue
		}
		for _, ns := range s.world.watched() {
			// Services have no DeleteCollection: delete what a list finds, one by one.
			list, err := ri.Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, o := range list.Items {
				_ = ri.Namespace(ns).Delete(ctx, o.GetName(), metav1.DeleteOptions{})
			}
		}
	}
	_ = admin.CoreV1().Services(s.kongNS).Delete(ctx, "kong-admin", metav1.DeleteOptions{})
	_ = admin.DiscoveryV1().EndpointSlices(s.kongNS).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	for _, ns := range append([]string{s.kongNS}, s.world.watched()...) {
		_ = admin.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	}
	s.procs.closeLogs()
	s.mu.Lock()
	_ = s.log.Close()
	s.mu.Unlock()
	if s.t.Failed() || os.Getenv("SOAK_KEEP") != "" {
		fmt.Fprintf(os.Stderr, "soak: output kept in %s\n", s.out)
		return
	}
	_ = os.RemoveAll(s.out)
}

// soakPairs are three self-signed key pairs for the run's hosts, which TLS Secrets rotate among.
func soakPairs(t *testing.T, prefix string) []tlsPair {
	t.Helper()
	var out []tlsPair
	for i := range 3 {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(i + 1)), Subject: pkix.Name{CommonName: "*." + prefix + ".example.com"},
			DNSNames: []string{"*." + prefix + ".example.com"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
		cert, key := selfSignedAs(t, tmpl)
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tlsPair{cert: cert, key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})})
	}
	return out
}

// selfSignedAs is tmpl signed by a new P-256 key of its own: the PEM certificate and the key.
func selfSignedAs(t *testing.T, tmpl *x509.Certificate) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key
}

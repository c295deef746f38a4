//go:build integration

package integration

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// The config pushed live equals, byte for byte, `kongsync dump -f` of the same objects exported
// with kubectl: offline and live must never drift.
func TestLiveEqualsDumpOfKubectlExport(t *testing.T) {
	ns := newNamespace(t)
	ctx := ctxT(t)
	for _, a := range []app{{ns, "alpha", "alpha.example.com"}, {ns, "beta", "beta.example.com"}} {
		a.create(t)
	}
	crt, key := selfSigned(t, "secure.example.com")
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secure-tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": crt, "tls.key": key}}
	unrelated := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-password"},
		Data: map[string][]byte{"password": []byte("hunter2")}}
	for _, s := range []*corev1.Secret{sec, unrelated} {
		if _, err := admin.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	secure := app{ns, "secure", "secure.example.com"}
	secure.create(t)
	ing := getIngress(t, ns, "secure")
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"secure.example.com"}, SecretName: "secure-tls"}}
	ing.Annotations = map[string]string{"konghq.com/strip-path": "true", "konghq.com/protocols": "https"}
	if _, err := admin.NetworkingV1().Ingresses(ns).Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	kong := newDouble(t)
	in := startKongsync(t, "all-namespaces", "", []*kongdouble.Server{kong}, nil)
	in.waitReady(t)
	if !hasHost(kong, "secure.example.com") {
		t.Fatalf("live config lacks the TLS Ingress: %v", routeHosts(kong))
	}
	live := kong.Config()

	dir := t.TempDir()
	export := filepath.Join(dir, "cluster.yaml")
	kubectl := exec.Command(filepath.Join(plane.BinDir, "kubectl"), "--kubeconfig", plane.Kubeconfig,
		"get", exportedResources(t), "-A", "-o", "yaml")
	out, err := kubectl.Output()
	if err != nil {
		t.Fatalf("kubectl: %v", err)
	}
	if err := os.WriteFile(export, out, 0o600); err != nil {
		t.Fatal(err)
	}
	dump := exec.Command(kongsyncBinary(t), "dump", "-f", export, "--format", "json", "--allow-problems")
	var stderr bytes.Buffer
	dump.Stderr = &stderr
	offline, err := dump.Output()
	if err != nil {
		t.Fatalf("kongsync dump: %v\n%s", err, stderr.String())
	}
	offline = bytes.TrimSuffix(offline, []byte("\n")) // dump ends the file with a newline
	if !bytes.Equal([]byte(live), offline) {
		_ = os.WriteFile(filepath.Join(dir, "live.json"), []byte(live), 0o600)
		_ = os.WriteFile(filepath.Join(dir, "offline.json"), offline, 0o600)
		t.Fatalf("live config (%d bytes) != kongsync dump of the kubectl export (%d bytes); see %s", len(live), len(offline), dir)
	}
	t.Logf("live == offline: %d bytes, hash %s", len(live), kong.Hash())
}

// exportedResources names, for kubectl get, every resource kongsync reads that the API server
// serves now: earlier tests leave Kong and Gateway API objects behind (no namespace controller
// runs here to delete their namespaces' contents), and the live controller reads them too.
func exportedResources(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(plane.BinDir, "kubectl"), "--kubeconfig", plane.Kubeconfig,
		"api-resources", "-o", "name", "--verbs=list").Output()
	if err != nil {
		t.Fatalf("kubectl api-resources: %v", err)
	}
	read := map[string]bool{}
	for _, r := range []string{"ingressclasses.networking.k8s.io", "ingresses.networking.k8s.io", "services",
		"endpointslices.discovery.k8s.io", "secrets", "namespaces", "configmaps"} {
		read[r] = true
	}
	var names []string
	for _, name := range strings.Fields(string(out)) {
		group := name[strings.Index(name, ".")+1:]
		if read[name] || group == "configuration.konghq.com" || group == "gateway.networking.k8s.io" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// selfSigned returns a PEM certificate and key for host.
func selfSigned(t *testing.T, host string) ([]byte, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd})
}

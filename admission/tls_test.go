package admission

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pemPair makes a self-signed certificate for cn.
func pemPair(t *testing.T, cn string) (string, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		DNSNames: []string{cn}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalPKCS8PrivateKey(k)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
}

func servedCN(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	c := cfg.Certificates
	if cfg.GetCertificate != nil {
		pair, err := cfg.GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		c = []tls.Certificate{*pair}
	}
	leaf, err := x509.ParseCertificate(c[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.Subject.CommonName
}

// KIC's rules: PEM values, or files (read again when they change), never a mix; without
// either, the chart's mount point.
func TestTLSConfig(t *testing.T) {
	cert, key := pemPair(t, "values")
	cfg, err := TLSConfig(TLSOptions{CertPEM: cert, KeyPEM: key})
	if err != nil || servedCN(t, cfg) != "values" {
		t.Fatalf("values: %v", err)
	}
	dir := t.TempDir()
	cf, kf := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	write := func(cn string) {
		c, k := pemPair(t, cn)
		if err := os.WriteFile(cf, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(kf, []byte(k), 0o600); err != nil {
			t.Fatal(err)
		}
		now := time.Now().Add(time.Duration(len(cn)) * time.Second) // a distinct modification time
		_ = os.Chtimes(cf, now, now)
		_ = os.Chtimes(kf, now, now)
	}
	write("first")
	cfg, err = TLSConfig(TLSOptions{CertFile: cf, KeyFile: kf})
	if err != nil || servedCN(t, cfg) != "first" {
		t.Fatalf("files: %v", err)
	}
	write("renewed")
	if cn := servedCN(t, cfg); cn != "renewed" {
		t.Errorf("after the files changed the webhook serves %q", cn)
	}
	if err := os.WriteFile(kf, []byte("half written"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cn := servedCN(t, cfg); cn != "renewed" {
		t.Errorf("a broken update replaced the certificate: %q", cn)
	}
	for _, bad := range []TLSOptions{{CertFile: cf, KeyPEM: key}, {CertPEM: cert}, {CertFile: cf}, {}} {
		if _, err := TLSConfig(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		} else if bad == (TLSOptions{}) && !strings.Contains(err.Error(), DefaultCertFile) {
			t.Errorf("the default files are missing, but the error does not say which: %v", err)
		}
	}
}

package sync

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// issue creates a certificate signed by parent (self-signed when parent is nil).
func issue(t *testing.T, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, serial int64) (*x509.Certificate, *ecdsa.PrivateKey, []byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature
	} else {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kd, _ := x509.MarshalECPrivateKey(key)
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
}

// Admin API over TLS with a private CA and a required client certificate, as configured by
// --kong-admin-ca-cert-file and --kong-admin-tls-client-cert-file/-key-file.
func TestAdminTLSWithClientCertificate(t *testing.T) {
	ca, caKey, caPEM, _ := issue(t, "test CA", nil, nil, 1)
	_, _, srvPEM, srvKeyPEM := issue(t, "kong", ca, caKey, 2)
	_, _, cliPEM, cliKeyPEM := issue(t, "kongsync", ca, caKey, 3)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caFile, cliCert, cliKey := write("ca.crt", caPEM), write("tls.crt", cliPEM), write("tls.key", cliKeyPEM)
	srvPair, err := tls.X509KeyPair(srvPEM, srvKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	kongTLS := &tls.Config{Certificates: []tls.Certificate{srvPair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}

	client, err := NewHTTPClient(TLSOptions{CAFile: caFile, ClientCertFile: cliCert, ClientKeyFile: cliKey})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOpts{kong: kongdouble.Options{TLS: kongTLS}, cfg: func(c *Config) { c.Replica.Client = client }})
	e.upsert("a", nil)
	e.converged(wait)
	if u := e.kongs[0].URL(); u[:8] != "https://" {
		t.Fatalf("double not on TLS: %s", u)
	}

	// The same PEMs given as values (--kong-admin-ca-cert, --kong-admin-tls-client-cert/-key).
	byValue, err := NewHTTPClient(TLSOptions{CAPEM: string(caPEM), ClientCertPEM: string(cliPEM), ClientKeyPEM: string(cliKeyPEM)})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := NewReplica(e.kongs[0].URL(), ReplicaOptions{Client: byValue})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rep.Status(context.Background()); err != nil {
		t.Errorf("GET /status with the CA and client certificate given as values: %v", err)
	}
	noClientCert, _ := NewHTTPClient(TLSOptions{CAPEM: string(caPEM)})
	rep, _ = NewReplica(e.kongs[0].URL(), ReplicaOptions{Client: noClientCert})
	if _, err := rep.Status(context.Background()); err == nil {
		t.Error("GET /status without a client certificate succeeded: the check above proves nothing")
	}

	for name, o := range map[string]TLSOptions{
		"cert without key":       {ClientCertFile: cliCert},
		"key value without cert": {ClientKeyPEM: string(cliKeyPEM)},
		"missing CA file":        {CAFile: filepath.Join(dir, "nope")},
		"CA file not PEM":        {CAFile: cliKey},
		"CA value not PEM":       {CAPEM: "nope"},
		"CA file and value":      {CAFile: caFile, CAPEM: string(caPEM)},
		"cert file and value":    {ClientCertFile: cliCert, ClientCertPEM: string(cliPEM), ClientKeyFile: cliKey},
		"key file and value":     {ClientCertFile: cliCert, ClientKeyFile: cliKey, ClientKeyPEM: string(cliKeyPEM)},
	} {
		if _, err := NewHTTPClient(o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

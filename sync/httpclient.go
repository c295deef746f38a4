package sync

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// TLSOptions are the admin API TLS settings (KIC's --kong-admin-ca-cert(-file),
// --kong-admin-tls-client-cert(-file)/-key(-file), --kong-admin-tls-skip-verify,
// --kong-admin-tls-server-name). Each PEM comes from a file or a value, never both.
type TLSOptions struct {
	CAFile string
	CAPEM  string
	// ClientCertFile and ClientKeyFile, or ClientCertPEM and ClientKeyPEM (or one of each), are
	// the client certificate for mTLS.
	ClientCertFile, ClientCertPEM string
	ClientKeyFile, ClientKeyPEM   string
	InsecureSkipVerify            bool
	// ServerName overrides the name checked in the server certificate (useful when admin
	// endpoints are discovered as pod IPs).
	ServerName string
}

// NewHTTPClient builds the client replicas share: keep-alive connections (status probes reuse
// them), the given TLS settings, and no overall timeout (each request has its own).
func NewHTTPClient(o TLSOptions) (*http.Client, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify, ServerName: o.ServerName} //nolint:gosec // opt-in flag
	pool, err := caPool(o)
	if err != nil {
		return nil, err
	}
	tc.RootCAs = pool
	cert, err := clientCertificate(o)
	if err != nil {
		return nil, err
	}
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: 5 * time.Second,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{Transport: tr}, nil
}

// caPool reads the CA bundle from the file or the value; nil (the system roots) without either.
func caPool(o TLSOptions) (*x509.CertPool, error) {
	if o.CAFile != "" && o.CAPEM != "" {
		return nil, errors.New("both --kong-admin-ca-cert-file and --kong-admin-ca-cert are set; give one")
	}
	pem, src := []byte(o.CAPEM), "--kong-admin-ca-cert"
	if o.CAFile != "" {
		var err error
		if pem, err = os.ReadFile(o.CAFile); err != nil {
			return nil, fmt.Errorf("read admin CA file: %w", err)
		}
		src = o.CAFile
	}
	if len(pem) == 0 {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("admin CA %s holds no PEM certificate", src)
	}
	return pool, nil
}

// clientCertificate loads the mTLS key pair from files or values; nil when none is given.
func clientCertificate(o TLSOptions) (*tls.Certificate, error) {
	if o.ClientCertFile != "" && o.ClientCertPEM != "" {
		return nil, errors.New("both an admin TLS client certificate file and value are set; give one")
	}
	if o.ClientKeyFile != "" && o.ClientKeyPEM != "" {
		return nil, errors.New("both an admin TLS client key file and value are set; give one")
	}
	certPEM, err := pemFrom(o.ClientCertFile, o.ClientCertPEM, "admin TLS client certificate")
	if err != nil {
		return nil, err
	}
	keyPEM, err := pemFrom(o.ClientKeyFile, o.ClientKeyPEM, "admin TLS client key")
	if err != nil {
		return nil, err
	}
	if (len(certPEM) == 0) != (len(keyPEM) == 0) {
		return nil, errors.New("admin TLS client certificate and key must be given together")
	}
	if len(certPEM) == 0 {
		return nil, nil
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("load admin TLS client certificate: %w", err)
	}
	return &cert, nil
}

func pemFrom(file, value, what string) ([]byte, error) {
	if file == "" {
		return []byte(value), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return b, nil
}

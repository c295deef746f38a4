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

// TLSOptions are the admin API TLS settings (KIC's --kong-admin-ca-cert-file,
// --kong-admin-tls-client-cert-file/-key-file, --kong-admin-tls-skip-verify).
type TLSOptions struct {
	CAFile             string
	ClientCertFile     string
	ClientKeyFile      string
	InsecureSkipVerify bool
	// ServerName overrides the name checked in the server certificate (useful when admin
	// endpoints are discovered as pod IPs).
	ServerName string
}

// NewHTTPClient builds the client replicas share: keep-alive connections (status probes reuse
// them), the given TLS settings, and no overall timeout (each request has its own).
func NewHTTPClient(o TLSOptions) (*http.Client, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify, ServerName: o.ServerName} //nolint:gosec // opt-in flag
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read admin CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("admin CA file %s holds no PEM certificate", o.CAFile)
		}
		tc.RootCAs = pool
	}
	if (o.ClientCertFile == "") != (o.ClientKeyFile == "") {
		return nil, errors.New("admin TLS client certificate and key must be given together")
	}
	if o.ClientCertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.ClientCertFile, o.ClientKeyFile)
		if err != nil {
			return nil, fmt.Errorf("load admin TLS client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
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

package admission

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	gosync "sync"
	"time"
)

// KIC's default certificate paths, where Kong's chart mounts the webhook's Secret.
const (
	DefaultCertFile = "/admission-webhook/tls.crt"
	DefaultKeyFile  = "/admission-webhook/tls.key"
)

// TLSOptions are KIC's --admission-webhook-cert-file and -key-file, or -cert and -key (PEM
// values); none means the default files.
type TLSOptions struct {
	CertFile, KeyFile string
	CertPEM, KeyPEM   string
}

// TLSConfig is the webhook's TLS configuration, as KIC builds it: PEM values are loaded once;
// files (given, or the defaults) are read now and again whenever they change (a renewed
// Secret is mounted in place), so the webhook never needs a restart for a new certificate.
// Files and values cannot be mixed.
func TLSConfig(o TLSOptions) (*tls.Config, error) {
	files, values := o.CertFile != "" || o.KeyFile != "", o.CertPEM != "" || o.KeyPEM != ""
	switch {
	case values && !files && o.CertPEM != "" && o.KeyPEM != "":
		pair, err := tls.X509KeyPair([]byte(o.CertPEM), []byte(o.KeyPEM))
		if err != nil {
			return nil, fmt.Errorf("admission webhook certificate: %w", err)
		}
		return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}, nil
	case files && !values && o.CertFile != "" && o.KeyFile != "":
	case !files && !values:
		o.CertFile, o.KeyFile = DefaultCertFile, DefaultKeyFile
	default:
		return nil, errors.New("admission webhook: give the certificate and key as files or as values, both of one kind, or neither")
	}
	r := &reloader{certFile: o.CertFile, keyFile: o.KeyFile}
	if _, err := r.get(); err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		return r.get()
	}}, nil
}

// reloader holds a key pair read from files and reads it again when either file's size or
// modification time changes (checked at each handshake: two stats). A pair that does not load
// (a half-written update) keeps the previous one in use.
type reloader struct {
	certFile, keyFile string

	mu    gosync.Mutex
	pair  *tls.Certificate
	stamp [2]fileStamp
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func (r *reloader) get() (*tls.Certificate, error) {
	stamp, err := stamps(r.certFile, r.keyFile)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pair != nil && (err != nil || stamp == r.stamp) {
		return r.pair, nil
	}
	if err != nil {
		return nil, fmt.Errorf("admission webhook certificate: %w", err)
	}
	pair, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		if r.pair != nil {
			return r.pair, nil
		}
		return nil, fmt.Errorf("admission webhook certificate: %w", err)
	}
	r.pair, r.stamp = &pair, stamp
	return r.pair, nil
}

func stamps(files ...string) ([2]fileStamp, error) {
	var out [2]fileStamp
	for i, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return out, err
		}
		out[i] = fileStamp{size: st.Size(), mod: st.ModTime()}
	}
	return out, nil
}

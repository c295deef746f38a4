package main

import (
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
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Builders of the hostile catalogue's manifests. Objects are written as JSON documents (JSON is
// YAML) separated by ---, so that generated values need no YAML quoting.

type obj = map[string]any

func meta(ns, name string, extra obj) obj {
	m := obj{"name": name, "namespace": ns}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func object(apiVersion, kind, ns, name string, metaExtra obj, fields obj) obj {
	o := obj{"apiVersion": apiVersion, "kind": kind, "metadata": meta(ns, name, metaExtra)}
	for k, v := range fields {
		o[k] = v
	}
	return o
}

func writeObjects(t *testing.T, path string, objs ...obj) {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		js, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
		b.WriteString("\n---\n")
	}
	writeAt(t, path, b.String())
}

// backend is a Service with one endpoint, for a hostile object to route to.
func backend(ns, name string) []obj {
	svc := object("v1", "Service", ns, name, nil, obj{"spec": obj{"ports": []obj{{"name": "http", "port": 80, "targetPort": 8080}}}})
	eps := object("discovery.k8s.io/v1", "EndpointSlice", ns, name+"-1",
		obj{"labels": obj{"kubernetes.io/service-name": name}},
		obj{"addressType": "IPv4", "ports": []obj{{"name": "http", "port": 8080}}, "endpoints": []obj{{"addresses": []string{"10.9.9.9"}}}})
	return []obj{svc, eps}
}

// ingress routes host/path to the Service of its own name.
func ingressTo(ns, name, host, path, pathType string, annotations map[string]string) obj {
	rule := obj{"host": host, "http": obj{"paths": []obj{{"path": path, "pathType": pathType,
		"backend": obj{"service": obj{"name": name, "port": obj{"number": 80}}}}}}}
	var m obj
	if annotations != nil {
		m = obj{"annotations": annotations}
	}
	return object("networking.k8s.io/v1", "Ingress", ns, name, m, obj{"spec": obj{"ingressClassName": "kong", "rules": []obj{rule}}})
}

func routedIngress(ns, name string, annotations map[string]string) []obj {
	return append(backend(ns, name), ingressTo(ns, name, name+"."+ns+".example.com", "/", "Prefix", annotations))
}

func plugin(ns, name, pluginName string, fields obj) obj {
	fields["plugin"] = pluginName
	return object("configuration.konghq.com/v1", "KongPlugin", ns, name, nil, fields)
}

func consumer(ns, name, username, created string, secrets ...string) obj {
	return object("configuration.konghq.com/v1", "KongConsumer", ns, name,
		obj{"creationTimestamp": created, "annotations": obj{"kubernetes.io/ingress.class": "kong"}},
		obj{"username": username, "credentials": secrets})
}

func credential(ns, name, kind, created string, data map[string]string) obj {
	return object("v1", "Secret", ns, name,
		obj{"creationTimestamp": created, "labels": obj{"konghq.com/credential": kind}}, obj{"stringData": data})
}

// aliasBomb is YAML of about size bytes whose aliases expand to size × fan^depth bytes: one
// anchored string, then depth lists, each of fan aliases of the one before. Few aliases in all
// (fan × depth), so a guard that counts alias nodes, as go-yaml's does, lets it through.
func aliasBomb(key string, size, fan, depth int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: &l0 %q\n", key, strings.Repeat("x", size))
	for d := 1; d <= depth; d++ {
		fmt.Fprintf(&b, "l%d: &l%d [", d, d)
		b.WriteString(strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", d-1), fan), ", "))
		b.WriteString("]\n")
	}
	return b.String()
}

// nested is a JSON object nested depth deep, each level under a key of keyLen bytes.
func nested(depth, keyLen int) json.RawMessage {
	key := `"` + strings.Repeat("k", keyLen) + `":`
	return json.RawMessage(strings.Repeat("{"+key, depth) + "1" + strings.Repeat("}", depth))
}

// pemPair is a self-signed certificate (a CA when ca) and its key, PEM-encoded.
func pemPair(t *testing.T, cn string, ca bool, hosts ...string) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), DNSNames: hosts,
		IsCA: ca, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
}

// endless is a reader that never ends.
type endless struct{ b byte }

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	return len(p), nil
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func join(dir, name string) string { return filepath.Join(dir, name) }

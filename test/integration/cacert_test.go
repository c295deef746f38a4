//go:build integration

package integration

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/runner"
)

// caPEM is a self-signed CA certificate valid until notAfter.
func caPEM(t *testing.T, cn string, notAfter time.Time) string {
	t.Helper()
	cert, _ := selfSignedAs(t, &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter,
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
	return string(cert)
}

// CA certificates from ConfigMaps labelled konghq.com/ca-cert: "true" reach Kong as
// ca_certificates, and a Service trusts one through konghq.com/ca-certificates-configmaps. Only
// labelled ConfigMaps are watched: an unlabelled one is unknown to kongsync (the Service naming
// it gets a problem). An expired certificate is left out with a problem; one that expires while
// kongsync runs leaves Kong's configuration at its expiry, with no event to wake the loop.
func TestCACertConfigMaps(t *testing.T) {
	ns := newNamespace(t)
	ctx := ctxT(t)
	const (
		validID    = "8a2c8e0f-4f5e-4b43-9d1a-0d2c4f1e5a01"
		unlabelled = "8a2c8e0f-4f5e-4b43-9d1a-0d2c4f1e5a02"
		expiredID  = "8a2c8e0f-4f5e-4b43-9d1a-0d2c4f1e5a03"
		expiringID = "8a2c8e0f-4f5e-4b43-9d1a-0d2c4f1e5a04"
	)
	// Certificates carry whole seconds: this one expires 3 to 4 s from now.
	expiry := time.Now().Add(4 * time.Second).Truncate(time.Second)
	cm := func(name, id, cert string, labelled bool) {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Data: map[string]string{"id": id, "cert": cert}}
		if labelled {
			c.Labels = map[string]string{"konghq.com/ca-cert": "true"}
		}
		if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.CoreV1().ConfigMaps(ns).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	cm("valid", validID, caPEM(t, "valid", time.Now().Add(24*time.Hour)), true)
	cm("unlabelled", unlabelled, caPEM(t, "unlabelled", time.Now().Add(24*time.Hour)), false)
	cm("expired", expiredID, caPEM(t, "expired", time.Now().Add(-time.Hour)), true)
	cm("expiring", expiringID, caPEM(t, "expiring", expiry), true)

	a := app{ns: ns, name: "web", host: "ca.example.com"}
	svc := a.service()
	svc.Annotations = map[string]string{"konghq.com/protocol": "https", "konghq.com/tls-verify": "true",
		"konghq.com/ca-certificates-configmaps": "valid,unlabelled"}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, a.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "cacert", ns, nil, func(c *runner.Config) { c.KongAdminURLs = []string{kong.URL()} })
	waitDouble(t, kong, "the valid and the expiring CA certificates in Kong, the Service trusting the valid one", func() bool {
		c := kong.Config()
		return strings.Contains(c, `"id":"`+validID+`"`) && strings.Contains(c, `"id":"`+expiringID+`"`) &&
			strings.Contains(c, `"ca_certificates":["`+validID+`"]`)
	})
	if c := kong.Config(); strings.Contains(c, unlabelled) || strings.Contains(c, expiredID) {
		t.Errorf("the unlabelled or the expired CA certificate reached Kong: %s", c)
	}
	waitEvent(t, ns, "ConfigMap", "expired", metrics.ReasonTranslationFailed)
	if e := waitEvent(t, ns, "Service", "web", metrics.ReasonTranslationFailed); !strings.Contains(e.Message, "unlabelled") {
		t.Errorf("Service event %q: want the unlabelled ConfigMap named", e.Message)
	}

	// Nothing changes in the cluster: the loop builds again at the expiry by itself.
	waitDouble(t, kong, "the expiring CA certificate gone after its expiry", func() bool {
		return !strings.Contains(kong.Config(), expiringID) && strings.Contains(kong.Config(), validID)
	})
	if now := time.Now(); now.Before(expiry) {
		t.Errorf("the certificate left Kong at %v, before its expiry %v", now, expiry)
	}
	waitEvent(t, ns, "ConfigMap", "expiring", metrics.ReasonTranslationFailed)
}

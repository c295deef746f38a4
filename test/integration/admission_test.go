//go:build integration

package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"strings"
	gosync "sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kongsync/kongsync/admission"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// ipCertificate is a self-signed serving certificate for 127.0.0.1, the address the API
// server calls the in-process webhook at.
func ipCertificate(t *testing.T) (string, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kongsync-webhook"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalPKCS8PrivateKey(k)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
}

// registerWebhook registers a ValidatingWebhookConfiguration as Kong's chart does (path "/",
// AdmissionReview v1, failurePolicy Fail) for KongPlugins and Ingresses of ns only, calling url.
func registerWebhook(t *testing.T, ns, url, caPEM string) {
	t.Helper()
	fail, none, equivalent := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Equivalent
	ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	rule := func(group, version, resource string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}}}
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "validations.kong.konghq.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr(url), CABundle: []byte(caPEM)},
			Rules:                   []admissionregistrationv1.RuleWithOperations{rule("configuration.konghq.com", "v1", "kongplugins"), rule("networking.k8s.io", "v1", "ingresses")},
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			TimeoutSeconds:          ptr(int32(10)),
		}},
	}
	ctx := ctxT(t)
	if _, err := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctxT(t), ns, metav1.DeleteOptions{})
	})
}

func kongPlugin(ns, name string, spec map[string]any) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": "configuration.konghq.com/v1", "kind": "KongPlugin",
		"metadata": map[string]any{"name": name, "namespace": ns}}
	for k, v := range spec {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

// The admission webhook on the real API server: registered as Kong's chart registers KIC's, it
// refuses a KongPlugin whose config cannot be built (with the translator's problem as the
// reason) and an Ingress with bad annotations, and lets good ones through.
func TestAdmissionWebhookRefusesBadKongPlugin(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	conf := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad-conf"},
		Data: map[string][]byte{"config": []byte("- a list\n- not an object\n")}}
	if _, err := admin.CoreV1().Secrets(ns).Create(ctx, conf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM := ipCertificate(t)
	addr := freeAddr(t)
	var mu gosync.Mutex
	var took []time.Duration
	reviewed := make(chan admission.Verdict, 64)
	startKongsync(t, "webhook", ns, []*kongdouble.Server{newDouble(t)}, func(c *runner.Config) {
		c.AdmissionWebhookListen = addr
		c.AdmissionTLS = admission.TLSOptions{CertPEM: certPEM, KeyPEM: keyPEM}
		c.Hooks.Admission = func(d time.Duration, v admission.Verdict) {
			mu.Lock()
			took = append(took, d)
			mu.Unlock()
			select {
			case reviewed <- v:
			default: // the test reads the latest verdicts only
			}
		}
	})
	registerWebhook(t, ns, "https://"+addr+"/", certPEM)
	plugins := dynamic.NewForConfigOrDie(plane.RestConfig()).Resource(configurationv1.SchemeGroupVersion.WithResource("kongplugins")).Namespace(ns)
	bad := kongPlugin(ns, "bad", map[string]any{"plugin": "rate-limiting",
		"configFrom": map[string]any{"secretKeyRef": map[string]any{"name": "bad-conf", "key": "config"}}})

	// The API server picks the new configuration up on its own schedule: dry-run the bad
	// plugin until the webhook answers (nothing else reveals when it is in effect).
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var err error
	for {
		_, err = plugins.Create(ctx, bad, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		mu.Lock()
		answered := len(took) > 0
		mu.Unlock()
		if answered || ctx.Err() != nil {
			break
		}
		<-tick.C
	}
	want := "KongPlugin " + ns + "/bad: configFrom.secretKeyRef: the Secret value is neither a JSON nor a YAML object; KongPlugin skipped"
	if err == nil || !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), want) {
		t.Fatalf("the bad KongPlugin: %v", err)
	}
	t.Logf("refused: %v", err)
	start := time.Now()
	if _, err := plugins.Create(ctx, bad, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the bad KongPlugin was not refused: %v", err)
	}
	refusedIn := time.Since(start)
	good := kongPlugin(ns, "good", map[string]any{"plugin": "rate-limiting", "config": map[string]any{"minute": 5}})
	start = time.Now()
	if _, err := plugins.Create(ctx, good, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the good KongPlugin: %v", err)
	}
	acceptedIn := time.Since(start)
	if v := lastVerdict(t, reviewed); !v.Allowed {
		t.Errorf("the good KongPlugin's verdict: %+v", v)
	}

	a := app{ns: ns, name: "web", host: "web.example.com"}
	ing := a.ingress()
	ing.Annotations = map[string]string{"konghq.com/strip-path": "maybe"}
	_, err = admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "konghq.com/strip-path]: invalid value \"maybe\"") {
		t.Errorf("the Ingress with a bad annotation: %v", err)
	}
	ing.Annotations = map[string]string{"konghq.com/strip-path": "true"}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Errorf("the good Ingress (its Service comes later: a warning only): %v", err)
	}
	mu.Lock()
	t.Logf("webhook: %d reviews, handler times %v; client create: refused in %v, accepted in %v", len(took), took, refusedIn, acceptedIn)
	mu.Unlock()
}

// lastVerdict drains the verdicts seen so far and returns the last.
func lastVerdict(t *testing.T, ch <-chan admission.Verdict) admission.Verdict {
	t.Helper()
	var v admission.Verdict
	select {
	case v = <-ch:
	case <-time.After(waitTimeout):
		t.Fatal("no admission review")
	}
	for {
		select {
		case v = <-ch:
		default:
			return v
		}
	}
}

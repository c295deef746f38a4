package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
)

// TestNoSecretDataInDiff extends TestNoSecretDataInProblems to kongsync diff: for every golden
// case holding Secrets, diff (text and JSON, stdout and stderr) against a Kong holding nothing,
// and against a Kong holding the same config with every secret field (document.SecretFields)
// changed, shows no private key and no Secret's data; the changed secrets are still reported,
// as "<redacted, differs>" or, for a key-auth key, as its digest.
func TestNoSecretDataInDiff(t *testing.T) {
	kong := kongdouble.New(kongdouble.Options{})
	t.Cleanup(kong.Close)
	dirs, _ := filepath.Glob(filepath.Join(goldenRoot, "*"))
	checked, differs, caught := 0, 0, 0
	for _, dir := range dirs {
		in := filepath.Join(dir, "in.yaml")
		manifest, err := os.ReadFile(in)
		if err != nil || !bytes.Contains(manifest, []byte("kind: Secret")) {
			continue
		}
		_, cfg, _ := runDump(t, "-f", in, "--format", "json")
		changed, n := changeSecrets(t, cfg)
		if n == 0 {
			continue
		}
		// The check must see the secrets: Compare told to show them leaks, and is caught.
		if leaks := diffLeaks(t, dir, showSecretsDiff(t, cfg, changed)); len(leaks) > 0 {
			caught++
		}
		for _, loaded := range []string{"", changed} {
			kong.Restart()
			if loaded != "" && !loadOK(kong, loaded) {
				t.Fatalf("%s: the double refused the changed config", dir)
			}
			for _, format := range []string{"text", "json"} {
				_, out, errs := runDiffCmd(t, "--kong-admin-url", kong.URL(), "-f", in, "--kong-version", "3.9.0", "--format", format)
				for _, leak := range diffLeaks(t, dir, out+errs) {
					t.Errorf("%s: diff --format %s (Kong holding %d bytes) shows %s", dir, format, len(loaded), leak)
				}
				if loaded != "" && (strings.Contains(out, document.RedactedDiffers) || strings.Contains(out, `"redacted": true`) ||
					strings.Contains(out, "<redacted:")) {
					differs++
				}
			}
		}
		checked++
	}
	t.Logf("%d cases, %d diffs reporting a changed secret, %d leaks caught when shown", checked, differs, caught)
	if checked < 10 || differs < 2*checked || caught < 10 {
		t.Fatalf("%d golden cases with secrets in their config, %d diffs reporting a changed secret, %d leaks caught when shown; "+
			"the test proves little", checked, differs, caught)
	}
}

// credentialTypes maps a credential Secret's konghq.com/credential label to the Kong entity
// type it becomes.
var credentialTypes = map[string]string{
	"key-auth": "keyauth_credential", "basic-auth": "basicauth_credential", "hmac-auth": "hmacauth_credential",
	"jwt": "jwt_secret", "oauth2": "oauth2_credential", "acl": "acl", "mtls-auth": "mtls_auth_credential",
}

// diffLeaks is secretLeaks for a diff, which names credentials by their public identifiers as
// /debug/config shows them (a basic-auth username, a JWT issuer key, an OAuth2 client_id, an
// ACL group): of a credential Secret, only the data under a secret field of its entity type
// (document.SecretFields) counts.
func diffLeaks(t *testing.T, dir, text string) []string {
	t.Helper()
	var out []string
	for _, leak := range secretLeaks(t, dir, text) {
		if !publicCredentialField(t, dir, leak) {
			out = append(out, leak)
		}
	}
	return out
}

// publicCredentialField reads a leak "Secret ns/name data key" and says whether key is a
// public field of a credential Secret.
func publicCredentialField(t *testing.T, dir, leak string) bool {
	t.Helper()
	var ns, name, field string
	if rest, ok := strings.CutPrefix(leak, "Secret "); ok {
		ref, key, _ := strings.Cut(rest, " data ")
		ns, name, _ = strings.Cut(ref, "/")
		field = key
	}
	if field == "" {
		return false
	}
	f, err := os.Open(filepath.Join(dir, "in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, _, err := store.DecodeManifests("in.yaml", f)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		sec, ok := o.(*corev1.Secret)
		if !ok || sec.Namespace != ns || sec.Name != name {
			continue
		}
		typ := credentialTypes[sec.Labels["konghq.com/credential"]]
		if typ == "" {
			typ = credentialTypes[string(sec.Data["kongCredType"])]
		}
		return typ != "" && !slices.Contains(document.SecretFields(typ), field)
	}
	return false
}

// changeSecrets returns the config (JSON) with every secret field's value prefixed, so that the
// old value is still in it: shown, it would be found. n counts the values changed.
func changeSecrets(t *testing.T, cfg string) (string, int) {
	t.Helper()
	var tree map[string]any
	if err := json.Unmarshal([]byte(cfg), &tree); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(kind string, v any)
	walk = func(kind string, v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(kind, e)
			}
		case map[string]any:
			for _, f := range document.SecretFields(kind) {
				if s, ok := x[f].(string); ok {
					x[f] = changedSecret(t, s)
					n++
				}
			}
			for k, e := range x {
				walk(k, e)
			}
		}
	}
	walk("", tree)
	b, _ := json.Marshal(tree)
	return string(b), n
}

// changedSecret is another value for a secret: a private key in the other PEM encoding of the
// same key (Kong checks that a key matches its certificate), anything else prefixed.
func changedSecret(t *testing.T, s string) string {
	t.Helper()
	blk, _ := pem.Decode([]byte(s))
	if blk == nil {
		return "CHANGED" + s
	}
	var der []byte
	var typ string
	var err error
	switch blk.Type {
	case "RSA PRIVATE KEY", "EC PRIVATE KEY":
		var key any
		if key, err = x509.ParsePKCS1PrivateKey(blk.Bytes); err != nil {
			key, err = x509.ParseECPrivateKey(blk.Bytes)
		}
		if err == nil {
			der, err = x509.MarshalPKCS8PrivateKey(key)
		}
		typ = "PRIVATE KEY"
	case "PRIVATE KEY":
		var key any
		if key, err = x509.ParsePKCS8PrivateKey(blk.Bytes); err != nil {
			break
		}
		switch k := key.(type) {
		case *rsa.PrivateKey:
			der, typ = x509.MarshalPKCS1PrivateKey(k), "RSA PRIVATE KEY"
		case *ecdsa.PrivateKey:
			der, err = x509.MarshalECPrivateKey(k)
			typ = "EC PRIVATE KEY"
		default:
			return s
		}
	default:
		return "CHANGED" + s
	}
	if err != nil {
		t.Fatalf("re-encode a %s: %v", blk.Type, err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// showSecretsDiff is what diff would print if it showed secrets.
func showSecretsDiff(t *testing.T, expected, actual string) string {
	t.Helper()
	var e, a map[string]any
	if json.Unmarshal([]byte(expected), &e) != nil || json.Unmarshal([]byte(actual), &a) != nil {
		t.Fatal("not JSON")
	}
	var b strings.Builder
	for _, d := range document.Compare(e, a, document.CompareOptions{ShowSecrets: true}) {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

func loadOK(d *kongdouble.Server, config string) bool {
	body, _ := json.Marshal(map[string]string{"config": config})
	resp, err := http.Post(d.URL()+"/config", "application/json", bytes.NewReader(body))
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusCreated
}

// dump -o: the file holds exactly what stdout would, and only its owner can read it, whether it
// is new or replaces a world-readable one; the config it holds has private keys.
func TestDumpOutputFileIsPrivate(t *testing.T) {
	in := filepath.Join(goldenRoot, "consumer-credential-types", "in.yaml")
	_, want, _ := runDump(t, "-f", in)
	if !strings.Contains(want, "password:") {
		t.Fatal("the case's config holds no credential; the test would prove little")
	}
	out := filepath.Join(t.TempDir(), "kong.yaml")
	for _, existing := range []bool{false, true} {
		if existing {
			mustWrite(t, out, 0o644)
		}
		var stdout, stderr bytes.Buffer
		if code := dispatch(context.Background(), []string{"dump", "-f", in, "-o", out}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("existing %v: mode %v, want 0600", existing, fi.Mode().Perm())
		}
		if got, _ := os.ReadFile(out); string(got) != want || stdout.Len() != 0 {
			t.Errorf("existing %v: the file differs from stdout's config (stdout %d bytes)", existing, stdout.Len())
		}
	}
}

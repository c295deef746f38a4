package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// hostileText is what an object (its name, an annotation, a path) or a file name can carry to
// rewrite a terminal or forge a line: a screen-clearing ESC sequence, a carriage return, a
// backspace, bidi overrides and isolates, and a newline.
const hostileText = "\x1b[2J\r\b\u202e\u2066"

// hostileManifest is a bad Ingress (team-b, as docs/bad-input.md's cases) whose name, annotation,
// host and path hold hostileText, beside the good objects; YAML's double quotes write them.
const hostileManifest = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: "evil\e[2J\r\b\u202e\u2066\nproblem: forged by a name"
  namespace: team-b
  annotations:
    konghq.com/protocols: "http\e[2J\r\u202e\u2066\nproblem: forged"
    konghq.com/strip-path: "maybe\e[2J\u202e"
spec:
  ingressClassName: kong
  rules:
  - host: "a\u202e\u2066.example.com"
    http:
      paths:
      - path: "/x\e[2J\r\b\u2066"
        pathType: Exact
        backend: {service: {name: good, port: {number: 80}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad-path, namespace: team-b}
spec:
  ingressClassName: kong
  rules:
  - host: bad.example.com
    http:
      paths:
      - path: "/x\e[2J\r\b\u2066"
        pathType: Exact
        backend: {service: {name: good, port: {number: 80}}}
`

// rawIn names the first character of hostileText s holds raw ("" when none).
func rawIn(s string) string {
	for _, c := range []string{"\x1b", "\r", "\b", "\u202e", "\u2066"} {
		if strings.Contains(s, c) {
			return c
		}
	}
	return ""
}

// hostileDir writes the good manifests, the hostile Ingress, and a broken file whose name holds
// hostileText (its note names it) into a fresh directory.
func hostileDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	good, err := os.ReadFile(goodFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"good.yaml":                        string(good),
		"hostile.yaml":                     hostileManifest,
		"broken" + hostileText + "\n.yaml": "apiVersion: v1\nkind: Service\nmetadata: [not, a, map\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Object-provided and file-provided text reaches stderr (dump's and diff's problems, notes and
// errors) and diff's stdout (text and JSON) escaped: none of hostileText's characters raw, every
// line one record, and the escaped form readable. The good Ingress still translates.
func TestHostileTextEscaped(t *testing.T) {
	dir := hostileDir(t)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("dump", "-f", dir)
	if code != exitProblems || !strings.Contains(out, goodRoute) {
		t.Fatalf("dump: exit %d, the good route translated: %v\n%s", code, strings.Contains(out, goodRoute), errs)
	}
	checkEscaped(t, "dump stderr", errs, []string{"team-b/bad-path: spec.rules[0].http.paths[0].path", `\x1b[2J`, `\u202e`, `broken\x1b[2J\r\b\u202e\u2066\n.yaml`})

	kong := kongdouble.New(kongdouble.Options{})
	t.Cleanup(kong.Close)
	load(t, kong, out+"consumers:\n  - username: \"stray\\e[2J\\r\\u202e\\u2066\\nforged\"\n")
	for _, format := range []string{"text", "json"} {
		code, dout, derrs := run("diff", "--kong-admin-url", kong.URL(), "--kong-version", "3.9.0", "-f", dir, "--format", format)
		if code != diffDifferent {
			t.Fatalf("diff %s: exit %d\n%s%s", format, code, dout, derrs)
		}
		checkEscaped(t, "diff "+format+" stderr", derrs, []string{`\x1b[2J`})
		checkEscaped(t, "diff "+format+" stdout", dout, []string{`stray`, `[2J`})
	}
}

// checkEscaped fails if text holds a character of hostileText raw, or a line that a value's
// newline forged, or lacks one of want.
func checkEscaped(t *testing.T, what, text string, want []string) {
	t.Helper()
	if c := rawIn(text); c != "" {
		t.Errorf("%s holds %q raw:\n%s", what, c, text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "problem: forged") || strings.HasPrefix(line, ".yaml") || strings.HasPrefix(line, "forged") {
			t.Errorf("%s: a newline in a value forged the line %q", what, line)
		}
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %s:\n%s", what, w, text)
		}
	}
}

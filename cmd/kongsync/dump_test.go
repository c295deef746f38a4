package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/store"
)

const (
	badDir     = "../../testdata/manifests-bad"
	goodFile   = badDir + "/good.yaml"
	goodRoute  = "name: default.good.good.good.example.com.80"
	goldenRoot = "../../testdata/golden"
)

func runDump(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dumpCommand(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestDumpBadManifests runs dump on each file of testdata/manifests-bad next to a file of good
// objects. Documents the reader cannot use must give exit status 1 and an error line naming the
// file and document; notes alone (unknown kinds, duplicates, empty files) exit 0; and stdout
// must always hold the good objects' config.
func TestDumpBadManifests(t *testing.T) {
	cases := []struct {
		file string
		exit int
		want []string // regexps, each must match a stderr line
	}{
		{"binary.yaml", 1, []string{`^error: \S+binary.yaml: document 1: document is not valid UTF-8; skipped$`}},
		{"non-utf8.yaml", 1, []string{`^error: \S+non-utf8.yaml: document 1: document is not valid UTF-8; skipped$`}},
		{"yaml-bomb.yaml", 1, []string{`^error: \S+yaml-bomb.yaml: document 1: document expands to more than 3145728 bytes of JSON \(YAML aliases expanded\); skipped$`}},
		{"deep-nesting.yaml", 1, []string{`^error: \S+deep-nesting.yaml: document 1: document nests objects and arrays more than 10000 levels deep; skipped$`}},
		{"deep-nesting-json.json", 1, []string{`^error: \S+deep-nesting-json.json: document 1: .*max depth`}},
		{"invalid-yaml.yaml", 1, []string{`^error: \S+invalid-yaml.yaml: document 1: invalid YAML: yaml: line 3`}},
		{"tabs-indentation.yaml", 1, []string{`^error: \S+tabs-indentation.yaml: document 1: invalid YAML`}},
		{"truncated.json", 1, []string{`^error: \S+truncated.json: document 1: invalid YAML`}},
		{"not-an-object.yaml", 1, []string{`document 1: not a Kubernetes object: the document is a list`, `document 2: not a Kubernetes object: the document is a single value`}},
		{"no-kind.yaml", 1, []string{`document 1: missing apiVersion or kind; skipped$`}},
		{"no-name.yaml", 1, []string{`document 1: Service team-b/: metadata.name is empty; skipped$`}},
		{"wrong-apiversion.yaml", 1, []string{`document 1: Ingress team-b/legacy: unsupported apiVersion extensions/v1beta1; skipped$`,
			`document 2: Ingress team-b/future: unsupported apiVersion networking.k8s.io/v2; skipped$`}},
		{"wrong-field-type.yaml", 1, []string{`document 1: Service team-b/typo: cannot decode: .*spec.ports.port`}},
		{"list-bad-item.yaml", 1, []string{`document 1: items\[0\]: Service team-b/item-bad: cannot decode`}},
		{"secret-bad-base64.yaml", 1, []string{`document 1: Secret team-b/tls-bad-b64: cannot decode: illegal base64`}},
		{"unknown-kind.yaml", 0, []string{`^note: \S+unknown-kind.yaml: document 1: Deployment team-b/web: kind not translated by kongsync; skipped$`}},
		{"duplicate-object.yaml", 0, []string{`^note: Service team-b/after: defined more than once; the last definition wins$`}},
		{"json-stream.json", 1, []string{`^error: \S+json-stream.json: document 2: missing apiVersion or kind; skipped$`}},
		{"bad-separator.yaml", 1, []string{`^error: \S+bad-separator.yaml: document 2: invalid document separator "--- !!map" \(kubectl refuses the whole file\); skipped up to the next ---$`}},
		{"alias-bytes.yaml", 1, []string{`^error: \S+alias-bytes.yaml: document 1: document expands to more than 3145728 bytes of JSON \(YAML aliases expanded\); skipped$`}},
		{"stringdata-tls.yaml", 0, nil},
		{"empty.yaml", 0, nil},
		{"only-comments.yaml", 0, nil},
	}
	seen := map[string]bool{"good.yaml": true}
	for _, c := range cases {
		seen[c.file] = true
		t.Run(c.file, func(t *testing.T) {
			code, out, stderr := runDump(t, "-f", filepath.Join(badDir, c.file), "-f", goodFile)
			if code != c.exit {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, c.exit, stderr)
			}
			checkLines(t, stderr, c.want)
			if c.want == nil && stderr != "" {
				t.Errorf("stderr should be empty:\n%s", stderr)
			}
			if !strings.Contains(out, goodRoute) {
				t.Errorf("stdout lacks the good Ingress's route:\n%s", out)
			}
		})
	}
	all, _ := filepath.Glob(filepath.Join(badDir, "*"))
	for _, f := range all {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s has no case in this test", f)
		}
	}
}

// checkLines asserts that every regexp in want matches some line of text.
func checkLines(t *testing.T, text string, want []string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for _, w := range want {
		re := regexp.MustCompile(w)
		found := false
		for _, l := range lines {
			found = found || re.MatchString(l)
		}
		if !found {
			t.Errorf("no stderr line matches %q:\n%s", w, text)
		}
	}
}

// TestDumpWholeBadDirectory reads every bad file at once, as `dump -f dir` does: one exit
// status 1, each error names its file, the good config is still written.
func TestDumpWholeBadDirectory(t *testing.T) {
	code, out, stderr := runDump(t, "-f", badDir)
	if code != exitProblems {
		t.Fatalf("exit status %d, want %d", code, exitProblems)
	}
	if !strings.Contains(out, goodRoute) {
		t.Errorf("stdout lacks the good config:\n%s", out)
	}
	for _, f := range []string{"binary.yaml", "yaml-bomb.yaml", "deep-nesting.yaml", "wrong-apiversion.yaml", "secret-bad-base64.yaml"} {
		if !regexp.MustCompile(`(?m)^error: \S+/` + regexp.QuoteMeta(f) + `: document \d+: `).MatchString(stderr) {
			t.Errorf("no error line for %s:\n%s", f, stderr)
		}
	}
	if !strings.HasSuffix(stderr, "the config of everything else was written\n") {
		t.Errorf("stderr lacks the summary line:\n%s", stderr)
	}
}

// TestDumpOversizedDocument: a document over store.MaxDocumentBytes is skipped with an error
// naming file and document, and the documents after it still count.
func TestDumpOversizedDocument(t *testing.T) {
	dir := t.TempDir()
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: " + strings.Repeat("x", store.MaxDocumentBytes) + "\n---\n"
	good, err := os.ReadFile(goodFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(path, append([]byte(big), good...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runDump(t, "-f", path)
	if code != exitProblems || !strings.Contains(out, goodRoute) {
		t.Fatalf("exit %d, stdout:\n%s", code, out)
	}
	checkLines(t, stderr, []string{`^error: \S+big.yaml: document 1: document is \d+ bytes, over the \d+-byte limit; skipped$`})
}

// withoutProblems are the bad-* cases that rightly report no problem: valid PCRE that Go cannot
// parse, and kinds kongsync does not read (a dump note).
var withoutProblems = map[string]bool{"bad-regex-pcre-only": true, "bad-unknown-kind": true}

// TestDumpGoldenBadCases runs dump on every testdata/golden/bad-* input: exit 1 exactly when the
// case has problems, each problem on stderr, the good Ingress in stdout.
func TestDumpGoldenBadCases(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(goldenRoot, "bad-*"))
	if len(dirs) < 40 {
		t.Fatalf("%d bad-* golden cases, want at least 40", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			code, out, stderr := runDump(t, append(caseFlags(t, dir), "-f", filepath.Join(dir, "in.yaml"))...)
			problems, _ := os.ReadFile(filepath.Join(dir, "problems.txt"))
			if len(problems) == 0 && !withoutProblems[filepath.Base(dir)] {
				t.Errorf("a bad-input case without problems.txt")
			}
			want := exitOK
			if len(problems) > 0 {
				want = exitProblems
			}
			if code != want {
				t.Errorf("exit status %d, want %d", code, want)
			}
			for _, p := range strings.Split(strings.TrimSpace(string(problems)), "\n") {
				if p != "" && !strings.Contains(stderr, "problem: "+p+"\n") {
					t.Errorf("stderr lacks problem %q", p)
				}
			}
			if !strings.Contains(out, goodRoute) {
				t.Errorf("stdout lacks the good Ingress's route")
			}
			golden, _ := os.ReadFile(filepath.Join(dir, "kong.yaml"))
			if !bytes.Contains(golden, []byte(goodRoute)) || !bytes.Contains(golden, []byte("target: 10.0.0.1:8080")) {
				t.Errorf("kong.yaml lacks the good Ingress's route or its target")
			}
			checkNoSecretData(t, dir, stderr)
		})
	}
}

// checkNoSecretData fails when text holds a private key or any data value of a Secret in the
// case's input.
func checkNoSecretData(t *testing.T, dir, text string) {
	t.Helper()
	for _, leak := range secretLeaks(t, dir, text) {
		t.Errorf("%s: output contains %s", dir, leak)
	}
}

// secretLeaks lists what of the case's Secrets text shows: "PRIVATE KEY", or a data value
// (raw or base64; values under 8 bytes are too short to tell from ordinary words). Values that
// are public anyway are not counted: see public.
func secretLeaks(t *testing.T, dir, text string) []string {
	t.Helper()
	var leaks []string
	if strings.Contains(text, "PRIVATE KEY") {
		leaks = append(leaks, "a private key")
	}
	f, err := os.Open(filepath.Join(dir, "in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, _, err := store.DecodeManifests("in.yaml", f) // refused Secrets too
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		s, ok := o.(*corev1.Secret)
		if !ok {
			continue
		}
		for k, v := range s.Data {
			if public(s, k, string(v)) {
				continue
			}
			for _, form := range []string{string(v), base64.StdEncoding.EncodeToString(v)} {
				if len(form) >= 8 && strings.Contains(text, form) {
					leaks = append(leaks, "Secret "+s.Namespace+"/"+s.Name+" data "+k)
				}
			}
		}
		for k, v := range s.StringData {
			if len(v) >= 8 && strings.Contains(text, v) {
				leaks = append(leaks, "Secret "+s.Namespace+"/"+s.Name+" stringData "+k)
			}
		}
	}
	return leaks
}

// TestNoSecretDataInProblems scans every golden case: neither problems.txt nor dump's stderr may
// hold a private key or a Secret's data. The check itself must catch a leak.
func TestNoSecretDataInProblems(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(goldenRoot, "*"))
	secrets := 0
	for _, dir := range dirs {
		in, err := os.ReadFile(filepath.Join(dir, "in.yaml"))
		if err != nil {
			continue
		}
		if bytes.Contains(in, []byte("kind: Secret")) {
			secrets++
		}
		problems, _ := os.ReadFile(filepath.Join(dir, "problems.txt"))
		_, _, stderr := runDump(t, "-f", filepath.Join(dir, "in.yaml"))
		checkNoSecretData(t, dir, string(problems)+stderr)
	}
	if secrets < 10 {
		t.Fatalf("only %d golden cases hold Secrets; the scan would prove little", secrets)
	}
	dir := filepath.Join(goldenRoot, "bad-tls-secret-mismatched")
	in, _ := os.ReadFile(filepath.Join(dir, "in.yaml"))
	if leaks := secretLeaks(t, dir, string(in)); len(leaks) < 2 {
		t.Fatalf("the scan does not notice the case's own Secret: %v", leaks)
	}
}

// public reports data that is not secret material: entity ids (they are in the config Kong gets),
// the removed kongCredType type name, and values that merely repeat the Secret's name or a label
// value (test data that names a key after its Secret).
func public(s *corev1.Secret, key, value string) bool {
	if key == "id" || key == "kongCredType" || value == s.Name {
		return true
	}
	for _, l := range s.Labels {
		if value == l {
			return true
		}
	}
	return false
}

// --cluster-domain completes service-upstream targets; its default is KIC's (none), the same as
// the controller's, so that dump and the live loop translate alike.
func TestDumpClusterDomain(t *testing.T) {
	dir := t.TempDir()
	manifest := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: ns, annotations: {ingress.kubernetes.io/service-upstream: "true"}}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: ns}
spec:
  ingressClassName: kong
  rules: [{host: a.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]
`
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "target: web.ns.svc:80\n"},
		{[]string{"--cluster-domain", "cluster.local"}, "target: web.ns.svc.cluster.local:80\n"},
	} {
		code, out, errs := runDump(t, append([]string{"-f", dir}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want a %q target\n%s\n%s", tc.args, code, tc.want, out, errs)
		}
	}
}

// TestDumpAssumesMissingGateways: offline, a route whose parent Gateway (or its GatewayClass) is
// not among the manifests is translated as if it existed and were kongsync's, with one note on
// stderr naming the Gateways assumed; a Gateway whose listeners refuse the route still refuses it.
func TestDumpAssumesMissingGateways(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "routes.yaml")
	manifest := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: default}
spec:
  parentRefs: [{name: kong}]
  rules: [{matches: [{path: {type: PathPrefix, value: /a}}], backendRefs: [{kind: Service, name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: default}
spec:
  parentRefs: [{name: kong}, {name: edge, namespace: infra}]
  rules: [{matches: [{path: {type: PathPrefix, value: /b}}], backendRefs: [{kind: Service, name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: c, namespace: default}
spec:
  parentRefs: [{name: tcp-only, namespace: infra}]
  rules: [{matches: [{path: {type: PathPrefix, value: /c}}], backendRefs: [{kind: Service, name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tcp-only, namespace: infra}
spec:
  gatewayClassName: elsewhere
  listeners: [{name: tcp, protocol: TCP, port: 9000}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{port: 80}]}
`
	if err := os.WriteFile(in, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runDump(t, "-f", in)
	for _, want := range []string{"name: httproute.default.a.0.0", "name: httproute.default.b.0.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "httproute.default.c") {
		t.Errorf("route c, refused by its Gateway's listeners, was translated:\n%s", out)
	}
	notes := regexp.MustCompile(`(?m)^note: gateway-api: .*$`).FindAllString(errOut, -1)
	if len(notes) != 1 || !strings.Contains(notes[0], "default/kong, infra/edge, infra/tcp-only") {
		t.Errorf("want one note naming the assumed Gateways, got %q", notes)
	}
	if code != 1 || !strings.Contains(errOut, "HTTPRoute default/c: spec.parentRefs[0]") {
		t.Errorf("exit %d, want 1 with route c's refusal:\n%s", code, errOut)
	}
}

// caseFlags are the dump flags a golden case's options.yaml stands for: its hardening flags
// (by name), its kongVersion and its routerFlavor.
func caseFlags(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "options.yaml"))
	if os.IsNotExist(err) {
		return nil
	}
	var o struct {
		KongVersion  string          `json:"kongVersion"`
		RouterFlavor string          `json:"routerFlavor"`
		Hardening    map[string]bool `json:"hardening"`
	}
	if err == nil {
		err = yaml.Unmarshal(b, &o)
	}
	if err != nil {
		t.Fatalf("%s/options.yaml: %v", dir, err)
	}
	var flags []string
	if o.KongVersion != "" {
		flags = append(flags, "--kong-version", o.KongVersion)
	}
	if o.RouterFlavor != "" {
		flags = append(flags, "--router-flavor", o.RouterFlavor)
	}
	for _, name := range slices.Sorted(maps.Keys(o.Hardening)) {
		flags = append(flags, fmt.Sprintf("--%s=%t", name, o.Hardening[name]))
	}
	return flags
}

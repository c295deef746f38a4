package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpRefusesWhatTheAPIServerWould runs dump on manifests holding objects an API server
// would refuse: each reason is a "problem:" line naming object and field, counted in the summary
// like the translator's, the exit status is 1 (0 with --allow-problems), and every object is still
// translated as the translator would (its own problems beside). A rule that routes nothing is a note.
func TestDumpRefusesWhatTheAPIServerWould(t *testing.T) {
	in := filepath.Join(goldenRoot, "bad-meta-required-fields", "in.yaml")
	code, out, stderr := runDump(t, "-f", in)
	if code != exitProblems {
		t.Errorf("exit status %d, want %d", code, exitProblems)
	}
	for _, want := range []string{
		"problem: Ingress team-b/tls-only: spec: required: either `defaultBackend` or `rules` must be specified; the API server would refuse the Ingress\n",
		"problem: Ingress team-b/paths: spec.rules[0].http.paths[0].pathType: required: pathType must be specified;",
		"problem: Secret team-b/cert: data[tls.key]: required: a kubernetes.io/tls Secret needs it;",
		"problem: KongPlugin team-b/both: configFrom: forbidden: Using both config and configFrom fields is not allowed.;",
		"note: " + in + ": document 3: Ingress team-b/host-only: spec.rules[0]: host \"nothing.example.com\" has no http paths; it routes nothing\n",
		"kongsync dump: 14 problem(s), 1 note(s); the config of everything else was written\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(out, "username: tags") {
		t.Errorf("the KongConsumer the API server would refuse was not translated:\n%s", out)
	}
	if !strings.Contains(out, goodRoute) {
		t.Errorf("stdout lacks the good Ingress's route")
	}
	if code, _, _ := runDump(t, "--allow-problems", "-f", in); code != exitOK {
		t.Errorf("--allow-problems: exit status %d, want 0", code)
	}
}

// TestDumpNoteAloneExitsZero: an object that routes nothing is valid; its note does not fail
// dump.
func TestDumpNoteAloneExitsZero(t *testing.T) {
	in := filepath.Join(t.TempDir(), "host-only.yaml")
	manifest := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: host-only, namespace: default}
spec:
  ingressClassName: kong
  rules: [{host: a.example.com}]
`
	if err := os.WriteFile(in, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runDump(t, "-f", in)
	want := "note: " + in + ": document 1: Ingress default/host-only: spec.rules[0]: host \"a.example.com\" has no http paths; it routes nothing\n"
	if code != exitOK || stderr != want {
		t.Errorf("exit status %d, stderr %q; want 0 and %q", code, stderr, want)
	}
}

// TestDumpCheckObjectsOff: --check-objects=false reports only the translator's problems.
func TestDumpCheckObjectsOff(t *testing.T) {
	in := filepath.Join(goldenRoot, "bad-path-relative", "in.yaml")
	_, _, stderr := runDump(t, "--check-objects=false", "-f", in)
	if strings.Contains(stderr, "the API server would refuse") || !strings.Contains(stderr, `"api/v1" is not an absolute path; path skipped`) {
		t.Errorf("with --check-objects=false, want the translator's problem only:\n%s", stderr)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDumpReadsLikeKubectl: the objects beside each reading case of testdata/manifests-bad are
// translated: every object of a JSON stream but the broken one, the documents around an invalid
// separator and after an alias bomb, and TLS and CA Secrets written with stringData.
func TestDumpReadsLikeKubectl(t *testing.T) {
	cases := []struct {
		file string
		want []string // in stdout
		not  []string
	}{
		{"json-stream.json", []string{"username: json-a", "username: json-c", "username: json-d"}, nil},
		{"bad-separator.yaml", []string{"username: sep-before", "username: sep-after"}, []string{"sep-skipped"}},
		{"alias-bytes.yaml", []string{"username: after-bomb"}, nil},
		{"stringdata-tls.yaml", []string{"name: a.example.com", "id: 5d8e0f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a",
			"- 5d8e0f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a", "tls_verify: true"}, nil},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, out, stderr := runDump(t, "-f", filepath.Join(badDir, c.file), "-f", goodFile)
			for _, w := range append(c.want, goodRoute) {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q; stderr:\n%s", w, stderr)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("stdout holds %q", n)
				}
			}
		})
	}
}

// TestDumpSkipsFIFOInDirectory: a FIFO in a -f directory is noted and skipped, never opened
// (opening it would block dump until something writes to it); the good objects are translated.
func TestDumpSkipsFIFOInDirectory(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(goodFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good.yaml"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, stderr := runDump(t, "-f", dir)
		done <- result{code, out, stderr}
	}()
	select {
	case r := <-done:
		if r.code != exitProblems || !strings.Contains(r.out, goodRoute) {
			t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
		checkLines(t, r.stderr, []string{`^error: \S+/pipe.yaml: a named pipe \(FIFO\), not a regular file; skipped`})
	case <-time.After(10 * time.Second):
		t.Fatal("dump of a directory holding a FIFO did not finish")
	}
}

// endlessReader is stdin that never ends: a line of YAML again and again, no separator.
type endlessReader struct{ chunk []byte }

func (e endlessReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], e.chunk)
	}
	return n, nil
}

// TestDumpEndlessStdin: dump - on stdin that never ends stops reading it with a clear error once
// it has read store.MaxInputBytes, in bounded time and memory, and writes what it read.
func TestDumpEndlessStdin(t *testing.T) {
	stdin := endlessReader{bytes.Repeat([]byte("key: "+strings.Repeat("v", 100)+"\n"), 100)}
	var out, stderr bytes.Buffer
	allocated, elapsed := measure(func() {
		if code := dumpCommand([]string{"-f", "-"}, stdin, &out, &stderr); code != exitProblems {
			t.Errorf("exit status %d, want %d", code, exitProblems)
		}
	})
	t.Logf("%s, %d bytes allocated: %s", elapsed, allocated, stderr.String())
	checkLines(t, stderr.String(), []string{`^error: -: document 1: input is over the limit of 268435456 bytes for all manifests read at once; stopped$`})
	if allocated > 64<<20 || elapsed > 10*time.Second {
		t.Fatalf("reading endless stdin took %s and allocated %d bytes", elapsed, allocated)
	}
}

// TestDumpConfigFromAliasBomb: the crash. A KongPlugin's configFrom Secret of ~280 KB
// whose value is aliased 5,000 times (1.4 GB of JSON once expanded) is one problem on the
// KongPlugin; the rest translates, within 10 s and far less memory than the expansion.
func TestDumpConfigFromAliasBomb(t *testing.T) {
	var in strings.Builder
	in.WriteString("apiVersion: v1\nkind: Secret\nmetadata: {name: bomb, namespace: team-b}\nstringData:\n  config: |\n")
	in.WriteString("    minute: 5\n    policy: &v \"" + strings.Repeat("x", 280<<10) + "\"\n    copies:\n")
	for range 5000 {
		in.WriteString("    - *v\n")
	}
	in.WriteString("---\napiVersion: configuration.konghq.com/v1\nkind: KongPlugin\nmetadata: {name: bomb, namespace: team-b}\n" +
		"plugin: rate-limiting\nconfigFrom: {secretKeyRef: {name: bomb, key: config}}\n---\n" +
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: bomb, namespace: team-b, annotations: {konghq.com/plugins: bomb}}\n" +
		"spec:\n  ingressClassName: kong\n  rules:\n  - host: bomb.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: bomb, port: {number: 80}}}}]}\n---\n" +
		"apiVersion: v1\nkind: Service\nmetadata: {name: bomb, namespace: team-b}\nspec: {ports: [{port: 80}]}\n")
	path := filepath.Join(t.TempDir(), "bomb.yaml")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var code int
	var out, stderr string
	allocated, elapsed := measure(func() { code, out, stderr = runDump(t, "-f", path, "-f", goodFile) })
	t.Logf("%d-byte manifest: %s, %d bytes allocated", in.Len(), elapsed, allocated)
	if code != exitProblems || !strings.Contains(out, goodRoute) || !strings.Contains(out, "name: team-b.bomb.bomb.bomb.example.com.80") {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	checkLines(t, stderr, []string{`^problem: KongPlugin team-b/bomb: configFrom.secretKeyRef: the Secret value expands to more than 1048576 bytes of JSON \(YAML aliases expanded\); KongPlugin skipped$`})
	if allocated > 300<<20 || elapsed > 10*time.Second {
		t.Fatalf("took %s and allocated %d bytes", elapsed, allocated)
	}
}

// measure runs f and returns the bytes it allocated and the time it took.
func measure(f func()) (uint64, time.Duration) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, elapsed
}

package store

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestSplitterDocumentBound: a document over the limit is dropped as soon as it exceeds it and
// skipped up to the next separator (or the end of its JSON value); the documents around it are
// read, and numbered, as if it were there.
func TestSplitterDocumentBound(t *testing.T) {
	lim := readLimits{doc: 200, total: 1 << 20}
	long := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + strings.Repeat("  k: v\n", 100)
	cases := []struct {
		name, in string
		objs     []string
		note     string
	}{
		{"many lines", svcYAML("a") + "---\n" + long + "---\n" + svcYAML("c"), []string{"a", "c"}, "document 2: document is 759 bytes, over the 200-byte limit; skipped"},
		{"one long line", svcYAML("a") + "---\nx: " + strings.Repeat("y", 100<<10) + "\n---\n" + svcYAML("c"), []string{"a", "c"}, "document 2: document is 102405 bytes, over the 200-byte limit; skipped"},
		{"last document", svcYAML("a") + "---\n" + long, []string{"a"}, "document 2: document is 759 bytes"},
		{"JSON value", svcJSON("a") + `{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"` + strings.Repeat("z", 300) + `"}}` + svcJSON("c"), []string{"a", "c"}, "document 2: document is 354 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, _, notes, err := newManifestReader(lim, false).decode("in", strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range objs {
				names = append(names, o.GetName())
			}
			if strings.Join(names, ",") != strings.Join(c.objs, ",") || len(notes) != 1 || !notes[0].Err ||
				!strings.Contains(notes[0].String(), c.note) {
				t.Fatalf("objects %v, notes %v; want %v and a note %q", names, notes, c.objs, c.note)
			}
		})
	}
}

// endless is a reader that never ends: its pattern again and again.
type endless struct {
	pattern []byte
	off     int
}

func (e *endless) Read(p []byte) (int, error) {
	for n := 0; n < len(p); {
		c := copy(p[n:], e.pattern[e.off:])
		n += c
		e.off = (e.off + c) % len(e.pattern)
	}
	return len(p), nil
}

// TestReadEndlessInput: stdin that never ends (zeros without a newline, like /dev/zero; or YAML
// lines without a separator) stops at MaxInputBytes with an error note naming the bound, and the
// read allocates a few times one document's bound (its buffer growing to 3 MiB), not the input.
func TestReadEndlessInput(t *testing.T) {
	for name, pattern := range map[string]string{"zeros": "\x00", "lines": "key: " + strings.Repeat("v", 200) + "\n"} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, _, notes, err := ReadPaths([]string{"-"}, &endless{pattern: []byte(strings.Repeat(pattern, 8<<10/len(pattern)+1))})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("stopped after %s, %d bytes allocated: %v %v", elapsed, allocated, notes, err)
			if err != nil || len(notes) == 0 || !notes[len(notes)-1].Err ||
				!strings.Contains(notes[len(notes)-1].String(), "-: document 1: input is over the limit of 268435456 bytes") {
				t.Fatalf("err = %v, notes %v: want an error note with the input bound", err, notes)
			}
			if allocated > 32<<20 {
				t.Fatalf("allocated %d bytes reading an endless stream; want under 32 MiB", allocated)
			}
		})
	}
}

// TestReadBudgetSpansFiles: the input bound counts every file of one read together, and an
// input exactly at the bound is read.
func TestReadBudgetSpansFiles(t *testing.T) {
	dir := t.TempDir()
	doc := svcYAML("a")
	for _, f := range []string{"1.yaml", "2.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exact := readLimits{doc: 1 << 10, total: int64(2 * len(doc))}
	if objs, _, _, err := readPaths([]string{dir}, nil, false, exact); err != nil || len(objs) != 2 {
		t.Fatalf("at the bound: %d objects, err %v", len(objs), err)
	}
	exact.total--
	objs, _, notes, err := readPaths([]string{dir}, nil, false, exact)
	if err != nil || len(objs) != 1 || len(notes) != 1 || !notes[0].Err || !strings.Contains(notes[0].String(), "2.yaml") ||
		!strings.Contains(notes[0].String(), "over the limit") {
		t.Fatalf("one byte over: %d objects, notes %v, err %v: want 1.yaml's object and the bound noted on 2.yaml", len(objs), notes, err)
	}
}

// TestReadDirectorySkipsNonRegularFiles: in a directory, a FIFO (which would block dump for
// ever), a socket, and a symlink to either are noted and skipped without being opened; the
// regular files and a symlink to one are read. The test fails on a timeout if a FIFO is opened.
func TestReadDirectorySkipsNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", svcYAML("a"))
	write("target.txt", svcYAML("linked"))
	must(t, syscall.Mkfifo(filepath.Join(dir, "b-fifo.yaml"), 0o644))
	must(t, os.Symlink("b-fifo.yaml", filepath.Join(dir, "c-to-fifo.yaml")))
	must(t, os.Symlink("target.txt", filepath.Join(dir, "d-to-file.yaml")))
	l, err := net.Listen("unix", filepath.Join(dir, "e-socket.yaml"))
	must(t, err)
	defer l.Close()
	type result struct {
		objs  []Object
		notes []Note
		err   error
	}
	done := make(chan result, 1)
	go func() {
		objs, _, notes, err := ReadPaths([]string{dir}, nil)
		done <- result{objs, notes, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading a directory with a FIFO did not finish: the FIFO was opened")
	}
	if r.err != nil || len(r.objs) != 2 || r.objs[0].GetName() != "a" || r.objs[1].GetName() != "linked" {
		t.Fatalf("objects %v, err %v", r.objs, r.err)
	}
	want := []string{"b-fifo.yaml: a named pipe (FIFO), not a regular file; skipped", "c-to-fifo.yaml: a named pipe (FIFO)", "e-socket.yaml: a socket"}
	if len(r.notes) != len(want) {
		t.Fatalf("notes = %v, want %v", r.notes, want)
	}
	for i, n := range r.notes {
		if !n.Err || !strings.Contains(n.String(), want[i]) {
			t.Errorf("note %q, want %q", n, want[i])
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadNamedFIFO: a FIFO named on the command line is read (`dump -f <(...)` passes one).
func TestReadNamedFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	must(t, syscall.Mkfifo(fifo, 0o600))
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			io.WriteString(f, svcYAML("piped"))
			f.Close()
		}
	}()
	objs, _, notes, err := ReadPaths([]string{fifo}, nil)
	if err != nil || len(notes) != 0 || len(objs) != 1 || objs[0].GetName() != "piped" {
		t.Fatalf("objects %v, notes %v, err %v", objs, notes, err)
	}
}

// TestReadStringData: a Secret's stringData is merged into data as the API server does
// (stringData wins), after the checks, which still name the stringData keys as written.
func TestReadStringData(t *testing.T) {
	in := "apiVersion: v1\nkind: Secret\nmetadata: {name: tls, namespace: ns}\ntype: kubernetes.io/tls\n" +
		"data: {tls.crt: b2xk, other: b2xk}\nstringData: {tls.crt: new-cert, tls.key: the-key, 'bad key': x}\n"
	objs, refused, _, err := decodeManifests("in.yaml", strings.NewReader(in), true)
	if err != nil || len(objs) != 1 {
		t.Fatalf("objects %v, err %v", objs, err)
	}
	s := objs[0].(*corev1.Secret)
	if len(s.StringData) != 0 || string(s.Data["tls.crt"]) != "new-cert" || string(s.Data["tls.key"]) != "the-key" ||
		string(s.Data["other"]) != "old" || len(s.Data) != 4 {
		t.Fatalf("data %q, stringData %q", s.Data, s.StringData)
	}
	if len(refused) != 1 || refused[0].Field != "stringData[bad key]" {
		t.Fatalf("refusals %v, want one on stringData[bad key]", refused)
	}
}

// TestDecodeAliasBombBounded: a manifest document of ~280 KB whose one value is aliased 5,000
// times (1.4 GB expanded) is refused with a note, the next document still read, and the read
// allocates a few times the document, not its expansion.
func TestDecodeAliasBombBounded(t *testing.T) {
	in := aliasBomb(280<<10, 5000) + "---\n" + svcYAML("after")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	objs, notes, err := DecodeManifests("in.yaml", strings.NewReader(in))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d-byte stream: %d bytes allocated", len(in), allocated)
	if err != nil || len(objs) != 1 || len(notes) != 1 || !strings.Contains(notes[0].Msg, "expands to more than") {
		t.Fatalf("objects %v, notes %v, err %v", objs, notes, err)
	}
	if allocated > 16<<20 {
		t.Fatalf("allocated %d bytes; want under 16 MiB", allocated)
	}
}

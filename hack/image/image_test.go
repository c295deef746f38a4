package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

var created = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testSpec() imageSpec {
	return imageSpec{Binary: []byte("\x7fELF not really"), CABundle: []byte("-----BEGIN CERTIFICATE-----\n"),
		Created: created, Arch: "amd64", Version: "v1.2.3", Revision: "abc"}
}

// layerFiles reads the image's layers into path -> header and path -> content.
func layerFiles(t *testing.T, img v1.Image) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	heads, data := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return heads, data
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		heads[h.Name], data[h.Name] = h, b
	}
}

// checkImage checks what every kongsync image must be: nonroot, the binary as entrypoint, one
// layer of exactly the listed files (no shell), every time the source date.
func checkImage(t *testing.T, img v1.Image, wantBinary []byte, when time.Time) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Config.User != "65532:65532" || !slices.Equal(cf.Config.Entrypoint, []string{"/kongsync"}) ||
		len(cf.Config.Cmd) != 0 || cf.OS != "linux" || !cf.Created.Time.Equal(when) {
		t.Errorf("config %+v created %v: want user 65532:65532, entrypoint [/kongsync], no cmd, linux, %v",
			cf.Config, cf.Created, when)
	}
	heads, data := layerFiles(t, img)
	var names []string
	for n, h := range heads {
		names = append(names, n)
		if !h.ModTime.Equal(when) {
			t.Errorf("%s: mtime %v, want %v", n, h.ModTime, when)
		}
	}
	slices.Sort(names)
	want := []string{"etc/", "etc/group", "etc/nsswitch.conf", "etc/passwd", "etc/ssl/", "etc/ssl/certs/",
		"etc/ssl/certs/ca-certificates.crt", "home/", "home/nonroot/", "kongsync", "root/", "tmp/"}
	if !slices.Equal(names, want) {
		t.Errorf("layer files %q, want %q", names, want)
	}
	if !bytes.Equal(data["kongsync"], wantBinary) || heads["kongsync"].Mode != 0o755 {
		t.Errorf("/kongsync: %d bytes mode %o, want the binary (%d bytes) mode 755",
			len(data["kongsync"]), heads["kongsync"].Mode, len(wantBinary))
	}
	if !strings.Contains(string(data["etc/passwd"]), "nonroot:x:65532:65532:") ||
		!strings.Contains(string(data["etc/group"]), "nonroot:x:65532:") {
		t.Errorf("passwd %q / group %q lack the nonroot user 65532", data["etc/passwd"], data["etc/group"])
	}
	if h := heads["home/nonroot/"]; h.Uid != nonroot || h.Gid != nonroot {
		t.Errorf("/home/nonroot owned by %d:%d, want 65532", h.Uid, h.Gid)
	}
}

func TestNewImageReproducible(t *testing.T) {
	a, err := newImage(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	b, err := newImage(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("same spec, digests %s and %s", da, db)
	}
	checkImage(t, a, testSpec().Binary, created)

	later := testSpec()
	later.Created = created.Add(time.Second)
	c, err := newImage(later)
	if err != nil {
		t.Fatal(err)
	}
	if dc, _ := c.Digest(); dc == da {
		t.Errorf("a different source date kept the digest %s", da)
	}
}

func TestTagOf(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3": "v1.2.3", "v1.2.3-4-gabc-dirty": "v1.2.3-4-gabc-dirty", "1.0+meta": "1.0-meta",
		"": "v", "-x": "v-x", "a/b": "a-b",
	} {
		if got := tagOf(in); got != want {
			t.Errorf("tagOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// The real thing: `go build` of ./cmd/kongsync twice into two tarballs, byte for byte equal;
// the tarball, read back, holds a static binary with the version and without this tool's
// dependencies.
func TestBuildImageTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kongsync twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var tars [][]byte
	var digests []string
	for _, out := range []string{"a.tar", "b.tar"} {
		o := options{ModuleDir: "../..", Out: filepath.Join(dir, out), Version: "v0.0.0-imagetest",
			Repository: "example.com/kongsync", Arch: "amd64", CABundle: ca, Created: created}
		d, err := build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(o.Out)
		if err != nil {
			t.Fatal(err)
		}
		tars, digests = append(tars, b), append(digests, d)
	}
	if digests[0] != digests[1] || !bytes.Equal(tars[0], tars[1]) {
		t.Fatalf("two builds: digests %s and %s, tarballs equal: %v", digests[0], digests[1], bytes.Equal(tars[0], tars[1]))
	}
	img, err := tarball.ImageFromPath(filepath.Join(dir, "a.tar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := img.Digest(); d.String() != digests[0] {
		t.Errorf("tarball's image digest %s, printed %s", d, digests[0])
	}
	_, data := layerFiles(t, img)
	checkImage(t, img, data["kongsync"], created)
	checkStaticBinary(t, filepath.Join(dir, "kongsync"), data["kongsync"])
}

// checkStaticBinary: no ELF interpreter (no libc needed), built without cgo and build paths,
// the -X version inside, and none of the image tool's modules linked in.
func checkStaticBinary(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("binary has an ELF interpreter: not static")
		}
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Errorf("build settings %v: want CGO_ENABLED=0 -trimpath=true", settings)
	}
	for _, d := range info.Deps {
		if strings.Contains(d.Path, "go-containerregistry") || strings.Contains(d.Path, "opencontainers") {
			t.Errorf("kongsync links %s, a dependency of the image tool", d.Path)
		}
	}
	if !bytes.Contains(b, []byte("v0.0.0-imagetest")) {
		t.Error("the -X main.version string is not in the binary")
	}
}

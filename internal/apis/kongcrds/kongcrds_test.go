package kongcrds

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The files are KIC v3.5.13's: the twelve CRDs of config/crd/ingress-controller at v1.5.2 and
// the incubator's KongServiceFacade, which KIC's config/base installs too.
func TestFilesAreKICs(t *testing.T) {
	if v, err := Version(); err != nil || v != "v1.5.2" {
		t.Fatalf("version %q (%v), want v1.5.2 (KIC v3.5.13 pins it)", v, err)
	}
	main, err := Files()
	if err != nil || len(main) != 12 {
		t.Fatalf("Files() = %d files (%v), want 12", len(main), err)
	}
	inc, err := IncubatorFiles()
	if err != nil || len(inc) != 1 || filepath.Base(inc[0]) != "incubator.ingress-controller.konghq.com_kongservicefacades.yaml" {
		t.Fatalf("IncubatorFiles() = %v (%v)", inc, err)
	}
	all, err := AllFiles()
	if err != nil || len(all) != 13 || all[12] != inc[0] {
		t.Fatalf("AllFiles() = %v (%v)", all, err)
	}
}

// TestDirDownloads: on a machine whose module cache has never held the module (no package of it
// is compiled, so neither go build nor go mod download fetches it), Dir downloads it. The
// empty cache is fed from this machine's cache as a file proxy, so no network is needed.
func TestDirDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command against a fresh module cache")
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	proxy := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	if _, err := os.Stat(filepath.Join(proxy, Module)); err != nil {
		t.Skipf("this machine's module cache has no %s to serve: %v", Module, err)
	}
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOPROXY", "file://"+proxy)
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-modcacherw") // so that the temporary cache can be removed
	files, err := Files()
	if err != nil || len(files) != 12 {
		t.Fatalf("Files() on an empty module cache = %d files (%v), want 12", len(files), err)
	}
}

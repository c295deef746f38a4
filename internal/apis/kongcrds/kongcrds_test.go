package kongcrds

import (
	"path/filepath"
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

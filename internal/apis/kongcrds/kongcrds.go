// Package kongcrds locates the CustomResourceDefinitions Kong publishes for KIC
// (github.com/kong/kubernetes-configuration, the version go.mod pins: the one KIC v3.5.13 pins),
// so that tests install and check the very files users install, not stand-ins.
package kongcrds

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Module is the Go module that publishes the CRDs.
const Module = "github.com/kong/kubernetes-configuration"

// Dir returns the module's directory in the module cache, downloading the pinned version when
// the cache lacks it: no package of the module is compiled, so neither `go build` nor a plain
// `go mod download` fetches it, and `go list -m` reports no directory for a module it has not
// downloaded.
func Dir() (string, error) {
	version, err := Version()
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "mod", "download", "-json", Module+"@"+version).Output()
	if err != nil {
		return "", fmt.Errorf("downloading %s@%s: %v", Module, version, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("downloading %s@%s: %v%s", Module, version, err, m.Error)
	}
	return m.Dir, nil
}

// Version returns the module version in use: go.mod's replace pins it below what
// go-database-reconciler asks for, to KIC v3.5.13's (the ref deploy/ installs the CRDs at).
func Version() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", Module).Output()
	if err != nil {
		return "", fmt.Errorf("locating %s: %v", Module, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Files returns the CRD files KIC installs (config/crd/ingress-controller), sorted.
func Files() ([]string, error) {
	return glob("ingress-controller", "configuration.konghq.com_*.yaml")
}

// IncubatorFiles returns the CRD files of config/crd/ingress-controller-incubator
// (KongServiceFacade), which KIC v3.5.13's base manifests install beside Files().
func IncubatorFiles() ([]string, error) {
	return glob("ingress-controller-incubator", "*.yaml", "kustomization.yaml")
}

// AllFiles returns every CRD file KIC v3.5.13 installs: Files() then IncubatorFiles().
func AllFiles() ([]string, error) {
	main, err := Files()
	if err != nil {
		return nil, err
	}
	inc, err := IncubatorFiles()
	if err != nil {
		return nil, err
	}
	return append(main, inc...), nil
}

// glob lists config/crd/<sub>/<pattern> in the module, sorted, without the skipped base names.
func glob(sub, pattern string, skip ...string) ([]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	all, err := filepath.Glob(filepath.Join(dir, "config", "crd", sub, pattern))
	var files []string
	for _, f := range all {
		if !slices.Contains(skip, filepath.Base(f)) {
			files = append(files, f)
		}
	}
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s has no config/crd/%s CRDs (%v)", Module, sub, err)
	}
	sort.Strings(files)
	return files, nil
}

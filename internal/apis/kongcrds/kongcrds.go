// Package kongcrds locates the CustomResourceDefinitions Kong publishes for KIC
// (github.com/kong/kubernetes-configuration, the version go.mod pins: the one KIC v3.5.13 pins),
// so that tests install and check the very files users install, not stand-ins.
package kongcrds

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Module is the Go module that publishes the CRDs.
const Module = "github.com/kong/kubernetes-configuration"

// Dir returns the module's directory in the module cache (the go command downloads it if
// needed, as go.sum carries it).
func Dir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", Module).Output()
	if err != nil {
		return "", fmt.Errorf("locating %s: %v", Module, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("locating %s: not downloaded (go mod download)", Module)
	}
	return dir, nil
}

// Files returns the CRD files KIC installs (config/crd/ingress-controller), sorted.
func Files() ([]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "config", "crd", "ingress-controller", "configuration.konghq.com_*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s has no config/crd/ingress-controller CRDs (%v)", Module, err)
	}
	sort.Strings(files)
	return files, nil
}

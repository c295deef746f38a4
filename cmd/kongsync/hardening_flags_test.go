package main

import (
	"strings"
	"testing"
)

// The hardening flags reach the translation from run's command line and CONTROLLER_*
// variables, and from dump's command line: an ExternalName Service then gets a problem.
func TestHardeningFlags(t *testing.T) {
	for _, c := range []struct {
		args, env      []string
		ext, unmanaged bool
	}{
		{nil, nil, false, false},
		{[]string{"--refuse-external-name-services"}, nil, true, false},
		{nil, []string{"CONTROLLER_REFUSE_UNMANAGED_ENDPOINT_SLICES=true"}, false, true},
		{[]string{"--refuse-unmanaged-endpoint-slices=false"}, []string{"CONTROLLER_REFUSE_UNMANAGED_ENDPOINT_SLICES=true",
			"CONTROLLER_REFUSE_EXTERNAL_NAME_SERVICES=true"}, true, false},
	} {
		f, _, err := parseRunFlags(c.args, c.env)
		if err != nil {
			t.Fatalf("%v %v: %v", c.args, c.env, err)
		}
		h := f.cfg.Hardening
		if h.RefuseExternalNameServices != c.ext || h.RefuseUnmanagedEndpointSlices != c.unmanaged {
			t.Errorf("%v %v: %+v", c.args, c.env, h)
		}
	}
	in := "../../testdata/golden/bad-hardening-external-name/in.yaml"
	for _, on := range []bool{false, true} {
		args := []string{"-f", in}
		if on {
			args = append([]string{"--refuse-external-name-services"}, args...)
		}
		code, _, stderr := runDump(t, args...)
		refused := strings.Contains(stderr, "ExternalName Services are refused")
		if refused != on || (code == exitProblems) != on {
			t.Errorf("dump with the flag %t: exit %d, stderr %q", on, code, stderr)
		}
	}
}

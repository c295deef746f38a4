//go:build integration

package integration

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// kongsync diff --kubeconfig translates the cluster as the controller does: against the Kong
// a live kongsync keeps it finds nothing; once the cluster moves on without a controller, it
// names what Kong lacks.
func TestDiffClusterAgainstKong(t *testing.T) {
	ns := newNamespace(t)
	app{ns: ns, name: "web", host: "diff.example.com"}.create(t)
	kong := newDouble(t)
	in := startKongsync(t, "diff", ns, []*kongdouble.Server{kong}, nil)
	in.waitReady(t)
	in.stop()
	diff := func() (int, string, string) {
		cmd := exec.Command(kongsyncBinary(t), "diff", "--kubeconfig", plane.Kubeconfig, "--watch-namespace", ns,
			"--kong-admin-url", kong.URL())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}
	if code, out, errs := diff(); code != 0 || out != "" {
		t.Fatalf("diff of the cluster a live kongsync just pushed: exit %d\n%s%s", code, out, errs)
	}
	app{ns: ns, name: "later", host: "later.example.com"}.create(t)
	code, out, errs := diff()
	if code != 1 || !strings.Contains(out, "- route "+ns+".later.later.later.example.com.80: only in the expected configuration") {
		t.Fatalf("diff after a change no controller pushed: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("kongsync diff:\n%s", out)
}

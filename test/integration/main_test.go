//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kongsync/kongsync/test/integration/cp"
)

// One control plane for the whole package run; each test works in its own namespace.
var (
	plane *cp.ControlPlane
	admin kubernetes.Interface
	// kongsyncBin is the kongsync binary built once for the dump-equivalence test.
	kongsyncBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin := os.Getenv(cp.EnvBinDir)
	if bin == "" {
		fmt.Fprintf(os.Stderr, "%s is not set: run `make test-integration` (it builds etcd and kube-apiserver once)\n", cp.EnvBinDir)
		return 1
	}
	var err error
	plane, err = cp.Start(bin, 60*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "control plane:", err)
		return 1
	}
	defer plane.Stop()
	fmt.Fprintf(os.Stderr, "control plane ready in %s at %s\n", plane.StartDuration.Round(time.Millisecond), plane.URL)
	admin = kubernetes.NewForConfigOrDie(plane.RestConfig())
	if err := createIngressClass(); err != nil {
		fmt.Fprintln(os.Stderr, "IngressClass:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "kongsync-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return m.Run()
}

var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

// kongsyncBinary builds cmd/kongsync once per package run (only the tests that exec it pay).
func kongsyncBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		kongsyncBin = filepath.Join(binDir, "kongsync")
		t0 := time.Now()
		out, err := exec.Command("go", "build", "-o", kongsyncBin, "github.com/kongsync/kongsync/cmd/kongsync").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building kongsync: %v\n%s", err, out)
			return
		}
		fmt.Fprintf(os.Stderr, "kongsync built in %s\n", time.Since(t0).Round(time.Millisecond))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return kongsyncBin
}

// createIngressClass makes IngressClass kong (cluster-scoped, shared by every test).
func createIngressClass() error {
	ic := &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "kong"},
		Spec:       networkingv1.IngressClassSpec{Controller: "ingress-controllers.konghq.com/kong"},
	}
	_, err := admin.NetworkingV1().IngressClasses().Create(context.Background(), ic, metav1.CreateOptions{})
	return err
}

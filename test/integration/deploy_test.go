//go:build integration

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/internal/apis/kongcrds"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

const deployDir = "../../deploy"

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runKubectl(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runKubectl runs the harness's kubectl against the package's API server; the error carries
// the command and its output.
func runKubectl(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(plane.BinDir, "kubectl"), append([]string{"--kubeconfig", plane.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// `kubectl apply -k deploy/` is accepted by the real apiserver (server-side apply, dryRun=All):
// every object the kustomization renders, and the kustomization lists every manifest in deploy/.
func TestDeployKustomizationServerSideDryRun(t *testing.T) {
	listed := kustomizationResources(t)
	files, err := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" && !slices.Contains(listed, b) {
			t.Errorf("deploy/%s is not in deploy/kustomization.yaml's resources", b)
		}
	}
	var want []string
	for _, doc := range strings.Split(kubectl(t, "kustomize", deployDir), "\n---\n") {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		want = append(want, strings.ToLower(obj.Kind)+"/"+obj.Metadata.Name)
	}
	if len(want) < len(listed) {
		t.Fatalf("kustomize rendered %d objects from %d files", len(want), len(listed))
	}
	kubectl(t, "apply", "--server-side", "-f", filepath.Join(deployDir, "namespace.yaml"))
	out := kubectl(t, "apply", "-k", deployDir, "--server-side", "--dry-run=server", "--field-manager=kongsync-test")
	t.Log(strings.TrimSpace(out))
	for _, w := range want {
		kind, name, _ := strings.Cut(w, "/")
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(kind) + `(\.[a-z0-9.]+)?/` + regexp.QuoteMeta(name) + ` serverside-applied \(server dry run\)$`).MatchString(out) {
			t.Errorf("dry run did not apply %s", w)
		}
	}
}

// kustomizationResources is deploy/kustomization.yaml's resources list.
func kustomizationResources(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	return k.Resources
}

// readDeployment decodes deploy/deployment.yaml strictly.
func readDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// The Deployment's containers run as non-root, read-only, without privilege escalation.
func TestDeploymentSecurityContext(t *testing.T) {
	pod := readDeployment(t).Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("pod does not require runAsNonRoot")
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			t.Errorf("container %s: securityContext %+v is not non-root/read-only/no-escalation", c.Name, sc)
		}
	}
}

// Kong's admin body limit is raised above its 10m default (kongsync posts the whole config in
// one body), to the same value for client_max_body_size and client_body_buffer_size.
func TestDeploymentAdminBodyLimit(t *testing.T) {
	env := map[string]string{}
	for _, c := range readDeployment(t).Spec.Template.Spec.Containers {
		if c.Name == "proxy" {
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
		}
	}
	max, buf := env["KONG_NGINX_ADMIN_CLIENT_MAX_BODY_SIZE"], env["KONG_NGINX_ADMIN_CLIENT_BODY_BUFFER_SIZE"]
	mb, err := strconv.Atoi(strings.TrimSuffix(max, "m"))
	if err != nil || !strings.HasSuffix(max, "m") || mb <= 10 || buf != max {
		t.Errorf("admin body limit %q, buffer %q: want equal sizes above Kong's 10m", max, buf)
	}
}

// kongsync running with only the deploy/ ServiceAccount's permissions (impersonated) syncs
// Kong, writes status from the publish Service and the Programmed condition, holds its Lease
// and emits Events.
func TestRunsUnderDeployedServiceAccount(t *testing.T) {
	installKongCRDs(t)
	for _, f := range []string{"namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "service.yaml"} {
		kubectl(t, "apply", "--server-side", "-f", filepath.Join(deployDir, f))
	}
	rc := plane.RestConfig()
	rc.Impersonate.UserName = "system:serviceaccount:kong:kongsync"
	rc.Impersonate.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:kong", "system:authenticated"}
	sa := kubernetes.NewForConfigOrDie(rc)
	// The ServiceAccount may list labelled CA ConfigMaps now, but never RBAC objects.
	if _, err := sa.RbacV1().ClusterRoles().List(ctxT(t), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("impersonation not in effect: listing ClusterRoles as the ServiceAccount gave %v, want Forbidden", err)
	}
	proxy, err := admin.CoreV1().Services("kong").Get(ctxT(t), "kong-proxy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	ns := newNamespace(t)
	kong := newDouble(t)
	in := startKongsync(t, "sa", "", []*kongdouble.Server{kong}, func(c *runner.Config) {
		c.RestConfig = rc
		c.UpdateStatus = true
		c.PublishService = "kong/kong-proxy"
		c.ElectionNamespace = "kong"
	})
	web := app{ns: ns, name: "web", host: "rbac.example.com"}
	web.create(t)
	waitDouble(t, kong, "config under the ServiceAccount", func() bool { return hasHost(kong, "rbac.example.com") })
	waitStatus(t, in, ns+"/web")
	if got := getIngress(t, ns, "web").Status.LoadBalancer.Ingress; len(got) != 1 || got[0].IP != proxy.Spec.ClusterIP {
		t.Errorf("status = %+v, want the publish Service's cluster IP %s", got, proxy.Spec.ClusterIP)
	}
	if _, err := admin.CoordinationV1().Leases("kong").Get(ctxT(t), "5b374a9e.konghq.com", metav1.GetOptions{}); err != nil {
		t.Errorf("Lease not created: %v", err)
	}
	bad := app{ns: ns, name: "bad", host: "bad.example.com"}
	rejectNextPost(kong, ns, "bad")
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), bad.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctxT(t), bad.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ns, "Ingress", "bad", "KongConfigurationApplyFailed")
	consumers := kongResource("v1", "kongconsumers", ns)
	kc := kongObject("v1", "KongConsumer", ns, "sa", "kong", map[string]any{"username": "sa-" + ns})
	if _, err := consumers.Create(ctxT(t), kc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitProgrammed(t, consumers, "sa", "True/Programmed")
}

// deploy/crds installs Kong's CRDs from the same module version the tests install them from
// (go.mod's pin, KIC v3.5.13's), both directories KIC installs. Checked offline: kustomize
// would fetch the remote resources.
func TestDeployCRDsPinned(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "crds", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(b, &k); err != nil {
		t.Fatal(err)
	}
	version, err := kongcrds.Version()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, dir := range []string{"ingress-controller", "ingress-controller-incubator"} {
		want = append(want, "https://"+kongcrds.Module+"/config/crd/"+dir+"?ref="+version)
	}
	if !slices.Equal(lower(k.Resources), lower(want)) {
		t.Errorf("deploy/crds resources %v, want %v", k.Resources, want)
	}
	dir, err := kongcrds.Dir()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := kongcrds.AllFiles()
	listed := 0
	for _, sub := range []string{"ingress-controller", "ingress-controller-incubator"} {
		var ks struct {
			Resources []string `json:"resources"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "config", "crd", sub, "kustomization.yaml"))
		if err != nil || yaml.Unmarshal(b, &ks) != nil {
			t.Fatalf("%s kustomization: %v", sub, err)
		}
		for _, r := range ks.Resources {
			listed++
			if !slices.Contains(files, filepath.Join(dir, "config", "crd", sub, r)) {
				t.Errorf("%s installs %s, which the tests do not", sub, r)
			}
		}
	}
	if listed != len(files) {
		t.Errorf("deploy/crds installs %d CRDs, the tests %d", listed, len(files))
	}
}

func lower(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ToLower(v)
	}
	return out
}

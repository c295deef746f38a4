// Package cp starts a real etcd and kube-apiserver on loopback for integration tests, from the
// binaries hack/setup-control-plane.sh builds (KONGSYNC_CP_BIN). It is the Go twin of
// hack/run-control-plane.sh, so tests need neither bash nor openssl.
package cp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// EnvBinDir names the directory holding etcd, kube-apiserver and kubectl.
const EnvBinDir = "KONGSYNC_CP_BIN"

// ControlPlane is a running etcd + kube-apiserver.
type ControlPlane struct {
	BinDir     string
	Dir        string
	URL        string
	Token      string
	CAFile     string
	Kubeconfig string
	// StartDuration is how long the apiserver took to answer /readyz.
	StartDuration time.Duration

	etcd, apiserver *proc
	apiserverArgs   []string
	restarts        int
}

// proc is a child process and a channel closed when it exits.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start launches both processes in a fresh directory and waits (up to timeout) for /readyz.
func Start(binDir string, timeout time.Duration) (*ControlPlane, error) {
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
			return nil, fmt.Errorf("%s missing in %s (run hack/setup-control-plane.sh): %w", b, binDir, err)
		}
	}
	dir, err := os.MkdirTemp("", "kongsync-cp-")
	if err != nil {
		return nil, err
	}
	c := &ControlPlane{BinDir: binDir, Dir: dir}
	if err := c.start(timeout); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *ControlPlane) start(timeout time.Duration) error {
	t0 := time.Now()
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	certs := filepath.Join(c.Dir, "certs")
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return err
	}
	if err := writeSAKey(certs); err != nil {
		return err
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	c.Token = hex.EncodeToString(tok)
	// A static token in system:masters: full access even with RBAC on.
	if err := os.WriteFile(filepath.Join(certs, "tokens.csv"), []byte(c.Token+",admin,admin,system:masters\n"), 0o600); err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	c.etcd, err = c.spawn("etcd", "etcd.log", "--name=test", "--data-dir="+filepath.Join(c.Dir, "etcd-data"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=test="+peerURL, "--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return err
	}
	c.apiserverArgs = []string{"--etcd-servers=" + etcdURL, "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(ports[2]),
		// 1.37 on loopback: the lease endpoint reconciler refuses 127.0.0.1.
		"--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
		"--cert-dir=" + certs, "--token-auth-file=" + filepath.Join(certs, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(certs, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(certs, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24", "--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true"}
	c.apiserver, err = c.spawn("kube-apiserver", "apiserver.log", c.apiserverArgs...)
	if err != nil {
		return err
	}
	c.URL = "https://127.0.0.1:" + strconv.Itoa(ports[2])
	c.CAFile = filepath.Join(certs, "apiserver.crt")
	if err := c.waitReady(timeout); err != nil {
		return err
	}
	c.StartDuration = time.Since(t0)
	return c.writeKubeconfig()
}

func (c *ControlPlane) spawn(bin, logName string, args ...string) (*proc, error) {
	logf, err := os.Create(filepath.Join(c.Dir, logName))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(c.BinDir, bin), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group: a test binary killed by a timeout must not leave them behind forever;
	// Stop signals the group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(p.exited) }()
	return p, nil
}

// waitReady polls /readyz: there is no event to wait on for another process becoming ready.
func (c *ControlPlane) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if _, err := os.Stat(c.CAFile); err == nil {
			cs, err := kubernetes.NewForConfig(c.RestConfig())
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_, last = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
				cancel()
				if last == nil {
					return nil
				}
			}
		}
		select {
		case <-c.apiserver.exited:
			deadline = time.Now()
		case <-time.After(100 * time.Millisecond):
		}
	}
	log, _ := os.ReadFile(filepath.Join(c.Dir, "apiserver.log"))
	if len(log) > 3000 {
		log = log[len(log)-3000:]
	}
	return fmt.Errorf("kube-apiserver not ready after %s (last error: %v); log tail:\n%s", timeout, last, log)
}

// RestartAPIServer stops kube-apiserver (SIGTERM) and starts it again on the same port with the
// same etcd, certificates and tokens, as a control-plane upgrade or crash would. Clients see
// connection errors, then watches must resume. It returns once /readyz answers again.
func (c *ControlPlane) RestartAPIServer(timeout time.Duration) (time.Duration, error) {
	t0 := time.Now()
	stopProc(c.apiserver)
	c.restarts++
	var err error
	c.apiserver, err = c.spawn("kube-apiserver", fmt.Sprintf("apiserver-%d.log", c.restarts), c.apiserverArgs...)
	if err != nil {
		return 0, err
	}
	return time.Since(t0), c.waitReady(timeout)
}

// RestConfig is an admin (system:masters) client config.
func (c *ControlPlane) RestConfig() *rest.Config {
	return &rest.Config{Host: c.URL, BearerToken: c.Token, TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile},
		QPS: 100, Burst: 200}
}

func (c *ControlPlane) writeKubeconfig() error {
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, certificate-authority: %q}
users:
- name: admin
  user: {token: %q}
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
`, c.URL, c.CAFile, c.Token)
	return os.WriteFile(c.Kubeconfig, []byte(kc), 0o600)
}

// Stop terminates both processes (SIGTERM, SIGKILL after 10 s) and removes the directory
// unless KONGSYNC_CP_KEEP is set.
func (c *ControlPlane) Stop() {
	for _, p := range []*proc{c.apiserver, c.etcd} {
		stopProc(p)
	}
	if os.Getenv("KONGSYNC_CP_KEEP") == "" && c.Dir != "" {
		_ = os.RemoveAll(c.Dir)
	}
}

// stopProc sends SIGTERM, then SIGKILL after 10 s, and waits for the exit.
func stopProc(p *proc) {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

func freePorts(n int) ([]int, error) {
	var out []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

func writeSAKey(dir string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	return errors.Join(os.WriteFile(filepath.Join(dir, "sa.key"), priv, 0o600),
		os.WriteFile(filepath.Join(dir, "sa.pub"), pub, 0o600))
}

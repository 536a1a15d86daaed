// Command testenv runs a real, local Kubernetes control plane for kubeloop's
// integration tests: embedded etcd, kube-apiserver and (optionally) a
// kube-controller-manager limited to the garbage-collector, namespace,
// serviceaccount and clusterrole-aggregation controllers. With -workloads (the default) the
// deployment and replicaset controllers, kube-scheduler and KWOK's simulated
// nodes join them, so Pods run without a container runtime (workloads.go).
// Everything listens on 127.0.0.1 only.
//
// Once ready it prints one line on stdout (JSON by default, or
// KUBECONFIG=<path> with -print=env) and runs until SIGINT/SIGTERM, or until
// stdin closes when -exit-on-stdin-eof is set (so a crashed parent leaves
// nothing behind). The state directory also holds the PKI (ca.key included, so
// tests can mint client certificates) and the component logs.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	dir := flag.String("dir", "", "state directory (default: a new temporary directory, removed on exit)")
	binDir := flag.String("bin", "", "directory holding kube-apiserver and kube-controller-manager (default: next to this binary)")
	withKCM := flag.Bool("controller-manager", true, "also run kube-controller-manager (garbage collector, namespace and serviceaccount controllers)")
	printFmt := flag.String("print", "json", "ready line format: json or env")
	stdinEOF := flag.Bool("exit-on-stdin-eof", false, "stop when standard input is closed")
	logFile := flag.String("log-file", "", "once ready, send testenv's own log lines here instead of stderr")
	var apiserverArgs stringList
	flag.Var(&apiserverArgs, "apiserver-arg", "extra kube-apiserver flag, e.g. -apiserver-arg=--feature-gates=WatchList=false (repeatable)")
	var wl workloadOptions
	wl.register(flag.CommandLine)
	flag.Parse()
	if err := run(*dir, *binDir, *withKCM, *printFmt, *stdinEOF, *logFile, wl, apiserverArgs); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "testenv: "+format+"\n", args...)
}

func run(dir, binDir string, withKCM bool, printFmt string, stdinEOF bool, logFile string, wl workloadOptions, apiserverArgs []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if stdinEOF {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "kubeloop-testenv-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if binDir == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		binDir = filepath.Dir(exe)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	started := time.Now()

	keys, err := makePKI(dir)
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	etcd, etcdURL, err := startEtcd(p("etcd"), p("etcd.log"))
	if err != nil {
		return fmt.Errorf("etcd: %w (log: %s)", err, p("etcd.log"))
	}
	defer etcd.Close()
	logf("etcd ready at %s after %v", etcdURL, time.Since(started).Round(time.Millisecond))

	port, err := freePort()
	if err != nil {
		return err
	}
	server := "https://127.0.0.1:" + strconv.Itoa(port)
	apiserverFlags := []string{
		"--advertise-address=127.0.0.1",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p("apiserver.crt"),
		"--tls-private-key-file=" + p("apiserver.key"),
		"--client-ca-file=" + p("ca.crt"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p("sa.pub"),
		"--service-account-signing-key-file=" + p("sa.key"),
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--etcd-servers=" + etcdURL,
		// TaintNodesByCondition would taint new Nodes not-ready until the node-lifecycle controller,
		// which does not run here, lifts it: simulated Nodes would never take Pods.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		"--cert-dir=" + p("apiserver-certs"),
		"--v=1",
	}
	// Sharded list and watch (alpha since v1.36) is on where the release has it; -apiserver-arg flags come
	// after, so -apiserver-arg=--feature-gates=ShardedListAndWatch=false turns it off again (repeated
	// --feature-gates flags merge).
	if minor, err := apiserverMinor(filepath.Join(binDir, "kube-apiserver")); err != nil {
		return err
	} else if minor >= 36 {
		apiserverFlags = append(apiserverFlags, "--feature-gates=ShardedListAndWatch=true")
	}
	apiserverFlags = append(apiserverFlags, apiserverArgs...)
	// Restartable, so the control endpoint can kill it and start it again on the same etcd.
	apiserver, err := newRestartable(func() (*child, error) {
		return startChild(ctx, filepath.Join(binDir, "kube-apiserver"), p("kube-apiserver.log"), apiserverFlags)
	})
	if err != nil {
		return err
	}
	defer apiserver.stop()

	client, err := adminClient(keys)
	if err != nil {
		return err
	}
	for _, path := range []string{"/readyz", "/api/v1/namespaces/default"} {
		if err := waitOK(ctx, client, server+path, apiserver.current().exited, 3*time.Minute); err != nil {
			return fmt.Errorf("kube-apiserver %s: %w (log: %s)", path, err, p("kube-apiserver.log"))
		}
	}
	logf("kube-apiserver ready at %s after %v", server, time.Since(started).Round(time.Millisecond))
	kubeconfig := p("kubeconfig")
	if err := os.WriteFile(kubeconfig, renderKubeconfig(server, keys), 0o600); err != nil {
		return err
	}

	var work *workloads
	if wl.enabled {
		if work, err = startWorkloads(ctx, wl, binDir, dir, kubeconfig, server, client); err != nil {
			return err
		}
		defer work.stop()
	}

	if withKCM {
		kcm, err := startChild(ctx, filepath.Join(binDir, "kube-controller-manager"), p("kube-controller-manager.log"), append([]string{
			"--kubeconfig=" + kubeconfig,
			"--controllers=" + wl.kcmControllers(),
			"--leader-elect=false",
			"--secure-port=0",
			"--v=1",
		}, wl.clientArgs()...))
		if err != nil {
			return err
		}
		defer kcm.stop()
		// The serviceaccount controller creating "default" proves the controllers run.
		if err := waitOK(ctx, client, server+"/api/v1/namespaces/default/serviceaccounts/default", kcm.exited, 3*time.Minute); err != nil {
			return fmt.Errorf("kube-controller-manager: %w (log: %s)", err, p("kube-controller-manager.log"))
		}
		logf("kube-controller-manager ready after %v", time.Since(started).Round(time.Millisecond))
	}
	if work != nil {
		if err := work.waitReady(ctx, client, server, dir); err != nil {
			return err
		}
		logf("kube-scheduler and %d simulated nodes ready after %v", len(work.nodes), time.Since(started).Round(time.Millisecond))
	}

	faults := &faultControl{apiserver: apiserver, etcd: etcd, apiserverReady: func(c context.Context) error {
		return waitOK(c, client, server+"/readyz", apiserver.current().exited, 3*time.Minute)
	}}
	control, stopControl, err := serveControl(keys.ca, etcdURL, faults)
	if err != nil {
		return err
	}
	defer stopControl()

	switch printFmt {
	case "env":
		fmt.Printf("KUBECONFIG=%s\n", kubeconfig)
	default:
		_ = json.NewEncoder(os.Stdout).Encode(map[string]string{
			"server": server, "kubeconfig": kubeconfig, "dir": dir, "etcd": etcdURL, "control": control,
		})
	}
	if logFile != "" {
		// A parent that stops reading our stderr pipe after the ready line must not block us.
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := syscall.Dup2(int(f.Fd()), 2); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		logf("stopping")
		return nil
	case err := <-apiserver.crashed:
		return fmt.Errorf("kube-apiserver exited: %v (log: %s)", err, p("kube-apiserver.log"))
	}
}

// child is a control-plane process whose output goes to a log file.
type child struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

func startChild(ctx context.Context, bin, logPath string, args []string) (*child, error) {
	return startChildEnv(ctx, bin, logPath, args, nil)
}

// startChildEnv is startChild with extra environment variables on top of testenv's own.
func startChildEnv(ctx context.Context, bin, logPath string, args, env []string) (*child, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Appending: a restarted component adds to the log of its previous run.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	// Best effort: if testenv dies hard, the kernel stops the child too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &child{cmd: cmd, exited: make(chan struct{})}
	go func() { c.err = cmd.Wait(); logFile.Close(); close(c.exited) }()
	return c, nil
}

// stop asks for a graceful exit and kills the process after 20 seconds.
func (c *child) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

func adminClient(keys *pki) (*http.Client, error) {
	pair, err := tls.X509KeyPair(keys.admin.certPEM, keys.admin.keyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(keys.ca.cert)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}},
	}}, nil
}

func waitOK(ctx context.Context, c *http.Client, u string, exited <-chan struct{}, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	last := "no answer"
	for time.Now().Before(deadline) {
		if r, err := c.Get(u); err == nil {
			_ = r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return nil
			}
			last = r.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return errors.New("process exited")
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready after %v (last: %s)", limit, last)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func renderKubeconfig(server string, keys *pki) []byte {
	b := base64.StdEncoding.EncodeToString
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: testenv-admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: testenv
  context:
    cluster: testenv
    user: testenv-admin
    namespace: default
current-context: testenv
`, server, b(keys.ca.certPEM), b(keys.admin.certPEM), b(keys.admin.keyPEM)))
}

// apiserverMinor is the minor version of a kube-apiserver binary ("Kubernetes v1.37.2" -> 37).
func apiserverMinor(bin string) (int, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("%s --version: %w", bin, err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "Kubernetes v%d.%d", &major, &minor); err != nil {
		return 0, fmt.Errorf("%s --version printed %q: %w", bin, out, err)
	}
	return minor, nil
}

package main

// Workloads that come alive without a container runtime: kube-scheduler places Pods on Nodes that
// KWOK simulates. KWOK plays the kubelet's part through its "stages" (node Ready; pod Running and
// Ready; Job pods Succeeded; deleted pods removed), so a Deployment goes all the way to available.
// kube-controller-manager's deployment and replicaset controllers are added by main.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// kwokAnnotation marks the Nodes KWOK manages (it ignores every other Node).
const kwokAnnotation = "kwok.x-k8s.io/node"

// workloadControllers are the kube-controller-manager controllers that turn Deployments into
// ReplicaSets and ReplicaSets into Pods.
var workloadControllers = []string{"deployment-controller", "replicaset-controller"}

// requireBinaries names every missing file at once, so an old binary directory is easy to diagnose.
func requireBinaries(binDir string, names ...string) error {
	var missing []string
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(binDir, n)); err != nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%v not found in %s: rebuild with tests/testenv/build.sh, or pass -workloads=false", missing, binDir)
	}
	return nil
}

// startScheduler runs kube-scheduler without leader election. It serves /readyz on a free
// loopback port with the apiserver's certificate (signed by the test CA, valid for 127.0.0.1), so
// the admin client can check it; that path needs no authorization.
func startScheduler(ctx context.Context, binDir, dir, kubeconfig string, extraArgs []string) (*child, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	c, err := startChild(ctx, filepath.Join(binDir, "kube-scheduler"), p("kube-scheduler.log"), append([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p("apiserver.crt"),
		"--tls-private-key-file=" + p("apiserver.key"),
		"--v=1",
	}, extraArgs...))
	if err != nil {
		return nil, "", err
	}
	return c, "https://127.0.0.1:" + strconv.Itoa(port) + "/readyz", nil
}

// startKWOK runs KWOK with the stages build.sh copied from its module, managing only the Nodes
// that carry kwokAnnotation. Its HOME is inside the state directory, so a user's ~/.kwok
// configuration is neither read nor written.
func startKWOK(ctx context.Context, binDir, dir, kubeconfig string) (*child, error) {
	home := filepath.Join(dir, "kwok-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	c, err := startChildEnv(ctx, filepath.Join(binDir, "kwok"), filepath.Join(dir, "kwok.log"), []string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + filepath.Join(binDir, "kwok-stages.yaml"),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokAnnotation + "=fake",
		// Pod IPs: a /16 outside the service range holds thousands of simulated Pods.
		"--cidr=10.244.0.0/16",
	}, []string{"HOME=" + home})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// nodeManifest is a Node as a real kubelet would register it, marked for KWOK, with an address
// of its own; the rest of its status (Ready, capacity, node info) comes from KWOK's
// node-initialize stage.
func nodeManifest(name, ip string) map[string]any {
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "Node",
		"metadata": map[string]any{
			"name": name,
			"annotations": map[string]string{
				kwokAnnotation: "fake",
				// No kubelet watches the Node, so its object TTL hint is moot.
				"node.alpha.kubernetes.io/ttl": "0",
			},
			"labels": map[string]string{
				"kubernetes.io/hostname":        name,
				"kubernetes.io/os":              "linux",
				"kubernetes.io/arch":            "amd64",
				"node-role.kubernetes.io/agent": "",
				"type":                          "kwok",
			},
		},
		"status": map[string]any{
			"addresses": []map[string]string{
				{"type": "InternalIP", "address": ip},
				{"type": "Hostname", "address": name},
			},
		},
	}
}

// createNodes registers n simulated Nodes, kwok-node-0 … kwok-node-<n-1>.
func createNodes(ctx context.Context, c *http.Client, server string, n int) ([]string, error) {
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		name := "kwok-node-" + strconv.Itoa(i)
		ip := fmt.Sprintf("10.243.%d.%d", i/250, i%250+1)
		body, err := json.Marshal(nodeManifest(name, ip))
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, server+"/api/v1/nodes", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("create node %s: %w", name, err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			return nil, fmt.Errorf("create node %s: %s", name, res.Status)
		}
		names = append(names, name)
	}
	return names, nil
}

// waitNodesReady waits until every named Node reports condition Ready=True (set by KWOK).
func waitNodesReady(ctx context.Context, c *http.Client, server string, names []string, exited <-chan struct{}, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	pending := append([]string(nil), names...)
	for time.Now().Before(deadline) {
		var still []string
		for _, name := range pending {
			if ready, _ := nodeReady(ctx, c, server, name); !ready {
				still = append(still, name)
			}
		}
		if pending = still; len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return errors.New("process exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("nodes %v not Ready after %v", pending, limit)
}

func nodeReady(ctx context.Context, c *http.Client, server, name string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/api/v1/nodes/"+name, nil)
	if err != nil {
		return false, err
	}
	res, err := c.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return false, errors.New(res.Status)
	}
	var node struct {
		Status struct {
			Conditions []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
			} `json:"conditions"`
		} `json:"status"`
	}
	if err := json.NewDecoder(res.Body).Decode(&node); err != nil {
		return false, err
	}
	for _, cond := range node.Status.Conditions {
		if cond.Type == "Ready" {
			return cond.Status == "True", nil
		}
	}
	return false, nil
}

// workloadOptions are the command-line switches for scheduling and simulated nodes.
type workloadOptions struct {
	enabled      bool
	nodes        int
	unlimitedQPS bool
}

func (o *workloadOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.enabled, "workloads", true, "make workloads run: kube-scheduler, KWOK's simulated nodes and pods, "+
		"and (with -controller-manager) the deployment and replicaset controllers")
	fs.IntVar(&o.nodes, "nodes", 3, "number of simulated nodes (with -workloads)")
	fs.BoolVar(&o.unlimitedQPS, "unlimited-qps", false, "lift the client-side rate limits of kube-controller-manager "+
		"(20 requests/s by default) and kube-scheduler (50/s), so scale tests measure more than those limits")
}

// clientArgs are the rate-limit flags kube-controller-manager and kube-scheduler both take.
func (o *workloadOptions) clientArgs() []string {
	if !o.unlimitedQPS {
		return nil
	}
	return []string{"--kube-api-qps=5000", "--kube-api-burst=10000"}
}

// kcmControllers is the kube-controller-manager --controllers list.
func (o *workloadOptions) kcmControllers() string {
	list := []string{
		"garbage-collector-controller", "namespace-controller", "serviceaccount-controller",
		// Fills the aggregated ClusterRoles (admin, edit, view) that RoleBindings commonly name.
		"clusterrole-aggregation-controller",
	}
	if o.enabled {
		list = append(list, workloadControllers...)
	}
	return strings.Join(list, ",")
}

// workloads are the running scheduler and KWOK, and the Nodes they were given.
type workloads struct {
	scheduler, kwok *child
	readyz          string
	nodes           []string
}

// startWorkloads starts kube-scheduler and KWOK and registers the simulated Nodes; waitReady
// then waits for both, so their start-up overlaps kube-controller-manager's.
func startWorkloads(ctx context.Context, o workloadOptions, binDir, dir, kubeconfig, server string, c *http.Client) (*workloads, error) {
	if o.nodes < 1 {
		return nil, fmt.Errorf("-nodes=%d: at least one simulated node is needed (or pass -workloads=false)", o.nodes)
	}
	if err := requireBinaries(binDir, "kube-scheduler", "kwok", "kwok-stages.yaml"); err != nil {
		return nil, err
	}
	w := &workloads{}
	var err error
	if w.scheduler, w.readyz, err = startScheduler(ctx, binDir, dir, kubeconfig, o.clientArgs()); err != nil {
		return nil, err
	}
	if w.kwok, err = startKWOK(ctx, binDir, dir, kubeconfig); err != nil {
		w.stop()
		return nil, err
	}
	if w.nodes, err = createNodes(ctx, c, server, o.nodes); err != nil {
		w.stop()
		return nil, err
	}
	return w, nil
}

func (w *workloads) waitReady(ctx context.Context, c *http.Client, server, dir string) error {
	if err := waitOK(ctx, c, w.readyz, w.scheduler.exited, 3*time.Minute); err != nil {
		return fmt.Errorf("kube-scheduler: %w (log: %s)", err, filepath.Join(dir, "kube-scheduler.log"))
	}
	if err := waitNodesReady(ctx, c, server, w.nodes, w.kwok.exited, 3*time.Minute); err != nil {
		return fmt.Errorf("kwok: %w (log: %s)", err, filepath.Join(dir, "kwok.log"))
	}
	return nil
}

func (w *workloads) stop() {
	for _, c := range []*child{w.scheduler, w.kwok} {
		if c != nil {
			c.stop()
		}
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

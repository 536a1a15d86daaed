// The controller-runtime peer of bench/priority/run.ts: a controller-runtime v0.25.3 controller of the Foos
// (unstructured, read from its cache) in one namespace, whose reconcile does what kubeloop's side does
// (bench/priority/kubeloop_status.ts): write status.availableReplicas = spec.replicas with one JSON merge
// patch of the status subresource. Client-side rate limit off (QPS -1), as kubeloop's client has none;
// MaxConcurrentReconciles 1 (the default of both). Its queue is the priority queue, controller-runtime's
// default since v0.23 (-priority-queue=false: the plain rate-limited queue). It prints
// "synced <ms since start>" once the Foo informer synced; the start is $KUBELOOP_BENCH_T0_MS.
//
//	controller-runtime-status -kubeconfig=PATH -namespace=NS [-priority-queue=true] [-workers=1]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var fooKind = schema.GroupVersionKind{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Kind: "Foo"}

func newFoo() *unstructured.Unstructured {
	foo := &unstructured.Unstructured{}
	foo.SetGroupVersionKind(fooKind)
	return foo
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "controller-runtime-status: %v\n", err)
	os.Exit(1)
}

func main() {
	// -kubeconfig is controller-runtime's own flag (pkg/client/config registers it).
	namespace := flag.String("namespace", "", "namespace of the Foos")
	priorityQueue := flag.Bool("priority-queue", true, "use controller-runtime's priority queue (its default)")
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles")
	flag.Parse()
	start := time.Now()
	if ms, err := strconv.ParseInt(os.Getenv("KUBELOOP_BENCH_T0_MS"), 10, 64); err == nil {
		start = time.UnixMilli(ms)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fail(err)
	}
	cfg.QPS = -1
	ctrl.SetLogger(logr.Discard())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{UsePriorityQueue: priorityQueue},
	})
	if err != nil {
		fail(err)
	}
	c := mgr.GetClient()
	reconciler := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		foo := newFoo()
		if err := c.Get(ctx, req.NamespacedName, foo); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		replicas, _, _ := unstructured.NestedInt64(foo.Object, "spec", "replicas")
		patch := fmt.Sprintf(`{"status":{"availableReplicas":%d}}`, replicas)
		return reconcile.Result{}, c.Status().Patch(ctx, foo, client.RawPatch(types.MergePatchType, []byte(patch)))
	})
	err = ctrl.NewControllerManagedBy(mgr).
		Named("foo").
		For(newFoo()).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(reconciler)
	if err != nil {
		fail(err)
	}
	// The controller's source uses the same shared informer: once it synced, the workers start.
	err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		informer, err := mgr.GetCache().GetInformer(ctx, newFoo())
		if err != nil {
			return err
		}
		if toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
			fmt.Printf("synced %d\n", time.Since(start).Milliseconds())
		}
		<-ctx.Done()
		return nil
	}))
	if err != nil {
		fail(err)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fail(err)
	}
}

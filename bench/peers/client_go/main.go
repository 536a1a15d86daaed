// Cold-sync probe for the side-by-side bench (bench/peers/cold_sync.ts): a client-go SharedInformerFactory
// lists and watches ConfigMaps (or, with -resource=foos, a dynamic informer lists and watches Foos) in
// one namespace; once cache.WaitForCacheSync returns and the store holds the expected count, it prints
// "synced <count> <ms since process start>" and exits. The start is $KUBELOOP_BENCH_T0_MS (epoch ms,
// set by the harness just before it starts the process), else package initialisation.
//
// -json forces JSON for built-in kinds (what client-go always uses for custom resources);
// -strip-managed-fields installs controller-runtime's TransformStripManagedFields equivalent.
//
//	client-go-informer -kubeconfig=PATH -namespace=NS -expect=N [-resource=configmaps|foos] [-json] [-strip-managed-fields]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var start = time.Now()

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig")
	namespace := flag.String("namespace", "default", "namespace to watch")
	expect := flag.Int("expect", 0, "number of objects the cache must hold")
	resource := flag.String("resource", "configmaps", "configmaps or foos")
	asJSON := flag.Bool("json", false, "use JSON instead of protobuf for built-in kinds")
	strip := flag.Bool("strip-managed-fields", false, "drop metadata.managedFields before caching")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	// The benchmark measures the informer, not client-go's default 5 qps limiter.
	cfg.QPS, cfg.Burst = -1, 0
	if *asJSON {
		cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var informer cache.SharedIndexInformer
	var run, shutdown func()
	if *resource == "foos" {
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			fail(err)
		}
		factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, *namespace, nil)
		gvr := schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}
		informer = factory.ForResource(gvr).Informer()
		run, shutdown = func() { factory.Start(ctx.Done()) }, factory.Shutdown
	} else {
		clientset, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			fail(err)
		}
		factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(*namespace))
		informer = factory.Core().V1().ConfigMaps().Informer()
		run, shutdown = func() { factory.Start(ctx.Done()) }, factory.Shutdown
	}
	if *strip {
		// What controller-runtime's cache.TransformStripManagedFields does.
		_ = informer.SetTransform(func(obj any) (any, error) {
			if m, err := meta.Accessor(obj); err == nil {
				m.SetManagedFields(nil)
			}
			return obj, nil
		})
	}
	run()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		fail(fmt.Errorf("cache did not sync"))
	}
	store := informer.GetStore()
	for len(store.ListKeys()) < *expect {
		if ctx.Err() != nil {
			fail(fmt.Errorf("only %d of %d objects", len(store.ListKeys()), *expect))
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start).Milliseconds()
	if t0, err := strconv.ParseInt(os.Getenv("KUBELOOP_BENCH_T0_MS"), 10, 64); err == nil && t0 > 0 {
		elapsed = time.Now().UnixMilli() - t0
	}
	fmt.Printf("synced %d %d\n", len(store.ListKeys()), elapsed)
	cancel()
	shutdown()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "client-go-informer:", err)
	os.Exit(1)
}

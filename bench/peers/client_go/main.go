// Cold-sync probe for the side-by-side bench (bench/peers/run.sh): a client-go SharedInformerFactory
// lists and watches ConfigMaps in one namespace; once cache.WaitForCacheSync returns and the store
// holds the expected count, it prints "synced <count> <ms since process start>" and exits. The start is
// $KUBELOOP_BENCH_T0_MS (epoch ms, set by the harness just before it starts the process), else
// package initialisation.
//
//	client-go-informer -kubeconfig=PATH -namespace=NS -expect=N
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var start = time.Now()

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig")
	namespace := flag.String("namespace", "default", "namespace to watch")
	expect := flag.Int("expect", 0, "number of ConfigMaps the cache must hold")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	// The benchmark measures the informer, not client-go's default 5 qps limiter.
	cfg.QPS, cfg.Burst = -1, 0
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(*namespace))
	informer := factory.Core().V1().ConfigMaps().Informer()
	factory.Start(ctx.Done())
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
	factory.Shutdown()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "client-go-informer:", err)
	os.Exit(1)
}

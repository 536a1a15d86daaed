// Our Go stand-in for Kubernetes' sample-controller (which is not in the Go module proxy), written for
// bench/controller: Foo -> Deployment with client-go v0.37.2, the same shape as upstream's controller
// (two informer factories with a 30 s resync, a rate-limited work queue with 2 workers, create the
// Deployment when missing, update it when replicas differ, UpdateStatus and a "Synced" event on every
// sync) but Foos go through the dynamic client, since the generated Foo clientset is upstream-only.
// It prints "ready" once both caches synced.
//
//	go-sample-controller -server=URL -token-file=PATH -ca-file=PATH
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

var foos = schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}

func main() {
	server := flag.String("server", "", "API server URL")
	tokenFile := flag.String("token-file", "", "bearer token file")
	caFile := flag.String("ca-file", "", "CA bundle")
	flag.Parse()
	// client-go's default QPS 5 / burst 10 apply, as in sample-controller.
	cfg := &rest.Config{Host: *server, BearerTokenFile: *tokenFile, TLSClientConfig: rest.TLSClientConfig{CAFile: *caFile}}
	kube := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	kubeFactory := kubeinformers.NewSharedInformerFactory(kube, 30*time.Second)
	fooFactory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 30*time.Second)
	deployments := kubeFactory.Apps().V1().Deployments()
	fooInformer := fooFactory.ForResource(foos)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "sample-controller"})
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](5*time.Millisecond, 1000*time.Second),
		&workqueue.TypedBucketRateLimiter[cache.ObjectName]{Limiter: rate.NewLimiter(rate.Limit(50), 300)},
	))
	enqueue := func(obj any) {
		if name, err := cache.ObjectToName(obj); err == nil {
			queue.Add(name)
		}
	}
	fooInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	handleObject := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if m, err := meta.Accessor(obj); err == nil {
			if owner := metav1.GetControllerOf(m); owner != nil && owner.Kind == "Foo" {
				queue.Add(cache.ObjectName{Namespace: m.GetNamespace(), Name: owner.Name})
			}
		}
	}
	deployments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: handleObject, DeleteFunc: handleObject,
		UpdateFunc: func(old, obj any) {
			if old.(*appsv1.Deployment).ResourceVersion != obj.(*appsv1.Deployment).ResourceVersion {
				handleObject(obj)
			}
		},
	})

	sync := func(key cache.ObjectName) error {
		got, err := fooInformer.Lister().ByNamespace(key.Namespace).Get(key.Name)
		if errors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		foo := got.(*unstructured.Unstructured)
		name, _, _ := unstructured.NestedString(foo.Object, "spec", "deploymentName")
		replicas, hasReplicas, _ := unstructured.NestedInt64(foo.Object, "spec", "replicas")
		if name == "" {
			return nil
		}
		want := newDeployment(foo, name, int32(replicas))
		d, err := deployments.Lister().Deployments(key.Namespace).Get(name)
		if errors.IsNotFound(err) {
			d, err = kube.AppsV1().Deployments(key.Namespace).Create(ctx, want, metav1.CreateOptions{FieldManager: "sample-controller"})
		}
		if err != nil {
			return err
		}
		if !metav1.IsControlledBy(d, foo) {
			recorder.Eventf(foo, corev1.EventTypeWarning, "ErrResourceExists", "Resource %q already exists and is not managed by Foo", d.Name)
			return fmt.Errorf("resource %q already exists and is not managed by Foo", d.Name)
		}
		if hasReplicas && d.Spec.Replicas != nil && int64(*d.Spec.Replicas) != replicas {
			if d, err = kube.AppsV1().Deployments(key.Namespace).Update(ctx, want, metav1.UpdateOptions{FieldManager: "sample-controller"}); err != nil {
				return err
			}
		}
		fooCopy := foo.DeepCopy()
		_ = unstructured.SetNestedField(fooCopy.Object, int64(d.Status.AvailableReplicas), "status", "availableReplicas")
		if _, err := dyn.Resource(foos).Namespace(key.Namespace).UpdateStatus(ctx, fooCopy, metav1.UpdateOptions{FieldManager: "sample-controller"}); err != nil {
			return err
		}
		recorder.Event(foo, corev1.EventTypeNormal, "Synced", "Foo synced successfully")
		return nil
	}

	kubeFactory.Start(ctx.Done())
	fooFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), deployments.Informer().HasSynced, fooInformer.Informer().HasSynced) {
		fmt.Fprintln(os.Stderr, "go-sample-controller: caches did not sync")
		os.Exit(1)
	}
	fmt.Println("ready")
	for range 2 {
		go func() {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				if err := sync(key); err != nil {
					queue.AddRateLimited(key)
				} else {
					queue.Forget(key)
				}
				queue.Done(key)
			}
		}()
	}
	<-ctx.Done()
	queue.ShutDown()
}

func newDeployment(foo *unstructured.Unstructured, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.GetName()}
	owner := metav1.NewControllerRef(foo, schema.GroupVersionKind{Group: foos.Group, Version: foos.Version, Kind: "Foo"})
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: foo.GetNamespace(), OwnerReferences: []metav1.OwnerReference{*owner}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
}

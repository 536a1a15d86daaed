//! Cold-sync probe of kube-rs for bench/peers/cold_sync.ts: a reflector over a watcher of ConfigMaps
//! (typed, k8s-openapi) or Foos (`DynamicObject`, third argument "foos") in one namespace; once the
//! store is ready and holds the expected count, prints "synced <count> <ms since process start>" and
//! exits. The start is $KUBELOOP_BENCH_T0_MS (epoch ms, set by the harness just before it starts the
//! process), else the start of `main`.
//!
//!     KUBECONFIG=PATH kube-rs-informer <namespace> <expect> [configmaps|foos]
use std::fmt::Debug;
use std::hash::Hash;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::serde::de::DeserializeOwned;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::reflector::store::Writer;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube::{Api, Client, Resource};

#[tokio::main]
async fn main() {
    let start = Instant::now();
    let mut args = std::env::args().skip(1);
    let namespace = args.next().expect("usage: kube-rs-informer <namespace> <expect> [configmaps|foos]");
    let expect: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let resource = args.next().unwrap_or_else(|| "configmaps".to_string());

    let client = Client::try_default().await.expect("kubeconfig");
    if resource == "foos" {
        let gvk = GroupVersionKind::gvk("samplecontroller.k8s.io", "v1alpha1", "Foo");
        let ar = ApiResource::from_gvk_with_plural(&gvk, "foos");
        let api: Api<DynamicObject> = Api::namespaced_with(client, &namespace, &ar);
        sync(api, ar, expect, start).await;
    } else {
        let api: Api<ConfigMap> = Api::namespaced(client, &namespace);
        sync(api, (), expect, start).await;
    }
}

async fn sync<K>(api: Api<K>, dyntype: K::DynamicType, expect: usize, start: Instant)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Send + Sync + 'static,
{
    let writer = Writer::<K>::new(dyntype);
    let reader = writer.as_reader();
    let stream = reflector(writer, watcher(api, watcher::Config::default()))
        .default_backoff()
        .applied_objects();
    let driver = tokio::spawn(stream.for_each(|_| futures::future::ready(())));

    let deadline = Instant::now() + Duration::from_secs(300);
    reader.wait_until_ready().await.expect("reflector dropped");
    while reader.len() < expect {
        assert!(Instant::now() < deadline, "only {} of {} objects", reader.len(), expect);
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let t0: u128 = std::env::var("KUBELOOP_BENCH_T0_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let elapsed = if t0 > 0 {
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis().saturating_sub(t0)
    } else {
        start.elapsed().as_millis()
    };
    println!("synced {} {}", reader.len(), elapsed);
    driver.abort();
}

/**
 * Typed refs carry their object type: informers, stores and client calls infer it, so user code needs no
 * casts for core kinds. The assertions are type-level (`deno check` proves them) plus a run-time smoke test.
 */
import assert from "node:assert/strict";
import { type Informer, SharedInformerFactory } from "../../lib/cache/mod.ts";
import type { KubeClient } from "../../lib/client/mod.ts";
import {
  CONFIG_MAPS,
  type ConfigMap,
  CUSTOM_RESOURCE_DEFINITIONS,
  type CustomResourceDefinition,
  DAEMON_SETS,
  type DaemonSet,
  type Deployment,
  DEPLOYMENTS,
  type Event,
  EVENTS,
  type Job,
  JOBS,
  type Lease,
  LEASES,
  type Namespace,
  NAMESPACES,
  type Pod,
  PODS,
  type Secret,
  SECRETS,
  type Service,
  SERVICES,
  STATEFUL_SETS,
  type StatefulSet,
} from "../../lib/resources/mod.ts";
import { type Foo, FOOS } from "../../lib/sample_controller/mod.ts";
import type { ListWatcher } from "../../lib/watch/mod.ts";

/** True only when A and B are the same type. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;
function expectType<A, B>(_proof: Equal<A, B>): void {}

const nothing: ListWatcher = {
  list: () => Promise.resolve({ metadata: {}, items: [] }),
  watch: () => Promise.resolve(new ReadableStream()),
};

Deno.test("informer(REF) is an Informer of the kind, for every generated core kind and for Foo", () => {
  const factory = new SharedInformerFactory(nothing);
  const deployments = factory.informer(DEPLOYMENTS);
  expectType<typeof deployments, Informer<Deployment>>(true);
  const informers = {
    configMaps: factory.informer(CONFIG_MAPS),
    secrets: factory.informer(SECRETS),
    pods: factory.informer(PODS),
    services: factory.informer(SERVICES),
    statefulSets: factory.informer(STATEFUL_SETS),
    daemonSets: factory.informer(DAEMON_SETS),
    jobs: factory.informer(JOBS),
    namespaces: factory.informer(NAMESPACES),
    events: factory.informer(EVENTS),
    leases: factory.informer(LEASES),
    crds: factory.informer(CUSTOM_RESOURCE_DEFINITIONS),
    foos: factory.informer(FOOS),
  };
  expectType<typeof informers.configMaps, Informer<ConfigMap>>(true);
  expectType<typeof informers.secrets, Informer<Secret>>(true);
  expectType<typeof informers.pods, Informer<Pod>>(true);
  expectType<typeof informers.services, Informer<Service>>(true);
  expectType<typeof informers.statefulSets, Informer<StatefulSet>>(true);
  expectType<typeof informers.daemonSets, Informer<DaemonSet>>(true);
  expectType<typeof informers.jobs, Informer<Job>>(true);
  expectType<typeof informers.namespaces, Informer<Namespace>>(true);
  expectType<typeof informers.events, Informer<Event>>(true);
  expectType<typeof informers.leases, Informer<Lease>>(true);
  expectType<typeof informers.crds, Informer<CustomResourceDefinition>>(true);
  expectType<typeof informers.foos, Informer<Foo>>(true);
  // Field access is typed all the way down, without a cast.
  const replicas: number | undefined = deployments.store.get("ns/web")?.spec.replicas;
  const image: string | undefined = informers.pods.store.list()[0]?.spec?.containers[0]?.image;
  assert.equal(replicas, undefined);
  assert.equal(image, undefined);
  assert.equal(factory.size, 13);
});

Deno.test("client calls infer the kind from the ref", () => {
  const typed = (c: KubeClient) => c.get(CONFIG_MAPS, "x");
  expectType<Awaited<ReturnType<typeof typed>>, ConfigMap>(true);
  const listed = (c: KubeClient) => c.list(DEPLOYMENTS);
  expectType<Awaited<ReturnType<typeof listed>>["items"][number], Deployment>(true);
  const created = (c: KubeClient) =>
    c.create(SECRETS, { metadata: { name: "s" }, stringData: { password: "x" }, type: "Opaque" });
  expectType<Awaited<ReturnType<typeof created>>, Secret>(true);
  const lease = (c: KubeClient) => c.get(LEASES, "leader", { namespace: "kube-system" });
  expectType<Awaited<ReturnType<typeof lease>>, Lease>(true);
});

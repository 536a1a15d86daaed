/**
 * A test kit for controllers built on kubeloop:
 * - {@linkcode FakeApi}: an in-memory Kubernetes API (resourceVersions, list/watch, patch/apply subsets,
 *   finalizers, garbage collection, injected conflicts and errors) that both a reconciler's client calls and
 *   real informers run against;
 * - {@linkcode FakeInformer} / {@linkcode FakeInformers}: informers the test drives by hand;
 * - {@linkcode FakeClock}, {@linkcode MemoryLogger}, {@linkcode FakeEventRecorder};
 * - {@linkcode deepFreeze}, to make cached objects fail loudly when mutated;
 * - {@linkcode startTestEnv}: a real control plane (etcd, kube-apiserver, kube-controller-manager built from
 *   the Kubernetes Go modules) for integration tests.
 * @module
 */
export { FakeApi, type FakeApiOptions, type FakeFault, type FakeRequest, type FakeVerb } from "./fake_api.ts";
export { FakeClock, flush } from "./fake_clock.ts";
export { FakeInformer, type FakeInformerOptions, FakeInformers } from "./fake_informer.ts";
export { FakeEventRecorder, type RecordedEvent } from "./fake_event_recorder.ts";
export { type LogLine, MemoryLogger } from "./memory_logger.ts";
export { deepFreeze } from "../_internal/deep_freeze.ts";
export { startTestEnv, type TestEnv, type TestEnvOptions } from "./test_env.ts";

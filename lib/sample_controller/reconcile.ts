import { ApiError } from "../client/api_error.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import type { Clock } from "../time/clock.ts";
import { systemClock } from "../time/clock.ts";
import { desiredDeployment } from "./desired_deployment.ts";
import { isControlledBy } from "../controller/mod.ts";
import { type ApplyClient, writeDeployment } from "./deployment_write.ts";
import { computeStatus, statusEqual, type StatusInput } from "./status.ts";
import { type Deployment, FIELD_MANAGER, type Foo, FOO_API_VERSION, FOOS } from "./types.ts";

export type { ApplyClient, ApplyPatchOptions, CreateOptions } from "./deployment_write.ts";

/** Read access to a cache, keyed `namespace/name` (an informer's store fits); objects are read-only. */
export interface ObjectReader<T> {
  /** The object at `namespace/name`, if cached. */
  get(key: string): DeepReadonly<T> | undefined;
}

/** The Deployment cache, plus a lookup of the Deployments a given Foo controls (an index on owner UID). */
export interface DeploymentReader extends ObjectReader<Deployment> {
  /** Deployments whose controller ownerReference has this UID. */
  controlledBy(uid: string): readonly DeepReadonly<Deployment>[];
}

/** An event about a Foo, in events.k8s.io/v1 terms. */
export interface FooEvent {
  /** Severity. */
  type: "Normal" | "Warning";
  /** CamelCase reason, e.g. "Synced". */
  reason: string;
  /** Machine-readable action taken or failed, required by events.k8s.io/v1. */
  action: string;
  /** Human-readable message. */
  note: string;
}

/** Where events go; the recorder aggregates repeats, so recording on every sync is cheap. */
export interface FooEventRecorder {
  /** Records one occurrence; never throws, never waits. */
  record(regarding: DeepReadonly<KubeObject>, event: FooEvent): void;
}

/** What the reconciler needs from the outside world. */
export interface FooReconcilerDeps {
  /** The Foo cache. */
  foos: ObjectReader<Foo>;
  /** The Deployment cache. */
  deployments: DeploymentReader;
  /** Writes: create of a missing Deployment, server-side apply. */
  client: ApplyClient;
  /** Event sink. */
  recorder: FooEventRecorder;
  /**
   * Source of condition transition times.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Debug lines about creates and applies.
   * @default {noopLogger}
   */
  logger?: Logger;
}

/** What one sync did. */
export type FooSyncResult =
  | { kind: "gone" }
  | { kind: "invalid"; statusWritten: boolean }
  | { kind: "notCached"; deployment: string }
  | { kind: "synced"; deploymentApplied: boolean; statusWritten: boolean; retained: string[] };

/** Thrown when the named Deployment exists but another owner (or nobody) controls it; the queue retries. */
export class ResourceExistsError extends Error {
  /** Namespace/name of the Deployment in the way. */
  readonly deployment: string;
  /** `deployment` is the `namespace/name` of the Deployment in the way. */
  constructor(message: string, deployment: string) {
    super(message);
    this.name = "ResourceExistsError";
    this.deployment = deployment;
  }
}

/**
 * Brings one Foo (`namespace/name`) to its desired state, level-triggered from the caches:
 * - Foo gone or being deleted: nothing (the garbage collector removes its Deployments).
 * - empty `spec.deploymentName`: `Ready=False/InvalidSpec` + a Warning event; resolves (no retry: only an edit
 *   of the Foo can fix it, and that edit triggers a new sync).
 * - a Deployment of that name not controlled by this Foo: Warning event `ErrResourceExists`,
 *   `Ready=False/ErrResourceExists`, then throws {@link ResourceExistsError} so the queue retries with backoff.
 * - no Deployment of that name in the cache: it is created (POST, field manager `kubeloop-sample-controller`).
 *   AlreadyExists means the cache has not caught up with the server: the result is `notCached` (the caller
 *   requeues) and nothing else is written, so a Deployment we have not seen is never force-applied.
 * - a Deployment this Foo controls: server-side applied (same field manager, force) when it differs in a
 *   field we own; foreign fields are untouched.
 * Status is written through the status subresource only when it changed. Deployments this Foo still controls
 * under an older `deploymentName` are left running and reported (see README: they go with the Foo).
 */
export async function reconcileFoo(
  key: string,
  deps: FooReconcilerDeps,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<FooSyncResult> {
  const { clock = systemClock, logger = noopLogger } = deps;
  const foo = deps.foos.get(key);
  if (!foo || foo.metadata.deletionTimestamp) return { kind: "gone" };
  const namespace = foo.metadata.namespace ?? "";
  const name = foo.spec?.deploymentName ?? "";
  const writeStatus = (input: StatusInput) => patchStatusIfChanged(foo, input, deps, clock, options.signal);

  if (name === "") {
    const note = "spec.deploymentName must be set to the name of the Deployment to manage";
    deps.recorder.record(foo, { type: "Warning", reason: "InvalidSpec", action: "Sync", note });
    const statusWritten = await writeStatus({ ready: false, reason: "InvalidSpec", message: note });
    return statusWritten === "gone" ? { kind: "gone" } : { kind: "invalid", statusWritten };
  }

  const live = deps.deployments.get(`${namespace}/${name}`);
  if (live && !isControlledBy(live, foo)) {
    const note = `Resource "${name}" already exists and is not managed by Foo`;
    deps.recorder.record(foo, { type: "Warning", reason: "ErrResourceExists", action: "Sync", note });
    await writeStatus({ ready: false, reason: "ErrResourceExists", message: note });
    throw new ResourceExistsError(note, `${namespace}/${name}`);
  }

  const write = await writeDeployment(desiredDeployment(foo), live, deps.client, {
    signal: options.signal,
    logger: logger.child({ foo: key }),
  });
  if (write.kind === "notCached") {
    logger.debug("Deployment exists but is not cached yet; requeueing", { foo: key, deployment: name });
    return { kind: "notCached", deployment: `${namespace}/${name}` };
  }
  const current = write.current;
  const deploymentApplied = write.kind !== "unchanged";

  const retained = retainedDeployments(foo, name, deps.deployments);
  for (const old of retained) {
    const note = `Deployment "${old}" is no longer spec.deploymentName; it is left running and is deleted ` +
      `together with this Foo`;
    deps.recorder.record(foo, { type: "Normal", reason: "DeploymentRetained", action: "Sync", note });
  }

  const available = current?.status?.availableReplicas ?? 0;
  const wanted = foo.spec?.replicas ?? current?.spec?.replicas ?? 1;
  const ready = available === wanted;
  const statusWritten = await writeStatus({
    ready,
    reason: ready ? "Available" : "Progressing",
    message: `Deployment "${name}" has ${available}/${wanted} available replicas`,
    availableReplicas: available,
  });
  if (statusWritten === "gone") return { kind: "gone" };
  deps.recorder.record(foo, {
    type: "Normal",
    reason: "Synced",
    action: "Sync",
    note: "Foo synced successfully",
  });
  return { kind: "synced", deploymentApplied, statusWritten, retained };
}

/** Names of Deployments `foo` still controls other than the one it names now, sorted. */
function retainedDeployments(
  foo: DeepReadonly<Foo>,
  current: string,
  deployments: DeploymentReader,
): string[] {
  const uid = foo.metadata.uid;
  if (!uid) return [];
  return deployments.controlledBy(uid)
    .filter((d) => d.metadata.namespace === foo.metadata.namespace && d.metadata.name !== current)
    .filter((d) => !d.metadata.deletionTimestamp)
    .map((d) => d.metadata.name ?? "")
    .sort();
}

/** Applies the computed status if it differs from the cached one; "gone" when the Foo vanished meanwhile. */
async function patchStatusIfChanged(
  foo: DeepReadonly<Foo>,
  input: StatusInput,
  deps: FooReconcilerDeps,
  clock: Clock,
  signal: AbortSignal | undefined,
): Promise<boolean | "gone"> {
  const status = computeStatus(foo, input, new Date(clock.now()));
  if (statusEqual(foo.status, status)) return false;
  const body = {
    apiVersion: FOO_API_VERSION,
    kind: "Foo",
    metadata: { name: foo.metadata.name, namespace: foo.metadata.namespace },
    status,
  };
  try {
    await deps.client.patch<Foo>(FOOS, foo.metadata.name ?? "", body, {
      type: "apply",
      subresource: "status",
      fieldManager: FIELD_MANAGER,
      force: true,
      ...(foo.metadata.namespace ? { namespace: foo.metadata.namespace } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return "gone";
    throw error;
  }
  return true;
}

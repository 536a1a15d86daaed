/**
 * A SecretCopy controller written the way a new user would write it from the docs: a SecretCopy (custom
 * resource) names a Secret in its own namespace and a list of target namespaces, and the controller keeps
 * one copy of the Secret in each target, with a finalizer (copies in other namespaces are out of the
 * garbage collector's reach), status conditions, an index from a Secret to the SecretCopies that copy it,
 * and an index from a SecretCopy to its copies. The read-your-writes tests run it on FakeApi and on the
 * real API server and count its writes.
 *
 * The minimum for a new SecretCopy with N targets is N + 2 writes: the finalizer, N creates, one status.
 * @module
 */
import { ApiError, type ResourceClient } from "../../lib/client/mod.ts";
import {
  apply,
  containsFields,
  type ControllerOptions,
  finalizer,
  findCondition,
  type InformerSource,
  jsonEqual,
  requestFor,
  setCondition,
} from "../../lib/controller/mod.ts";
import type { Condition, DeepReadonly, KubeObject, ResourceRef, Secret } from "../../lib/resources/mod.ts";
import { SECRETS } from "../../lib/resources/mod.ts";

/** What a SecretCopy asks for. */
export interface SecretCopySpec {
  /** Name of the Secret to copy, in the SecretCopy's namespace. */
  source: string;
  /** Namespaces to copy it into. */
  targets: string[];
}

/** What the controller reports. */
export interface SecretCopyStatus {
  /** The generation this status describes. */
  observedGeneration?: number;
  /** Copies in place. */
  copies?: number;
  /** The Ready condition. */
  conditions?: Condition[];
}

/** The custom resource. */
export interface SecretCopy extends KubeObject {
  /** Desired state. */
  spec?: SecretCopySpec;
  /** Observed state. */
  status?: SecretCopyStatus;
}

/** kubeloop.test/v1 secretcopies. */
export const SECRET_COPIES: ResourceRef<SecretCopy> = {
  group: "kubeloop.test",
  version: "v1",
  plural: "secretcopies",
  kind: "SecretCopy",
  namespaced: true,
};

/** The CustomResourceDefinition, for `kubectl apply`. */
export const SECRET_COPY_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "secretcopies.kubeloop.test" },
  spec: {
    group: "kubeloop.test",
    scope: "Namespaced",
    names: { kind: "SecretCopy", listKind: "SecretCopyList", plural: "secretcopies", singular: "secretcopy" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              required: ["source", "targets"],
              properties: {
                source: { type: "string" },
                targets: { type: "array", items: { type: "string" } },
              },
            },
            status: {
              type: "object",
              properties: {
                observedGeneration: { type: "integer", format: "int64" },
                copies: { type: "integer" },
                conditions: {
                  type: "array",
                  "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["type"],
                  items: {
                    type: "object",
                    required: ["type", "status", "lastTransitionTime", "reason", "message"],
                    properties: {
                      type: { type: "string" },
                      status: { type: "string" },
                      observedGeneration: { type: "integer", format: "int64" },
                      lastTransitionTime: { type: "string", format: "date-time" },
                      reason: { type: "string" },
                      message: { type: "string" },
                    },
                  },
                },
              },
            },
          },
        },
      },
    }],
  },
};

export const FINALIZER = "kubeloop.test/copies";
export const FIELD_MANAGER = "secret-copy";
/** On each copy: "<namespace>.<name>" of its SecretCopy (namespaces hold no dots). */
export const COPY_LABEL = "kubeloop.test/copy-of";
const SOURCE_INDEX = "source";
const COPY_INDEX = "copy-of";

/** Options of {@linkcode secretCopyController}. */
export interface SecretCopyOptions {
  /** Counts reconciles per key. */
  readonly reconciles?: Map<string, number>;
  /** Concurrent reconciles. */
  readonly workers?: number;
}

/**
 * The controller's options (pass them to `new Controller(informers, …)` or `Manager.controller`): SecretCopies
 * as the primary kind, and every Secret mapped to the SecretCopies that copy it (index on `spec.source`)
 * and to the SecretCopy a copy belongs to (its label).
 */
export function secretCopyController(
  informers: InformerSource,
  client: ResourceClient,
  options: SecretCopyOptions = {},
): ControllerOptions<SecretCopy> {
  const copies = informers.informer(SECRET_COPIES, {
    indexers: { [SOURCE_INDEX]: (sc) => [`${sc.metadata.namespace}/${sc.spec?.source ?? ""}`] },
  });
  const secrets = informers.informer(SECRETS, {
    indexers: { [COPY_INDEX]: (s) => s.metadata.labels?.[COPY_LABEL] ? [s.metadata.labels[COPY_LABEL]] : [] },
  });
  const copiesOf = (sc: DeepReadonly<SecretCopy>) =>
    secrets.store.byIndex(COPY_INDEX, `${sc.metadata.namespace}.${sc.metadata.name}`);

  async function sync(sc: DeepReadonly<SecretCopy>, signal: AbortSignal): Promise<{ requeue: true } | void> {
    const namespace = sc.metadata.namespace ?? "";
    const name = sc.metadata.name ?? "";
    const targets = sc.spec?.targets ?? [];
    const source = secrets.store.get(`${namespace}/${sc.spec?.source ?? ""}`);
    let behind = false;
    if (source) {
      for (const target of targets) {
        const desired = {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name, namespace: target, labels: { [COPY_LABEL]: `${namespace}.${name}` } },
          type: source.type ?? "Opaque",
          data: { ...source.data },
        } satisfies Secret;
        const live = secrets.store.get(`${target}/${name}`);
        if (!live) {
          try {
            await client.create(SECRETS, desired, { fieldManager: FIELD_MANAGER, signal });
          } catch (error) {
            if (!(error instanceof ApiError && error.reason === "AlreadyExists")) throw error;
            behind = true; // the server has it and our cache not yet: look again when it has
          }
        } else if (
          !jsonEqual(live.data ?? {}, desired.data ?? {}) || live.type !== desired.type ||
          !containsFields(live.metadata, desired.metadata)
        ) {
          await apply(client, SECRETS, desired, { fieldManager: FIELD_MANAGER, signal });
        }
      }
    }
    for (const stale of copiesOf(sc)) {
      if (targets.includes(stale.metadata.namespace ?? "")) continue;
      await deleteCopy(stale, signal);
    }
    const generation = sc.metadata.generation;
    const ready = source !== undefined;
    const conditions = setCondition<Condition>(sc.status?.conditions, {
      type: "Ready",
      status: ready ? "True" : "False",
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      reason: ready ? "Copied" : "SourceMissing",
      message: ready ? `Secret "${sc.spec?.source}" copied` : `Secret "${sc.spec?.source}" not found`,
    }, new Date());
    const status: SecretCopyStatus = {
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      copies: ready ? targets.length : 0,
      conditions: [findCondition(conditions, "Ready")!],
    };
    if (!statusEqual(sc.status, status)) {
      await apply(client, SECRET_COPIES, {
        apiVersion: "kubeloop.test/v1",
        kind: "SecretCopy",
        metadata: { name, namespace },
        status,
      }, { fieldManager: FIELD_MANAGER, subresource: "status", signal });
    }
    return behind ? { requeue: true } : undefined;
  }

  async function deleteCopy(copy: DeepReadonly<Secret>, signal: AbortSignal): Promise<void> {
    try {
      await client.delete(SECRETS, copy.metadata.name ?? "", {
        namespace: copy.metadata.namespace ?? "",
        signal,
      });
    } catch (error) {
      if (!(error instanceof ApiError && error.isNotFound)) throw error;
    }
  }

  return {
    name: "secret-copy",
    for: SECRET_COPIES,
    watches: [{
      ref: SECRETS,
      map: (secret) => {
        const bySource = copies.store.byIndex(
          SOURCE_INDEX,
          `${secret.metadata.namespace}/${secret.metadata.name}`,
        );
        const label = secret.metadata.labels?.[COPY_LABEL];
        const dot = label?.indexOf(".") ?? -1;
        const owner = label && dot > 0
          ? [{ namespace: label.slice(0, dot), name: label.slice(dot + 1) }]
          : [];
        return [...bySource.map(requestFor), ...owner];
      },
    }],
    ...(options.workers ? { workers: options.workers } : {}),
    reconcile: async (_request, ctx) => {
      options.reconciles?.set(ctx.key, (options.reconciles.get(ctx.key) ?? 0) + 1);
      const sc = copies.store.get(ctx.key);
      if (!sc) return;
      return await finalizer(client, SECRET_COPIES, sc, FINALIZER, {
        apply: (current) => sync(current as DeepReadonly<SecretCopy>, ctx.signal),
        cleanup: async (current) => {
          for (const copy of copiesOf(current as DeepReadonly<SecretCopy>)) {
            await deleteCopy(copy, ctx.signal);
          }
        },
      }, { fieldManager: FIELD_MANAGER, signal: ctx.signal });
    },
  };
}

/** True when the fields this controller owns are equal (its Ready condition compared field by field). */
function statusEqual(current: DeepReadonly<SecretCopyStatus> | undefined, next: SecretCopyStatus): boolean {
  if (current?.observedGeneration !== next.observedGeneration || current?.copies !== next.copies) {
    return false;
  }
  const have = findCondition(current?.conditions, "Ready");
  const want = findCondition(next.conditions, "Ready");
  return have !== undefined && want !== undefined && jsonEqual(have, want);
}

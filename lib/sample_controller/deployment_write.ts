import { ApiError } from "../client/api_error.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import { DEPLOYMENTS } from "../resources/refs.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import { containsFields } from "../controller/mod.ts";
import type { Logger } from "../log/logger.ts";
import { type Deployment, FIELD_MANAGER } from "./types.ts";

/** Options of a server-side apply patch (a subset of KubeClient's patch options). */
export interface ApplyPatchOptions {
  /** Always server-side apply. */
  type: "apply";
  /**
   * Namespace of the object.
   * @default {the client's namespace}
   */
  namespace?: string;
  /**
   * Owner of the applied fields.
   * @default {none: the server rejects an apply without one}
   */
  fieldManager?: string;
  /**
   * Take over fields other managers own.
   * @default {false}
   */
  force?: boolean;
  /**
   * E.g. "status".
   * @default {the main resource}
   */
  subresource?: string;
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

/** Options of a create (a subset of KubeClient's write options). */
export interface CreateOptions {
  /**
   * Namespace of the object.
   * @default {the object's own, else the client's}
   */
  namespace?: string;
  /**
   * Recorded in managedFields.
   * @default {none}
   */
  fieldManager?: string;
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

/**
 * The writes the reconciler makes (KubeClient satisfies it): a create (POST) of a Deployment the cache does
 * not hold, and server-side apply of Deployments the Foo controls and of the Foo's status.
 */
export interface ApplyClient {
  /** Sends a patch; resolves with the object as stored. */
  patch<T extends KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    patch: unknown,
    options: ApplyPatchOptions,
  ): Promise<T>;
  /** Creates an object; rejects with an ApiError whose reason is AlreadyExists when the name is taken. */
  create<T extends KubeObject>(ref: ResourceRef<T>, obj: T, options: CreateOptions): Promise<T>;
}

/** What writing the desired Deployment did; `current` is the Deployment to report status from. */
export type DeploymentWrite =
  | { kind: "created" | "applied"; current: Deployment }
  | { kind: "unchanged"; current: DeepReadonly<Deployment> }
  | { kind: "notCached" };

/**
 * Writes `desired` given `live`, the cached Deployment of that name, which the caller has checked is
 * controlled by the Foo when present:
 * - not cached: POST. The cache may lag behind the server, and a force apply over an object we have not
 *   seen would take over someone else's Deployment (fields, ownerReferences) before the ownership check
 *   could run. A create cannot: AlreadyExists means the cache is behind, answered with `notCached`, so the
 *   caller requeues and decides once the informer delivers the object.
 * - cached and drifted in a field we own: server-side apply with force, field manager
 *   `kubeloop-sample-controller` (only ever over a Deployment this Foo controls).
 * - cached and in sync: nothing.
 */
export async function writeDeployment(
  desired: Deployment,
  live: DeepReadonly<Deployment> | undefined,
  client: ApplyClient,
  options: { signal?: AbortSignal | undefined; logger: Logger },
): Promise<DeploymentWrite> {
  const name = desired.metadata.name ?? "";
  const namespace = desired.metadata.namespace;
  const common = {
    ...(namespace === undefined ? {} : { namespace }),
    fieldManager: FIELD_MANAGER,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  if (!live) {
    options.logger.debug("creating Deployment", { deployment: `${namespace}/${name}` });
    try {
      return { kind: "created", current: await client.create(DEPLOYMENTS, desired, common) };
    } catch (error) {
      if (error instanceof ApiError && error.reason === "AlreadyExists") return { kind: "notCached" };
      throw error;
    }
  }
  if (containsFields(live, desired)) return { kind: "unchanged", current: live };
  options.logger.debug("applying Deployment", { deployment: `${namespace}/${name}` });
  const current = await client.patch(DEPLOYMENTS, name, desired, {
    type: "apply",
    force: true,
    ...common,
  });
  return { kind: "applied", current };
}

/**
 * ConfigMapMirror: every ConfigMap labelled `mirror=true` gets an owned copy named `<name>-mirror` in its
 * namespace, kept equal to the source's data. Removing the label deletes the copy; deleting the source
 * lets the garbage collector delete it (controller ownerReference); editing the copy by hand is undone.
 */
import {
  ApiError,
  apply,
  type ApplyConfiguration,
  CONFIG_MAPS,
  type ConfigMap,
  controllerOf,
  type ControllerOptions,
  controllerReference,
  type DeepReadonly,
  type EventSink,
  type InformerSource,
  isControlledBy,
  jsonEqual,
  ownsSource,
  type ReconcileRequest,
  type ResourceClient,
  type Store,
} from "../../lib/mod.ts";

/** Sources carry this label with the value "true". */
export const MIRROR_LABEL = "mirror";
/** Copies carry this label, naming their source; the copies' informer selects on it. */
export const SOURCE_LABEL = "mirror.kubeloop.dev/source";
/** Owner of the fields this controller applies. */
export const FIELD_MANAGER = "configmap-mirror";

/** What the reconciler reads and writes. */
export interface MirrorDeps {
  /** Cache of the labelled ConfigMaps. */
  readonly sources: Store<ConfigMap>;
  /** Cache of the copies. */
  readonly mirrors: Store<ConfigMap>;
  /** Writes: server-side apply of copies, deletion of copies whose source lost its label. */
  readonly client: Pick<ResourceClient, "patch" | "delete">;
  /** Events about the sources. */
  readonly recorder: EventSink;
}

/** The copy a source asks for, as our server-side apply body. */
export function desiredMirror(source: DeepReadonly<ConfigMap>): ApplyConfiguration<ConfigMap> {
  const name = source.metadata.name ?? "";
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${name}-mirror`,
      ...(source.metadata.namespace ? { namespace: source.metadata.namespace } : {}),
      labels: { [SOURCE_LABEL]: name },
      ownerReferences: [controllerReference(source, CONFIG_MAPS)],
    },
    data: { ...source.data },
    binaryData: { ...source.binaryData },
  };
}

/** True when `mirror` already is the copy `source` asks for (exact data: a removed key is a change). */
function upToDate(mirror: DeepReadonly<ConfigMap>, source: DeepReadonly<ConfigMap>): boolean {
  return isControlledBy(mirror, source) && mirror.metadata.labels?.[SOURCE_LABEL] === source.metadata.name &&
    jsonEqual(mirror.data ?? {}, source.data ?? {}) &&
    jsonEqual(mirror.binaryData ?? {}, source.binaryData ?? {});
}

/**
 * Brings the copy of one source in line, level-triggered from the caches:
 * - source labelled: apply the copy when it is missing or differs (a Normal `Mirrored` event);
 * - a `<name>-mirror` that another owner controls: a Warning `MirrorConflict` event, left alone, checked
 *   again in a minute;
 * - source gone or unlabelled: delete our copy, if any (only if we control it).
 */
export async function reconcileMirror(
  { namespace, name }: ReconcileRequest,
  deps: MirrorDeps,
  signal?: AbortSignal,
): Promise<{ requeueAfterMs?: number }> {
  const key = namespace ? `${namespace}/${name}` : name;
  const source = deps.sources.get(key);
  const mirror = deps.mirrors.get(`${key}-mirror`);
  if (!source) {
    const owner = mirror && controllerOf(mirror);
    if (mirror && owner?.kind === "ConfigMap" && owner.name === name) {
      try {
        await deps.client.delete(CONFIG_MAPS, `${name}-mirror`, {
          ...(namespace ? { namespace } : {}),
          preconditions: { uid: mirror.metadata.uid ?? "" },
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        // Deleting the source lets the garbage collector delete the copy too; whoever is first wins.
        if (!(error instanceof ApiError && error.isNotFound)) throw error;
      }
    }
    return {};
  }
  if (mirror && !isControlledBy(mirror, source) && controllerOf(mirror)) {
    deps.recorder.record(source, {
      type: "Warning",
      reason: "MirrorConflict",
      note: `ConfigMap "${name}-mirror" exists and is controlled by another object; not overwriting it`,
    });
    return { requeueAfterMs: 60_000 };
  }
  if (mirror && upToDate(mirror, source)) return {};
  await apply(deps.client, CONFIG_MAPS, desiredMirror(source), {
    fieldManager: FIELD_MANAGER,
    ...(signal ? { signal } : {}),
  });
  deps.recorder.record(source, { type: "Normal", reason: "Mirrored", note: `Copied to "${name}-mirror"` });
  return {};
}

/** Where the controller gets its caches and clients. */
export interface MirrorWiring {
  /** A SharedInformerFactory (or lib/testing's fakes). */
  readonly informers: InformerSource;
  /** The API client. */
  readonly client: Pick<ResourceClient, "patch" | "delete">;
  /** Where events go. */
  readonly recorder: EventSink;
}

/**
 * The controller's options for `Manager.controller` (or `controller`): sources scoped to `mirror=true` (so
 * the cache holds only them), copies scoped to the source label, triggers mapping a copy to its source.
 */
export function mirrorController(wiring: MirrorWiring): ControllerOptions<ConfigMap> {
  const sourceScope = { labelSelector: `${MIRROR_LABEL}=true` };
  const mirrorScope = { labelSelector: SOURCE_LABEL };
  const deps: MirrorDeps = {
    sources: wiring.informers.informer(CONFIG_MAPS, sourceScope).store,
    mirrors: wiring.informers.informer(CONFIG_MAPS, mirrorScope).store,
    client: wiring.client,
    recorder: wiring.recorder,
  };
  return {
    name: "configmap-mirror",
    for: { ref: CONFIG_MAPS, ...sourceScope },
    owns: [ownsSource(CONFIG_MAPS, mirrorScope)],
    reconcile: (request, ctx) => reconcileMirror(request, deps, ctx.signal),
  };
}

import { objectKey } from "../client/paths.ts";
import type { KubeObject } from "../resources/object.ts";
import { inSpanSync, tracingEnabled } from "../trace/tracing.ts";
import type { ChangeSource } from "./change_source.ts";
import type { StoreChange } from "./store_writer.ts";

/**
 * Hands `changes` to `emit`, while tracing is on inside one span: `informer.event <resource>` for a watch
 * event (with the object's key, the change and its resourceVersion, which is what a reconcile it queues
 * links to), `informer.list` / `informer.relist` / `informer.resync` for a whole list or resync tick (one
 * span, never one per object). The spans are roots: the server's event starts the story, not whatever
 * started the informer.
 */
export function emitTraced<T extends KubeObject>(
  resource: string,
  source: ChangeSource,
  changes: readonly StoreChange<T>[],
  emit: (change: StoreChange<T>) => void,
): void {
  if (!tracingEnabled()) {
    for (const change of changes) emit(change);
    return;
  }
  const single = source === "watch" && changes.length === 1 ? changes[0] : undefined;
  const attributes = single
    ? {
      "kubeloop.resource": resource,
      "kubeloop.event.type": single.type,
      "kubeloop.object.key": objectKey(single.object),
      "kubeloop.object.resource_version": single.object.metadata.resourceVersion,
    }
    : { "kubeloop.resource": resource, "kubeloop.changes": changes.length };
  const name = `informer.${source === "watch" ? "event" : source} ${resource}`;
  inSpanSync(name, { root: true, attributes }, () => {
    for (const change of changes) emit(change);
  });
}

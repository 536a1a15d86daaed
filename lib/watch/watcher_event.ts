import type { KubeObject } from "../resources/object.ts";

/**
 * What the watcher yields (kube-rs' naming). A (re)list is bracketed: `init`, then one `initApply` per
 * object, then `initDone`; a consumer buffers between `init` and `initDone` and swaps at the end.
 * Afterwards the watch yields `apply` (added or modified) and `delete`. `error` reports a failure the
 * watcher will recover from on the next pull; the consumer decides how long to wait (see `withBackoff`).
 */
export type WatcherEvent<T extends KubeObject = KubeObject> =
  | { type: "init" }
  | { type: "initApply"; object: T }
  | { type: "initDone"; resourceVersion: string }
  | { type: "apply"; object: T }
  | { type: "delete"; object: T }
  | { type: "error"; error: Error };

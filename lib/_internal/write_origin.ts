/**
 * Who is writing: the controller and key whose reconcile a write happens in, carried by the async context
 * (AsyncLocalStorage), so that the cache (lib/cache) can tag the change a write makes with it and the
 * controller (lib/controller, a floor above) can recognise its own writes without the client or the
 * user's reconcile passing anything along. Shared through this floor because neither of the two may
 * import the other's side.
 *
 * node:async_hooks is imported on first use (`loadWriteOrigins`), not statically: the controller's pod
 * path starts without any node: module (tests/packaging). Measured, it adds about 0.1 MB of heap and no
 * RSS to be seen, unlike node:tls (1.4 MB of heap, 3-4 MB of RSS).
 * @module
 */

/** The reconcile a write was made in. */
export interface WriteOrigin {
  /** Identifies the controller (its instance); compared by identity. */
  readonly writer: object;
  /** The controller's name, for logs. */
  readonly name: string;
  /** The queue key being reconciled, "namespace/name" or "name". */
  readonly key: string;
}

interface Storage {
  run<R>(store: WriteOrigin, fn: () => R): R;
  getStore(): WriteOrigin | undefined;
}

let storage: Storage | undefined;
let loading: Promise<void> | undefined;

/** Loads the async-context storage; `runAsWriter` tags writes only once it resolved. Idempotent. */
export function loadWriteOrigins(): Promise<void> {
  return loading ??= import("node:async_hooks").then((hooks) => {
    storage = new hooks.AsyncLocalStorage<WriteOrigin>();
  });
}

/** Runs `fn` with `origin` as the origin of every write made in it (awaits included). */
export function runAsWriter<R>(origin: WriteOrigin, fn: () => R): R {
  return storage ? storage.run(origin, fn) : fn();
}

/** The origin of a write made now: the reconcile running in this async context, if any. */
export function currentWriter(): WriteOrigin | undefined {
  return storage?.getStore();
}

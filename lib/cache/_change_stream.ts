/**
 * Turns a push-style listener registration into a pull-style async iterable. Internal to the
 * informer's `changes()`.
 * @module
 */

/**
 * Yields every value pushed to the listener that `listen` registers, in order, with an unbounded
 * buffer (pushes are never blocked: the informer's event loop must not wait for a slow reader).
 * Registers on the first `next()`, unregisters when the iteration ends, and ends when `signal` aborts.
 */
export async function* changeStream<C>(
  listen: (listener: (change: C) => void) => () => void,
  signal?: AbortSignal,
): AsyncGenerator<C, void, undefined> {
  const queue: C[] = [];
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  const unlisten = listen((change) => {
    queue.push(change);
    wake?.();
  });
  signal?.addEventListener("abort", onAbort);
  try {
    while (!signal?.aborted) {
      if (queue.length > 0) {
        yield queue.shift()!;
        continue;
      }
      await new Promise<void>((resolve) => wake = resolve);
      wake = undefined;
    }
  } finally {
    unlisten();
    signal?.removeEventListener("abort", onAbort);
  }
}

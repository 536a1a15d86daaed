/**
 * One run of an expensive operation shared by concurrent callers, each with its own signal.
 * Internal to lib/config.
 *
 * The operation gets an internal signal, never a caller's: one caller aborting only rejects that
 * caller's promise, with its own `signal.reason`. The operation itself is aborted only when every
 * caller has gone; after that, the next `join` starts a fresh run.
 */
export class SharedRun<T> {
  readonly #start: (signal: AbortSignal) => Promise<T>;
  #current: { promise: Promise<T>; controller: AbortController; waiters: number } | undefined;

  /** `start` begins one run; it should stop early when its signal aborts. */
  constructor(start: (signal: AbortSignal) => Promise<T>) {
    this.#start = start;
  }

  /** Waits for the current run, starting one if none is in flight. */
  join(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const run = this.#current ?? this.#begin();
    run.waiters++;
    if (signal === undefined) return run.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        run.waiters--;
        if (run.waiters === 0) {
          if (this.#current === run) this.#current = undefined;
          run.controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      run.promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  #begin(): { promise: Promise<T>; controller: AbortController; waiters: number } {
    const controller = new AbortController();
    const run = { controller, waiters: 0, promise: undefined as unknown as Promise<T> };
    run.promise = this.#start(controller.signal).finally(() => {
      if (this.#current === run) this.#current = undefined;
    });
    // Callers that left have their own rejection; the abandoned run's outcome is nobody's.
    run.promise.catch(() => {});
    this.#current = run;
    return run;
  }
}

/** Options of {@linkcode installSignalHandlers}. */
export interface SignalHandlerOptions {
  /**
   * Called on every signal after the first.
   * @default {() => Deno.exit(1)}
   */
  onSecondSignal?: (signal: Deno.Signal) => void;
  /**
   * Signals to handle.
   * @default {["SIGINT", "SIGTERM"] (["SIGINT"] on Windows)}
   */
  signals?: Deno.Signal[];
}

/**
 * For main.ts: the first SIGINT/SIGTERM aborts `controller` (graceful shutdown: the Manager drains and
 * releases its lease); a second one calls `onSecondSignal`, by default exiting at once with code 1 for an
 * operator who does not want to wait. Libraries never exit the process; only this opt-in helper does.
 * Dispose the result to remove the listeners.
 */
export function installSignalHandlers(
  controller: AbortController,
  options: SignalHandlerOptions = {},
): Disposable {
  const signals = options.signals ??
    (Deno.build.os === "windows" ? ["SIGINT" as const] : ["SIGINT" as const, "SIGTERM" as const]);
  const onSecond = options.onSecondSignal ?? (() => Deno.exit(1));
  let received = 0;
  const listeners = signals.map((signal) => {
    const listener = () => {
      received++;
      if (received === 1) controller.abort(new Error(`Received ${signal}, shutting down`));
      else onSecond(signal);
    };
    Deno.addSignalListener(signal, listener);
    return { signal, listener };
  });
  return {
    [Symbol.dispose]() {
      for (const { signal, listener } of listeners.splice(0)) Deno.removeSignalListener(signal, listener);
    },
  };
}

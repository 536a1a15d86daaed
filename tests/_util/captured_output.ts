import { newLogPath } from "./test_logs.ts";

/** Collects a child process' stdout and stderr (interleaved as they arrive) into one string. */
export interface CapturedOutput {
  /** Everything written so far. */
  text(): string;
  /** Resolves once both streams ended. */
  readonly done: Promise<void>;
}

/**
 * Starts reading both output streams of `child`, which must have been spawned with both piped. With log
 * collection on (KUBELOOP_TEST_LOGS, see test_logs.ts) the output is also written to `<name>-*.log`
 * there, so the run's final credential scan covers it.
 */
export function captureOutput(child: Deno.ChildProcess, name = "process"): CapturedOutput {
  let text = "";
  const path = newLogPath(name);
  const file = path === undefined
    ? undefined
    : Deno.openSync(path, { create: true, append: true, mode: 0o600 });
  const encoder = new TextEncoder();
  const pump = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({
        write: (chunk) => {
          text += chunk;
          const bytes = encoder.encode(chunk);
          for (let n = 0; file && n < bytes.length;) n += file.writeSync(bytes.subarray(n));
        },
      }),
    );
  const done = Promise.all([pump(child.stdout), pump(child.stderr)]).then(() => {}).finally(() =>
    file?.close()
  );
  return { text: () => text, done };
}

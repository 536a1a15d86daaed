/** Collects a child process' stdout and stderr (interleaved as they arrive) into one string. */
export interface CapturedOutput {
  /** Everything written so far. */
  text(): string;
  /** Resolves once both streams ended. */
  readonly done: Promise<void>;
}

/** Starts reading both output streams of `child`, which must have been spawned with both piped. */
export function captureOutput(child: Deno.ChildProcess): CapturedOutput {
  let text = "";
  const pump = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (chunk) => void (text += chunk) }),
    );
  const done = Promise.all([pump(child.stdout), pump(child.stderr)]).then(() => {});
  return { text: () => text, done };
}

/**
 * kubeloop sample-controller: a drop-in for Kubernetes' Go sample-controller (Foo -> Deployment).
 * `deno task start --help` lists the flags. Exit codes: 0 clean shutdown, 1 runtime failure,
 * 2 bad flag or configuration.
 * @module
 */
import denoConfig from "./deno.json" with { type: "json" };
import { installSignalHandlers } from "./lib/controller/mod.ts";
import { cli } from "./lib/sample_controller/cli.ts";
import { runSampleController } from "./lib/sample_controller/app.ts";

/** Help, version and bad-flag lines, written before (or instead of) the logger; synchronous like the logger. */
function write(stream: "stdout" | "stderr", text: string): void {
  const bytes = new TextEncoder().encode(text);
  const out = stream === "stdout" ? Deno.stdout : Deno.stderr;
  let written = 0;
  while (written < bytes.length) written += out.writeSync(bytes.subarray(written));
}

if (import.meta.main) {
  const shutdown = new AbortController();
  // First SIGTERM/SIGINT: graceful shutdown (exit 0); a second one exits at once with code 1.
  using _signals = installSignalHandlers(shutdown);
  const code = await cli(Deno.args, {
    version: denoConfig.version,
    signal: shutdown.signal,
    run: runSampleController,
    write,
  });
  Deno.exit(code);
}

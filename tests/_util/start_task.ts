/** How tests and benches run main.ts exactly as `deno task start` would (no control plane needed to import). */
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;

/**
 * The permission and V8 flags of deno.json's "start" task (the packaging tests prove them equal to
 * "compile"'s), so tests run main.ts exactly as the shipped binary runs.
 */
export function startTaskFlags(): Promise<string[]> {
  return taskFlags("start");
}

/** The permission and V8 flags of a deno.json task ("start", "compile", "compile:exec"). */
export async function taskFlags(task: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json"))) as {
    tasks: Record<string, string>;
  };
  const command = config.tasks[task];
  if (command === undefined) throw new Error(`deno.json has no task "${task}"`);
  return command.split(/\s+/).filter((w) =>
    w.startsWith("--allow-") || w.startsWith("--ignore-env") || w.startsWith("--deny-") ||
    w.startsWith("--v8-flags")
  );
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Preloaded into the controller for the soak (`--preload`; permissions unchanged): every 10 s one JSON
 * line `{"memory": Deno.memoryUsage(), "at": <Unix ms>}` on stderr, so the soak can tell a growing
 * JavaScript heap from resident memory the allocator keeps. The timer does not keep the process alive.
 * @module
 */
const encoder = new TextEncoder();
const timer = setInterval(() => {
  const line = JSON.stringify({ memory: Deno.memoryUsage(), at: Date.now() });
  Deno.stderr.writeSync(encoder.encode(line + "\n"));
}, 10_000);
Deno.unrefTimer(timer);

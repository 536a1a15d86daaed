// A connection with a configured CA must leave nothing behind once it is closed: a controller
// opens one for every watch (re)start, all day. On Deno 2.9.6, node:tls leaves native memory
// behind each connection until V8's next major garbage collection, and the allocator keeps what
// it then frees: about 12 KiB per connection after forced collections, against about 1 KiB over
// Deno's own TLS (bench/tls_connection_memory.ts).
// Measured in a subprocess (anonymous resident memory, after two forced collections), so the
// server's memory and the test runner's are not counted.
import assert from "node:assert/strict";

const fixtures = new URL("./fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const ANSWER = new TextEncoder().encode(
  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
);

const WARMUP = 200;
const CONNECTIONS = 2000;
const LIMIT_BYTES_PER_CONNECTION = 4 * 1024;

Deno.test(`${CONNECTIONS} TLS connections with a configured CA keep < 4 KiB each after GC`, async () => {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: read("localhost.crt"),
    key: read("localhost.key"),
    alpnProtocols: ["http/1.1"],
  });
  const served = (async () => {
    for await (const conn of listener) {
      try {
        await conn.read(new Uint8Array(4096));
        await conn.write(ANSWER);
      } catch {
        // The client went away; its own result says what happened.
      } finally {
        conn.close();
      }
    }
  })();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all", // /proc/self/status needs it
        "--v8-flags=--expose-gc,--max-semi-space-size=2",
        new URL("./_tls_memory_client.ts", import.meta.url).pathname,
        String((listener.addr as Deno.NetAddr).port),
        new URL("ca.crt", fixtures).pathname,
        String(WARMUP),
        String(CONNECTIONS),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const { before, after } = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      before: number;
      after: number;
    };
    const perConnection = (after - before) / CONNECTIONS;
    assert.ok(
      perConnection < LIMIT_BYTES_PER_CONNECTION,
      `${(perConnection / 1024).toFixed(2)} KiB kept per connection (anonymous memory ` +
        `${(before / 1048576).toFixed(1)} -> ${
          (after / 1048576).toFixed(1)
        } MiB over ${CONNECTIONS} connections)`,
    );
  } finally {
    listener.close();
    await served;
  }
});

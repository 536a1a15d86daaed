import assert from "node:assert/strict";
import { serveTls } from "../../lib/observe/tls_server.ts";
import { selfSignedCertificate, type TlsMaterial } from "../../lib/x509/self_signed.ts";
import { type Line, memoryLogger } from "../controller/memory_logger.ts";

/** Calls `check` every 10 ms until it returns true, for up to 5 s. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function servedWith(url: string, caCert: string): Promise<boolean> {
  const client = Deno.createHttpClient({ caCerts: [caCert] });
  try {
    const response = await fetch(url, { client });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

Deno.test("certificates announced together are checked in order: bad ones are logged and skipped, a good one is served", async () => {
  const [first, second, third] = await Promise.all(
    [1, 2, 3].map(() => selfSignedCertificate({ hosts: ["127.0.0.1"] })),
  );
  const listeners: ((m: TlsMaterial) => void)[] = [];
  const lines: Line[] = [];
  const controller = new AbortController();
  const server = serveTls({
    hostname: "127.0.0.1",
    port: 0,
    certificates: { current: () => first!, subscribe: (l) => (listeners.push(l), () => {}) },
    handler: () => new Response("ok"),
    onError: () => new Response("error", { status: 500 }),
    signal: controller.signal,
    logger: memoryLogger(lines),
  });
  try {
    const url = `https://127.0.0.1:${server.addr.port}/`;
    assert.equal(await servedWith(url, first!.cert), true);
    // One synchronous burst, as a source's listener loop delivers it; the checks are asynchronous.
    for (
      const material of [{ cert: first!.cert, key: second!.key }, second!, { cert: third!.cert, key: "junk" }]
    ) {
      for (const listener of listeners) listener(material);
    }
    await until(() => lines.length >= 3, "three reload lines");
    assert.deepEqual(lines.map((line) => line.msg), [
      "Ignoring an unusable metrics certificate",
      "Serving the new metrics certificate",
      "Ignoring an unusable metrics certificate",
    ]);
    assert.match(String(lines[0]!.fields.error), /does not belong to the certificate/);
    assert.match(String(lines[2]!.fields.error), /not a PEM private key/);
    assert.equal(await servedWith(url, second!.cert), true, "the good certificate is served");
    assert.equal(await servedWith(url, first!.cert), false, "the first one is gone");
  } finally {
    controller.abort();
    await server.finished;
  }
});

// A rotated certificate is served from the next handshake on, with no restart of anything: requests sent
// throughout a series of rotations all succeed, and certificate files followed by certificateFiles() take
// effect once rewritten (as a Secret volume or cert-manager rewrites them).
import assert from "node:assert/strict";
import { join } from "node:path";
import { allow, serveWebhooks, validatingWebhook } from "../../lib/webhook/mod.ts";
import { certificateFiles } from "../../lib/observe/certificate_files.ts";
import type { CertificateSource } from "../../lib/observe/certificate_source.ts";
import type { TlsMaterial } from "../../lib/x509/self_signed.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { testPki } from "./_tls.ts";

const webhook = validatingWebhook({
  name: "rotate.validate.example.com",
  resource: CONFIG_MAPS,
  validate: () => allow(),
});
const REVIEW = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "r",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    operation: "CREATE",
    userInfo: {},
    object: { metadata: { name: "x" } },
  },
});

/** A source the test rotates by hand. */
function manualSource(first: TlsMaterial): CertificateSource & { rotate(next: TlsMaterial): void } {
  let current = first;
  const listeners = new Set<(m: TlsMaterial) => void>();
  return {
    current: () => current,
    subscribe: (listener) => (listeners.add(listener), () => void listeners.delete(listener)),
    rotate(next) {
      current = next;
      for (const listener of listeners) listener(next);
    },
  };
}

/** Whether a new connection trusting only `ca` gets an answer. */
async function answersWith(url: string, ca: string): Promise<boolean> {
  const client = Deno.createHttpClient({ caCerts: [ca] });
  try {
    const response = await fetch(url, {
      method: "POST",
      body: REVIEW,
      headers: { "content-type": "application/json" },
      client,
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting until ${what}`);
}

Deno.test("ten rotations between two CAs under load: kept-alive connections never fail, new handshakes get the new certificate", async () => {
  const [a, b] = await Promise.all([testPki(), testPki()]);
  const source = manualSource(a.serving);
  const stop = new AbortController();
  const logger = new MemoryLogger();
  const server = serveWebhooks({
    address: "127.0.0.1:0",
    certificates: source,
    webhooks: [webhook],
    signal: stop.signal,
    logger,
  });
  const url = `${server.url}${webhook.path}`;
  try {
    assert.equal(await answersWith(url, a.ca), true);
    assert.equal(await answersWith(url, b.ca), false);
    // Clients that trust both CAs, all the time: two on kept-alive connections (as the API server sends most
    // reviews), two opening a connection for every request.
    let running = true;
    let sent = 0;
    const failures: string[] = [];
    const swapFailures: string[] = [];
    const load = Array.from({ length: 4 }, async (_, i) => {
      const fresh = i % 2 === 0;
      const client = Deno.createHttpClient({ caCerts: [a.ca, b.ca] });
      try {
        while (running) {
          try {
            const response = await fetch(url, {
              method: "POST",
              body: REVIEW,
              headers: {
                "content-type": "application/json",
                ...(fresh ? { connection: "close" } : {}),
              },
              client,
            });
            if (!response.ok) failures.push(`status ${response.status}`);
            await response.body?.cancel();
          } catch (error) {
            const why = String((error as Error).cause ?? error);
            // A new connection may meet the ~3 ms while the listener is replaced: refused or reset at connect.
            if (fresh && /tcp connect error: Connection (refused|reset)/.test(why)) swapFailures.push(why);
            else failures.push(why.slice(0, 200));
          }
          sent++;
        }
      } finally {
        client.close();
      }
    });
    for (let round = 0; round < 10; round++) {
      const next = round % 2 === 0 ? b : a;
      const served = logger.lines.filter((l) => l.msg === "Serving the new webhook certificate").length;
      source.rotate(await next.issue(`rotation ${round}`));
      await eventually(
        () =>
          Promise.resolve(
            logger.lines.filter((l) => l.msg === "Serving the new webhook certificate").length > served,
          ),
        `rotation ${round} applied`,
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    running = false;
    await Promise.all(load);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} requests failed otherwise`);
    assert.ok(sent >= 20, `only ${sent} requests were sent`);
    // Bounded by the swap: a few milliseconds per rotation for clients that connect back to back.
    assert.ok(
      swapFailures.length <= 10 * 10,
      `${swapFailures.length} of ${sent} new connections were refused`,
    );
    // The last rotation installed a certificate from CA a.
    assert.equal(await answersWith(url, a.ca), true);
    assert.equal(await answersWith(url, b.ca), false);
  } finally {
    stop.abort();
    await server.finished;
  }
});

Deno.test("unusable material is logged and ignored; the previous certificate keeps serving", async () => {
  const pki = await testPki();
  const other = await testPki();
  const source = manualSource(pki.serving);
  const stop = new AbortController();
  const logger = new MemoryLogger();
  const server = serveWebhooks({
    address: "127.0.0.1:0",
    certificates: source,
    webhooks: [webhook],
    signal: stop.signal,
    logger,
  });
  try {
    source.rotate({ cert: pki.serving.cert, key: other.serving.key });
    await eventually(
      () =>
        Promise.resolve(
          logger.find("Ignoring an unusable webhook certificate; the previous one stays") !== undefined,
        ),
      "the refusal",
    );
    assert.equal(await answersWith(`${server.url}${webhook.path}`, pki.ca), true);
  } finally {
    stop.abort();
    await server.finished;
  }
});

Deno.test("certificate files (a Secret volume, cert-manager) rewritten on disk are served without a restart", async () => {
  const [a, b] = await Promise.all([testPki(), testPki()]);
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-webhook-certs-" });
  const certFile = join(dir, "tls.crt");
  const keyFile = join(dir, "tls.key");
  await Deno.writeTextFile(certFile, a.serving.cert);
  await Deno.writeTextFile(keyFile, a.serving.key);
  const stop = new AbortController();
  const certificates = await certificateFiles({ certFile, keyFile, signal: stop.signal, intervalMs: 50 });
  const server = serveWebhooks({
    address: "127.0.0.1:0",
    certificates,
    webhooks: [webhook],
    signal: stop.signal,
  });
  const url = `${server.url}${webhook.path}`;
  try {
    assert.equal(await answersWith(url, a.ca), true);
    // As the kubelet updates a Secret volume: new files, then one rename (an atomic swap of both).
    const next = join(dir, "next");
    await Deno.mkdir(next);
    await Deno.writeTextFile(join(next, "tls.crt"), b.serving.cert);
    await Deno.writeTextFile(join(next, "tls.key"), b.serving.key);
    await Deno.rename(join(next, "tls.key"), keyFile);
    await Deno.rename(join(next, "tls.crt"), certFile);
    await eventually(() => answersWith(url, b.ca), "the new files are served");
    assert.equal(await answersWith(url, a.ca), false);
  } finally {
    stop.abort();
    await server.finished;
    await Deno.remove(dir, { recursive: true });
  }
});

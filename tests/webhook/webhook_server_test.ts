// The webhook server over real TLS sockets, attacked the ways the issue names: malformed JSON, a 10 MB body,
// a wrong-version review, slow-loris clients, plain HTTP, too many connections. Each attack is answered
// with a clear status or a closed connection, and the server goes on serving honest clients.
import assert from "node:assert/strict";
import {
  allow,
  conversionWebhook,
  deny,
  mutatingWebhook,
  serveWebhooks,
  spoke,
  validatingWebhook,
  type WebhookServer,
  type WebhookServerOptions,
} from "../../lib/webhook/mod.ts";
import { staticCertificate } from "../../lib/observe/certificate_source.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { type TestPki, testPki } from "./_tls.ts";

const pki: TestPki = await testPki();

const validating = validatingWebhook({
  name: "configmaps.validate.example.com",
  resource: CONFIG_MAPS,
  validate: (request) =>
    request.object?.data?.["forbidden"] ? deny("data.forbidden is not allowed") : allow(),
});
const throwing = validatingWebhook({
  name: "boom.validate.example.com",
  resource: CONFIG_MAPS,
  validate: () => {
    throw new Error("bug in the handler");
  },
});
const defaulting = mutatingWebhook({
  name: "configmaps.default.example.com",
  resource: CONFIG_MAPS,
  mutate: (cm: ConfigMap) => ({ ...cm, data: { ...cm.data, defaulted: "yes" } }),
});
interface Thing extends KubeObject {
  spec?: { size?: number };
}
interface ThingV2 extends KubeObject {
  spec?: { dimensions?: { size?: number } };
}
const conversion = conversionWebhook<Thing>({
  crd: "things.example.com",
  hub: "v1",
  spokes: [
    spoke<Thing, ThingV2>("v2", {
      toHub: (o) => ({ metadata: o.metadata, spec: { size: o.spec?.dimensions?.size ?? 0 } }),
      fromHub: (o) => ({ metadata: o.metadata, spec: { dimensions: { size: o.spec?.size ?? 0 } } }),
    }),
  ],
});

/** Starts a server on 127.0.0.1 with the webhooks above; dispose to stop it and wait until it finished. */
function start(
  options: Partial<WebhookServerOptions> = {},
): WebhookServer & { logger: MemoryLogger; stop: AbortController } {
  const stop = new AbortController();
  const logger = new MemoryLogger();
  const server = serveWebhooks({
    address: "127.0.0.1:0",
    certificates: staticCertificate(pki.serving),
    webhooks: [validating, throwing, defaulting],
    conversions: [conversion],
    signal: stop.signal,
    logger,
    ...options,
  });
  return Object.assign(server, {
    logger,
    stop,
    [Symbol.asyncDispose]: () => {
      stop.abort();
      return server.finished;
    },
  });
}

function admissionReview(object: unknown, apiVersion = "admission.k8s.io/v1"): string {
  return JSON.stringify({
    apiVersion,
    kind: "AdmissionReview",
    request: {
      uid: "1f0e",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      operation: "CREATE",
      userInfo: { username: "alice" },
      object,
    },
  });
}

async function post(url: string, body: BodyInit, contentType = "application/json") {
  const client = Deno.createHttpClient({ caCerts: [pki.ca] });
  try {
    const response = await fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": contentType },
      client,
    });
    return { status: response.status, text: await response.text() };
  } finally {
    client.close();
  }
}

const CM = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", namespace: "ns" },
  data: { a: "1" },
};

Deno.test("reviews over HTTPS: allowed, denied with the message, mutated with a patch, converted", async () => {
  await using server = start();
  const allowed = JSON.parse((await post(`${server.url}${validating.path}`, admissionReview(CM))).text);
  assert.deepEqual(allowed, {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid: "1f0e", allowed: true },
  });
  const denied = JSON.parse(
    (await post(`${server.url}${validating.path}`, admissionReview({ ...CM, data: { forbidden: "1" } })))
      .text,
  );
  assert.equal(denied.response.allowed, false);
  assert.equal(denied.response.status.message, "data.forbidden is not allowed");
  const mutated = JSON.parse((await post(`${server.url}${defaulting.path}`, admissionReview(CM))).text);
  assert.equal(mutated.response.patchType, "JSONPatch");
  assert.deepEqual(JSON.parse(atob(mutated.response.patch)), [{
    op: "add",
    path: "/data/defaulted",
    value: "yes",
  }]);
  const converted = JSON.parse(
    (await post(
      `${server.url}${conversion.path}`,
      JSON.stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: {
          uid: "c1",
          desiredAPIVersion: "example.com/v2",
          objects: [{
            apiVersion: "example.com/v1",
            kind: "Thing",
            metadata: { name: "t" },
            spec: { size: 3 },
          }],
        },
      }),
    )).text,
  );
  assert.deepEqual(converted.response, {
    uid: "c1",
    convertedObjects: [{
      apiVersion: "example.com/v2",
      kind: "Thing",
      metadata: { name: "t" },
      spec: { dimensions: { size: 3 } },
    }],
    result: { status: "Success" },
  });
});

Deno.test("a handler that throws is answered by its failure policy, logged, and the server goes on", async () => {
  await using server = start();
  const answer = JSON.parse((await post(`${server.url}${throwing.path}`, admissionReview(CM))).text);
  assert.equal(answer.response.allowed, false);
  assert.equal(answer.response.status.code, 500);
  assert.ok(server.logger.find("The admission handler failed"));
  assert.equal((await post(`${server.url}${validating.path}`, admissionReview(CM))).status, 200);
});

Deno.test("bad input: malformed JSON, a wrong-version review, a wrong content type get clear 4xx answers", async () => {
  await using server = start();
  const url = `${server.url}${validating.path}`;
  const malformed = await post(url, '{"apiVersion": "admission.k8s.io/v1", "kind": ');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.text, "the body is not JSON (expected an admission.k8s.io/v1 AdmissionReview)\n");
  const old = await post(url, admissionReview(CM, "admission.k8s.io/v1beta1"));
  assert.equal(old.status, 400);
  assert.equal(
    old.text,
    'expected an admission.k8s.io/v1 AdmissionReview, got apiVersion "admission.k8s.io/v1beta1" and kind "AdmissionReview"\n',
  );
  const noRequest = await post(
    url,
    JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }),
  );
  assert.equal(noRequest.status, 400);
  const invalidUtf8 = await post(url, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
  assert.equal(invalidUtf8.status, 400);
  assert.equal((await post(url, admissionReview(CM), "text/plain")).status, 415);
  assert.equal((await post(`${server.url}/nowhere`, admissionReview(CM))).status, 404);
  const client = Deno.createHttpClient({ caCerts: [pki.ca] });
  const get = await fetch(url, { client });
  assert.equal(get.status, 405);
  await get.body?.cancel();
  const health = await fetch(`${server.url}/healthz`, { client });
  assert.equal(await health.text(), "ok\n");
  client.close();
});

Deno.test("a 10 MB body is refused with 413 before it is read, and the server serves the next client", async () => {
  await using server = start();
  const huge = admissionReview({ ...CM, data: { big: "x".repeat(10 * 1024 * 1024) } });
  const conn = await Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] });
  const head =
    `POST ${validating.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${huge.length}\r\n\r\n`;
  await conn.write(new TextEncoder().encode(head));
  const answer = await readAll(conn);
  conn.close();
  assert.match(answer, /^HTTP\/1\.1 413 Content Too Large\r\n/);
  assert.match(answer, /exceeds 7340032 bytes/);
  // fetch sends the whole body (the server has closed by then: the request fails or is answered 413).
  const viaFetch = await post(`${server.url}${validating.path}`, huge).catch((error) => ({
    status: 0,
    text: String(error),
  }));
  assert.ok(viaFetch.status === 413 || viaFetch.status === 0, `status ${viaFetch.status}`);
  assert.equal((await post(`${server.url}${validating.path}`, admissionReview(CM))).status, 200);
});

Deno.test("slow clients are bounded in time: a trickled head and a trickled body are each cut off at the deadline", async () => {
  await using server = start({ limits: { requestTimeoutMs: 400, idleTimeoutMs: 400 } });
  const started = Date.now();
  // A TLS client that sends half a head, then one byte every 150 ms.
  const head = await Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] });
  await head.write(new TextEncoder().encode("POST /validate/x HTTP/1.1\r\n"));
  // A TLS client that promises 100 bytes of body and sends 2.
  const body = await Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] });
  await body.write(
    new TextEncoder().encode(`POST ${validating.path} HTTP/1.1\r\nContent-Length: 100\r\n\r\n{}`),
  );
  // A TLS client that completes its handshake and sends nothing.
  const silent = await Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] });
  await silent.handshake();
  let answered = false;
  const trickle = (async () => {
    for (let i = 0; i < 40 && !answered; i++) {
      await new Promise((r) => setTimeout(r, 150));
      if (await head.write(new TextEncoder().encode("X")).then(() => false, () => true)) return;
    }
  })();
  const [headAnswer, bodyAnswer, silentEnd] = await Promise.all([
    readAll(head),
    readAll(body),
    readAll(silent),
  ]);
  const elapsed = Date.now() - started;
  answered = true;
  await trickle;
  for (const conn of [head, body, silent]) conn.close();
  assert.match(headAnswer, /^HTTP\/1\.1 408 /);
  assert.match(bodyAnswer, /^HTTP\/1\.1 408 /);
  assert.equal(silentEnd, "", "a connection that never sent a request is closed without an answer");
  // Each was cut off at its 400 ms bound (the silent one at the idle bound); the trickling client would have gone on for 6 s. The bound is
  // generous for a loaded machine, and far below what an unbounded server would take.
  assert.ok(elapsed < 5_000, `took ${elapsed} ms`);
  assert.equal((await post(`${server.url}${validating.path}`, admissionReview(CM))).status, 200);
});

Deno.test("clients that never finish their TLS handshake are bounded in number; the next wait, established connections go on", async () => {
  await using server = start({ limits: { maxHandshakes: 2 } });
  // An established, kept-alive connection (as the API server keeps a pool of them).
  const client = Deno.createHttpClient({ caCerts: [pki.ca] });
  const ask = () =>
    fetch(`${server.url}${validating.path}`, {
      method: "POST",
      body: admissionReview(CM),
      headers: { "content-type": "application/json" },
      client,
    }).then(async (r) => (await r.body?.cancel(), r.status));
  assert.equal(await ask(), 200);
  // Two TCP connections that never start the handshake take both handshake slots.
  const stalled = await Promise.all(
    [1, 2].map(() => Deno.connect({ hostname: "127.0.0.1", port: server.port })),
  );
  await new Promise((r) => setTimeout(r, 200));
  // A third new connection is not accepted while they hold the slots: its handshake waits, it is not closed
  // (a closed connection fails the API server's call, and the API server dials again).
  const third = await Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] });
  let handshaken = false;
  const handshake = third.handshake().then(() => handshaken = true);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(handshaken, false, "the third handshake waits while both slots are held");
  assert.equal(await ask(), 200, "the established connection is still served");
  // When a stalled client goes, its slot is free again and the waiting connection is served.
  stalled[0]!.close();
  await handshake;
  await third.write(
    new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
  );
  assert.match(await readAll(third), /^HTTP\/1\.1 200 /);
  third.close();
  stalled[1]!.close();
  client.close();
});

Deno.test("plain HTTP on the HTTPS port is refused: no HTTP answer, no handler call, the connection closes", async () => {
  let calls = 0;
  const counting = validatingWebhook({
    name: "count.validate.example.com",
    resource: CONFIG_MAPS,
    validate: () => (calls++, allow()),
  });
  await using server = start({ webhooks: [counting] });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const body = admissionReview(CM);
  await conn.write(new TextEncoder().encode(
    `POST ${counting.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  ));
  const bytes = await readBytes(conn);
  conn.close();
  assert.doesNotMatch(new TextDecoder("latin1").decode(bytes), /HTTP\/1/);
  // At most a TLS alert record (content type 21), then the close.
  assert.ok(bytes.length === 0 || bytes[0] === 21, `unexpected bytes ${bytes.slice(0, 8)}`);
  assert.equal(calls, 0);
});

Deno.test("connections beyond maxConnections are closed as they arrive; the others are served", async () => {
  await using server = start({ limits: { maxConnections: 2 } });
  const held = await Promise.all(
    [1, 2].map(() => Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] })),
  );
  await Promise.all(held.map((c) => c.handshake()));
  const third = await Deno.connectTls({ hostname: "127.0.0.1", port: server.port, caCerts: [pki.ca] });
  const refused = await third.handshake().then(() => readAll(third)).then(
    (text) => text === "",
    () => true,
  );
  third.close();
  assert.ok(refused, "the third connection was served");
  for (const c of held) c.close();
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await post(`${server.url}${validating.path}`, admissionReview(CM))).status, 200);
});

Deno.test("shutdown: a request in flight is answered, then the server stops accepting", async () => {
  let release: () => void = () => {};
  const entered = Promise.withResolvers<void>();
  const slow = validatingWebhook({
    name: "slow.validate.example.com",
    resource: CONFIG_MAPS,
    validate: () =>
      new Promise((resolve) => {
        release = () => resolve(allow());
        entered.resolve();
      }),
  });
  const server = start({ webhooks: [slow] });
  const answer = post(`${server.url}${slow.path}`, admissionReview(CM));
  await entered.promise;
  server.stop.abort();
  release();
  assert.equal((await answer).status, 200);
  await server.finished;
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: server.port }));
});

/** Reads until the peer closes (or errors); returns what arrived, as latin1 text. */
async function readAll(conn: Deno.Conn): Promise<string> {
  return new TextDecoder("latin1").decode(await readBytes(conn));
}

async function readBytes(conn: Deno.Conn): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(65536);
  for (;;) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) out.set(c, (at += c.length) - c.length);
  return out;
}

// The KubeClient over its own HttpClient against a byte-level local server: which answers give
// their connection back to the pool, where the User-Agent comes from, and what happens to the
// owned HttpClient when an exec plugin hands out a new client certificate.
import assert from "node:assert/strict";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import type { ClusterConfig, Credentials } from "../../lib/config/types.ts";
import { BodyTooLargeError } from "../../lib/http/mod.ts";
import { ScriptedServer, type ServerConn } from "../http/_server.ts";

const CM = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" } });
const STATUS = JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Success" });

function answer(status: string, body: string, extra = ""): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;
}

function chunked(status: string, body: string): string {
  return `HTTP/1.1 ${status}\r\nTransfer-Encoding: chunked\r\n\r\n${
    body.length.toString(16)
  }\r\n${body}\r\n0\r\n\r\n`;
}

/** A server that answers the requests of each connection from `script(head, n)` (n counts all requests). */
function serve(script: (head: string, n: number) => string): { server: ScriptedServer; heads: string[] } {
  const heads: string[] = [];
  const server = new ScriptedServer(async (conn: ServerConn) => {
    for (let req = await conn.readRequest(); req !== null; req = await conn.readRequest()) {
      heads.push(req.head);
      await conn.send(script(req.head, heads.length - 1));
    }
  });
  return { server, heads };
}

function configFor(
  server: ScriptedServer,
  credentials: () => Credentials = () => ({ token: "t" }),
): ClusterConfig & {
  invalidations: number;
} {
  const cfg = {
    server: new URL(server.url),
    tls: {},
    namespace: "ns",
    source: "test",
    inCluster: false,
    invalidations: 0,
    credentials: {
      get: () => Promise.resolve(credentials()),
      invalidate: () => void cfg.invalidations++,
    },
  };
  return cfg;
}

Deno.test("a DELETE result is drained, not cancelled, so the next request reuses its connection", async () => {
  const { server } = serve((head) =>
    head.startsWith("DELETE") ? answer("200 OK", STATUS) : answer("200 OK", CM)
  );
  try {
    await using client = new KubeClient(configFor(server));
    await client.delete(CONFIG_MAPS, "a");
    assert.equal((await client.get(CONFIG_MAPS, "a")).metadata.name, "a");
  } finally {
    await server.close();
  }
  assert.equal(server.accepted.length, 1);
});

Deno.test("401 and 429 answers are drained before the retry, which goes out on the same connection", async () => {
  const unauthorized = JSON.stringify({ kind: "Status", code: 401, reason: "Unauthorized" });
  const tooMany = JSON.stringify({ kind: "Status", code: 429, reason: "TooManyRequests" });
  const script = [
    answer("401 Unauthorized", unauthorized),
    answer("200 OK", CM),
    answer("429 Too Many Requests", tooMany, "Retry-After: 0\r\n"),
    answer("200 OK", CM),
  ];
  const { server } = serve((_head, n) => script[n]!);
  const config = configFor(server);
  try {
    await using client = new KubeClient(config);
    await client.get(CONFIG_MAPS, "a");
    await client.get(CONFIG_MAPS, "a");
  } finally {
    await server.close();
  }
  assert.equal(config.invalidations, 1);
  assert.equal(server.accepted.length, 1);
});

Deno.test("a small chunked answer is drained too, but a large one is cancelled and its connection closed", async () => {
  const big = "x".repeat(70 * 1024);
  const script = [
    chunked("200 OK", STATUS),
    answer("200 OK", CM),
    answer("200 OK", big),
    answer("200 OK", CM),
  ];
  const { server } = serve((_head, n) => script[n]!);
  try {
    await using client = new KubeClient(configFor(server));
    await client.delete(CONFIG_MAPS, "a");
    await client.get(CONFIG_MAPS, "a");
    await client.delete(CONFIG_MAPS, "a");
    await client.get(CONFIG_MAPS, "a");
  } finally {
    await server.close();
  }
  assert.equal(server.accepted.length, 2, "only the 70 KiB answer cost a connection");
});

Deno.test("the User-Agent is sent once per request, with the client's value", async () => {
  const { server, heads } = serve(() => answer("200 OK", CM));
  try {
    await using plain = new KubeClient(configFor(server));
    await plain.get(CONFIG_MAPS, "a");
    await using named = new KubeClient(configFor(server), { userAgent: "my-controller/1.2" });
    await named.get(CONFIG_MAPS, "a");
  } finally {
    await server.close();
  }
  assert.deepEqual(heads.map((h) => h.match(/^user-agent: .*$/gim)), [
    ["User-Agent: kubeloop/0.1.0"],
    ["User-Agent: my-controller/1.2"],
  ]);
});

Deno.test("a new client certificate from the credentials closes the HttpClient of the previous one", async () => {
  let closedFirst = false;
  const server = new ScriptedServer(async (conn: ServerConn, index: number) => {
    while (await conn.readRequest() !== null) await conn.send(answer("200 OK", CM));
    if (index === 0) closedFirst = true;
  });
  let credentials: Credentials = { cert: "CERT-1", key: "KEY-1" };
  try {
    await using client = new KubeClient(configFor(server, () => credentials));
    await client.get(CONFIG_MAPS, "a");
    await client.get(CONFIG_MAPS, "a");
    assert.equal(server.accepted.length, 1, "the same certificate keeps its connection");
    credentials = { cert: "CERT-2", key: "KEY-2" };
    await client.get(CONFIG_MAPS, "a");
    assert.equal(server.accepted.length, 2, "a new certificate needs a new connection");
    for (let i = 0; i < 100 && !closedFirst; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(closedFirst, true, "the idle connection of the previous certificate was closed");
  } finally {
    await server.close();
  }
});

Deno.test("maxBodyBytes reaches the owned HttpClient: a body over it is a BodyTooLargeError", async () => {
  const big = JSON.stringify({ ...JSON.parse(CM), data: { x: "y".repeat(5000) } });
  const { server } = serve(() => chunked("200 OK", big));
  try {
    await using client = new KubeClient(configFor(server), { maxBodyBytes: 4096 });
    await assert.rejects(client.get(CONFIG_MAPS, "a"), (err: unknown) => {
      assert.ok(err instanceof BodyTooLargeError, String(err));
      assert.equal(err.limit, 4096);
      return true;
    });
    await using roomy = new KubeClient(configFor(server), { maxBodyBytes: 65_536 });
    assert.equal((await roomy.get(CONFIG_MAPS, "a")).metadata.name, "a");
  } finally {
    await server.close();
  }
});

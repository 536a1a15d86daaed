import assert from "node:assert/strict";
import { ApiError, KubeClient } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, DEPLOYMENTS, type KubeObject, NAMESPACES } from "../../lib/resources/mod.ts";
import type { ClusterConfig, Credentials } from "../../lib/config/types.ts";
import type { ConfigMap } from "../../lib/resources/core_v1.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { json, ScriptedTransport, statusAnswer } from "../_util/scripted_transport.ts";

function config(
  credentials: Credentials = { token: "t0" },
  server = "https://api.example:6443",
): ClusterConfig & {
  invalidations: number;
} {
  let current = credentials;
  const cfg = {
    server: new URL(server),
    tls: {},
    namespace: "team",
    source: "test",
    inCluster: false,
    invalidations: 0,
    credentials: {
      get: () => Promise.resolve(current),
      invalidate: () => {
        cfg.invalidations++;
        current = { token: `t${cfg.invalidations}` };
      },
    },
  };
  return cfg;
}

const cm = (name: string, rv = "1") => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "team", resourceVersion: rv },
});

Deno.test("get builds the namespaced path, sends the bearer token and parses the object", async () => {
  const t = new ScriptedTransport([json(200, cm("a"))]);
  const client = new KubeClient(config(), { transport: t });
  const obj = await client.get(CONFIG_MAPS, "a");
  assert.equal(obj.metadata.name, "a");
  const req = t.requests[0]!;
  assert.equal(req.method, "GET");
  assert.equal(req.url.href, "https://api.example:6443/api/v1/namespaces/team/configmaps/a");
  assert.equal(req.headers["Authorization"], "Bearer t0");
  assert.equal(req.headers["Accept"], "application/json");
});

Deno.test("disableCompression asks for identity bodies on every request; by default the transport's gzip stands", async () => {
  const t = new ScriptedTransport([json(200, cm("a")), json(200, cm("a")), json(200, cm("b"))]);
  const plain = new KubeClient(config(), { transport: t });
  await plain.get(CONFIG_MAPS, "a");
  const identity = new KubeClient({ ...config(), disableCompression: true }, { transport: t });
  await identity.get(CONFIG_MAPS, "a");
  await identity.create(CONFIG_MAPS, cm("b"));
  assert.deepEqual(t.requests.map((r) => r.headers["Accept-Encoding"]), [undefined, "identity", "identity"]);
});

Deno.test("a server URL with a path prefix keeps the prefix", async () => {
  const t = new ScriptedTransport([json(200, { metadata: {}, items: [] })]);
  const client = new KubeClient(config({}, "https://proxy.example/k8s/clusters/c1/"), { transport: t });
  await client.list(DEPLOYMENTS, { namespace: "x", labelSelector: "app=nginx", limit: 10 });
  assert.equal(
    t.requests[0]!.url.href,
    "https://proxy.example/k8s/clusters/c1/apis/apps/v1/namespaces/x/deployments?labelSelector=app%3Dnginx&limit=10",
  );
  assert.equal(t.requests[0]!.headers["Authorization"], undefined);
});

Deno.test("listing without a namespace spans all namespaces; cluster-scoped refs refuse a namespace", async () => {
  const t = new ScriptedTransport([json(200, { metadata: {}, items: [] })]);
  const client = new KubeClient(config(), { transport: t });
  await client.list(CONFIG_MAPS);
  assert.equal(t.requests[0]!.url.pathname, "/api/v1/configmaps");
  await assert.rejects(client.list(NAMESPACES, { namespace: "x" }), TypeError);
  await assert.rejects(client.get(CONFIG_MAPS, "a/b"), TypeError);
});

Deno.test("error responses become ApiError with the server's reason and code", async () => {
  const t = new ScriptedTransport([
    statusAnswer(404, "NotFound", 'configmaps "a" not found'),
    statusAnswer(409, "AlreadyExists"),
    statusAnswer(409, "Conflict"),
    statusAnswer(422, "Invalid"),
    statusAnswer(410, "Expired"),
    statusAnswer(403, "Forbidden"),
    { status: 502, body: "bad gateway from a proxy" },
  ]);
  const client = new KubeClient(config(), { transport: t });
  const check = async (p: Promise<unknown>, pred: (e: ApiError) => boolean, code: number) => {
    const err = await p.then(() => undefined, (e) => e);
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, code);
    assert.ok(pred(err), err.message);
  };
  await check(client.get(CONFIG_MAPS, "a"), (e) => e.isNotFound && /not found/.test(e.message), 404);
  await check(client.create(CONFIG_MAPS, cm("a")), (e) => e.isAlreadyExists && !e.isConflict, 409);
  await check(client.replace(CONFIG_MAPS, cm("a")), (e) => e.isConflict, 409);
  await check(client.create(CONFIG_MAPS, cm("a")), (e) => e.isInvalid, 422);
  await check(client.list(CONFIG_MAPS), (e) => e.isGone, 410);
  await check(client.delete(CONFIG_MAPS, "a"), (e) => e.isForbidden, 403);
  await check(
    client.get(CONFIG_MAPS, "a"),
    (e) => e.reason === "Unknown" && /bad gateway/.test(e.message),
    502,
  );
});

Deno.test("a 401 invalidates the credentials and retries once with the new ones", async () => {
  const cfg = config();
  const t = new ScriptedTransport([statusAnswer(401, "Unauthorized"), json(200, cm("a"))]);
  const client = new KubeClient(cfg, { transport: t });
  await client.get(CONFIG_MAPS, "a");
  assert.equal(cfg.invalidations, 1);
  assert.deepEqual(t.requests.map((r) => r.headers["Authorization"]), ["Bearer t0", "Bearer t1"]);

  const t2 = new ScriptedTransport([statusAnswer(401, "Unauthorized"), statusAnswer(401, "Unauthorized")]);
  const client2 = new KubeClient(config(), { transport: t2 });
  await assert.rejects(client2.get(CONFIG_MAPS, "a"), (e: ApiError) => e.isUnauthorized);
  assert.equal(t2.requests.length, 2);
});

Deno.test("429 and 503 with Retry-After are retried after the server's delay, a bounded number of times", async () => {
  const clock = new FakeClock();
  const t = new ScriptedTransport([
    statusAnswer(429, "TooManyRequests", "slow down", { "retry-after": "2" }),
    statusAnswer(503, "ServiceUnavailable", "busy", { "retry-after": "1" }),
    json(200, cm("a")),
  ]);
  const client = new KubeClient(config(), { transport: t, clock });
  const p = client.get(CONFIG_MAPS, "a");
  await clock.waitForTimers();
  await clock.advance(1999);
  assert.equal(t.requests.length, 1);
  await clock.advance(1);
  assert.equal(t.requests.length, 2);
  await clock.waitForTimers();
  await clock.advance(1000);
  assert.equal((await p).metadata.name, "a");
  assert.equal(t.requests.length, 3);

  const always = new ScriptedTransport(() =>
    statusAnswer(429, "TooManyRequests", "no", { "retry-after": "0" })
  );
  const limited = new KubeClient(config(), { transport: always, clock, maxRetries: 2 });
  const failed = limited.get(CONFIG_MAPS, "a").catch((e) => e);
  for (let i = 0; i < 20 && always.requests.length < 3; i++) await clock.advance(0);
  const err = await failed;
  assert.ok(err instanceof ApiError && err.isTooManyRequests && err.retryAfterSeconds === 0, String(err));
  assert.equal(always.requests.length, 3);
});

Deno.test("503 without Retry-After is not retried", async () => {
  const t = new ScriptedTransport([statusAnswer(503, "ServiceUnavailable")]);
  const client = new KubeClient(config(), { transport: t });
  await assert.rejects(client.get(CONFIG_MAPS, "a"), ApiError);
  assert.equal(t.requests.length, 1);
});

Deno.test("patch sends the content type of each patch format; apply needs a field manager", async () => {
  const t = new ScriptedTransport(() => json(200, cm("a")));
  const client = new KubeClient(config(), { transport: t });
  await client.patch(CONFIG_MAPS, "a", { data: { k: "v" } }, { type: "merge" });
  await client.patch(CONFIG_MAPS, "a", [{ op: "add", path: "/data/k", value: "v" }], { type: "json" });
  await client.patch(CONFIG_MAPS, "a", { data: { k: "v" } }, { type: "strategic" });
  await client.patch(CONFIG_MAPS, "a", cm("a"), { type: "apply", fieldManager: "me", force: true });
  await client.patch(DEPLOYMENTS, "d", { status: {} }, {
    type: "merge",
    subresource: "status",
    namespace: "n",
  });
  assert.deepEqual(t.requests.map((r) => r.headers["Content-Type"]), [
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
    "application/merge-patch+json",
  ]);
  assert.equal(t.requests[3]!.url.search, "?fieldManager=me&force=true");
  assert.equal(t.requests[4]!.url.pathname, "/apis/apps/v1/namespaces/n/deployments/d/status");
  await assert.rejects(client.patch(CONFIG_MAPS, "a", {}, { type: "apply" }), TypeError);
});

Deno.test("create uses the object's namespace; replaceStatus targets the status subresource", async () => {
  const t = new ScriptedTransport(() => json(200, cm("a")));
  const client = new KubeClient(config(), { transport: t });
  await client.create(CONFIG_MAPS, { metadata: { name: "a", namespace: "other" } }, {
    fieldManager: "m",
    dryRun: true,
  });
  await client.replaceStatus<KubeObject>(DEPLOYMENTS, { metadata: { name: "d", namespace: "n" } });
  assert.equal(t.requests[0]!.url.pathname, "/api/v1/namespaces/other/configmaps");
  assert.equal(t.requests[0]!.url.search, "?fieldManager=m&dryRun=All");
  assert.equal(JSON.parse(t.requests[0]!.body!).metadata.name, "a");
  assert.equal(t.requests[1]!.method, "PUT");
  assert.equal(t.requests[1]!.url.pathname, "/apis/apps/v1/namespaces/n/deployments/d/status");
});

Deno.test("delete sends DeleteOptions with propagation policy and preconditions", async () => {
  const t = new ScriptedTransport(() => json(200, { kind: "Status", status: "Success" }));
  const client = new KubeClient(config(), { transport: t });
  await client.delete(CONFIG_MAPS, "a", { propagationPolicy: "Foreground", preconditions: { uid: "u1" } });
  assert.equal(t.requests[0]!.method, "DELETE");
  assert.deepEqual(JSON.parse(t.requests[0]!.body!), {
    apiVersion: "v1",
    kind: "DeleteOptions",
    propagationPolicy: "Foreground",
    preconditions: { uid: "u1" },
  });
});

Deno.test("listAll follows continue tokens and restarts once a token has expired", async () => {
  const page = (names: string[], cont?: string) =>
    json(200, { metadata: { resourceVersion: "9", continue: cont }, items: names.map((n) => cm(n)) });
  const t = new ScriptedTransport([
    page(["a", "b"], "c1"),
    statusAnswer(410, "Expired", "The provided continue parameter is too old"),
    page(["a", "b"], "c2"),
    page(["c"]),
  ]);
  const client = new KubeClient(config(), { transport: t });
  const pages = [];
  for await (const p of client.listAll(CONFIG_MAPS, { namespace: "team", limit: 2 })) {
    pages.push({ names: p.items.map((i) => i.metadata.name), restarted: p.restarted });
  }
  assert.deepEqual(pages, [
    { names: ["a", "b"], restarted: false },
    { names: ["a", "b"], restarted: true },
    { names: ["c"], restarted: false },
  ]);
  assert.deepEqual(t.requests.map((r) => r.url.searchParams.get("continue")), [null, "c1", null, "c2"]);
  assert.ok(t.requests.every((r) => r.url.searchParams.get("limit") === "2"));
});

Deno.test("watch sends the watch parameters, uses a streaming request and returns the raw bytes", async () => {
  const t = new ScriptedTransport([{ status: 200, body: '{"type":"ADDED","object":{}}\n' }]);
  const client = new KubeClient(config(), { transport: t });
  const stream = await client.watch(CONFIG_MAPS, {
    namespace: "team",
    resourceVersion: "5",
    allowWatchBookmarks: true,
    timeoutSeconds: 300,
  });
  assert.equal(await new Response(stream).text(), '{"type":"ADDED","object":{}}\n');
  const req = t.requests[0]!;
  assert.equal(req.stream, true);
  assert.equal(req.url.search, "?watch=true&resourceVersion=5&timeoutSeconds=300&allowWatchBookmarks=true");
  const gone = new KubeClient(config(), { transport: new ScriptedTransport([statusAnswer(410, "Expired")]) });
  await assert.rejects(gone.watch(CONFIG_MAPS, { resourceVersion: "1" }), (e: ApiError) => e.isGone);
});

Deno.test("the client-side limiter spaces requests at the configured qps after the burst", async () => {
  const clock = new FakeClock();
  const t = new ScriptedTransport(() => json(200, cm("a")));
  const client = new KubeClient(config(), { transport: t, clock, qps: 2, burst: 1 });
  const first = client.get(CONFIG_MAPS, "a");
  const second = client.get(CONFIG_MAPS, "a");
  await clock.advance(0);
  assert.equal(t.requests.length, 1);
  await clock.advance(499);
  assert.equal(t.requests.length, 1);
  await clock.advance(1);
  await Promise.all([first, second]);
  assert.equal(t.requests.length, 2);
});

Deno.test("request metrics hooks see method and code of every request", async () => {
  const seen: string[] = [];
  const t = new ScriptedTransport([json(200, cm("a")), statusAnswer(404, "NotFound")]);
  const client = new KubeClient(config(), {
    transport: t,
    metrics: { observe: (o) => seen.push(`${o.method} ${o.code} ${o.host}`) },
  });
  await client.get(CONFIG_MAPS, "a");
  await client.get(CONFIG_MAPS, "b").catch(() => {});
  assert.deepEqual(seen, ["GET 200 api.example:6443", "GET 404 api.example:6443"]);
});

Deno.test("the write fence is consulted right before each write leaves, after the limiter's wait, and never for reads", async () => {
  const clock = new FakeClock();
  const t = new ScriptedTransport(() => json(200, cm("a")));
  let open = true;
  const checks: string[] = [];
  const writeFence = {
    check: () => {
      checks.push(`at ${clock.now() % 100_000}`);
      if (!open) throw new Error("fenced");
    },
  };
  const client = new KubeClient(config(), { transport: t, clock, qps: 1, burst: 1, writeFence });
  await client.get(CONFIG_MAPS, "a");
  assert.deepEqual(checks, [], "reads are not fenced");
  // The limiter holds this write for a second; the fence closes meanwhile.
  const write = assert.rejects(client.replace(CONFIG_MAPS, cm("a")), /fenced/);
  await clock.waitForTimers(1);
  open = false;
  await clock.advance(1_000);
  await write;
  assert.deepEqual(t.requests.map((r) => r.method), ["GET"], "the refused write never reached the transport");
  open = true;
  await clock.advance(1_000);
  await client.patch(CONFIG_MAPS, "a", {}, { type: "merge" });
  await clock.advance(1_000);
  await client.create(CONFIG_MAPS, cm("b"));
  await clock.advance(1_000);
  await client.delete(CONFIG_MAPS, "b");
  assert.deepEqual(t.requests.map((r) => r.method), ["GET", "PATCH", "POST", "DELETE"]);
  // The refused write was checked once; each write that went out twice: when handed to the transport,
  // and by the transport right before its first byte.
  assert.equal(checks.length, 7);
});

Deno.test("list decodes the body item by item into the same list, and a cut-off body is an error naming the request", async () => {
  const list = {
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "9" },
    items: [cm("a"), cm("b")],
  };
  const t = new ScriptedTransport([
    json(200, list),
    {
      status: 200,
      body: JSON.stringify(list).slice(0, -20),
      headers: { "content-type": "application/json" },
    },
  ]);
  const client = new KubeClient(config(), { transport: t });
  assert.deepEqual(await client.list(CONFIG_MAPS), list);
  await assert.rejects(
    client.list(CONFIG_MAPS),
    (error: unknown) =>
      error instanceof SyntaxError &&
      error.message === "Invalid JSON from GET /api/v1/configmaps (HTTP 200)",
  );
});

Deno.test("list applies transformItem to each item, and what it throws rejects the list", async () => {
  const list = {
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "9" },
    items: [cm("a"), cm("b")],
  };
  const t = new ScriptedTransport([json(200, list), json(200, list)]);
  const client = new KubeClient(config(), { transport: t });
  const seen: string[] = [];
  const got = await client.list(CONFIG_MAPS, {
    transformItem: (item: ConfigMap): ConfigMap => {
      seen.push(item.metadata.name ?? "");
      return { ...item, data: { transformed: "yes" } };
    },
  });
  assert.deepEqual(seen, ["a", "b"]);
  assert.deepEqual(got.items.map((i) => i.data), [{ transformed: "yes" }, { transformed: "yes" }]);
  assert.deepEqual(got.metadata, list.metadata);
  const boom = new Error("no");
  await assert.rejects(
    client.list(CONFIG_MAPS, {
      transformItem: () => {
        throw boom;
      },
    }),
    (error: unknown) => error === boom,
  );
});

Deno.test("create and replace fill a missing apiVersion and kind from the ref, and keep given ones", async () => {
  const t = new ScriptedTransport(() => json(200, cm("a")));
  const client = new KubeClient(config(), { transport: t });
  await client.create(NAMESPACES, { metadata: { name: "n" } });
  await client.replace(CONFIG_MAPS, { metadata: { name: "c", resourceVersion: "5" } });
  await client.create(CONFIG_MAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
  const bodies = t.requests.map((r) => JSON.parse(r.body ?? "{}") as KubeObject);
  assert.deepEqual(bodies.map((b) => [b.apiVersion, b.kind]), [
    ["v1", "Namespace"],
    ["v1", "ConfigMap"],
    ["v1", "ConfigMap"],
  ]);
});

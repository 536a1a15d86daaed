import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { parseListenAddress, serveObservability } from "../../lib/observe/server.ts";
import {
  type ScrapeAuthorizer,
  type ScrapeDecision,
  type ScrapeRequest,
  staticCertificate,
} from "../../lib/observe/mod.ts";
import { type TlsMaterial } from "../../lib/x509/self_signed.ts";
import { selfSignedCertificate } from "../../lib/x509/self_signed.ts";

Deno.test("listen addresses parse into hostname and port, and 0 disables", () => {
  assert.deepEqual(parseListenAddress(":8080"), { hostname: "0.0.0.0", port: 8080 });
  assert.deepEqual(parseListenAddress("127.0.0.1:0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseListenAddress("[::1]:9090"), { hostname: "::1", port: 9090 });
  assert.deepEqual(parseListenAddress("localhost:1"), { hostname: "localhost", port: 1 });
  assert.equal(parseListenAddress("0"), undefined);
  for (const bad of ["8080", "host", ":99999", "a:b", ":", "::1:80"]) {
    assert.throws(() => parseListenAddress(bad), TypeError, bad);
  }
});

async function text(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: string; type: string }> {
  const response = await fetch(url, init);
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get("content-type") ?? "",
  };
}

Deno.test("the server answers /metrics, /healthz and /readyz, then stops on abort", async () => {
  const registry = new MetricsRegistry();
  registry.counter("demo_total", "Demo.").inc(4);
  let ready = false;
  const controller = new AbortController();
  const server = serveObservability({
    metricsAddress: "127.0.0.1:0",
    healthAddress: "127.0.0.1:0",
    registry,
    readyz: () => ready,
    healthz: () => Promise.resolve(true),
    signal: controller.signal,
  });
  assert.match(server.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  assert.match(server.healthUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
  const metrics = await text(server.metricsUrl!);
  assert.equal(metrics.status, 200);
  assert.equal(metrics.type, "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(metrics.body, registry.render());
  assert.deepEqual(await text(`${server.healthUrl}/healthz`), {
    status: 200,
    body: "ok\n",
    type: "text/plain; charset=utf-8",
  });
  const notReady = await text(`${server.healthUrl}/readyz`);
  assert.equal(notReady.status, 503);
  assert.equal(notReady.body, "readyz check failed\n");
  ready = true;
  assert.equal((await text(`${server.healthUrl}/readyz`)).status, 200);
  assert.equal((await text(`${server.healthUrl}/metrics`)).status, 404, "health port does not serve metrics");
  assert.equal((await text(`${server.healthUrl}/nope`)).status, 404);
  assert.equal((await text(`${server.healthUrl}/readyz`, { method: "POST" })).status, 405);
  const head = await text(server.metricsUrl!, { method: "HEAD" });
  assert.deepEqual([head.status, head.body], [200, ""]);
  controller.abort();
  await server.finished;
  await assert.rejects(fetch(server.metricsUrl!));
});

Deno.test("a throwing check answers 503 without its message", async () => {
  const controller = new AbortController();
  const server = serveObservability({
    metricsAddress: "0",
    healthAddress: "127.0.0.1:0",
    registry: new MetricsRegistry(),
    readyz: () => {
      throw new Error("informers not synced");
    },
    signal: controller.signal,
  });
  assert.equal(server.metricsUrl, undefined);
  const response = await text(`${server.healthUrl}/readyz`);
  assert.deepEqual([response.status, response.body], [
    503,
    "[-]readyz failed: reason withheld\nreadyz check failed\n",
  ]);
  controller.abort();
  await server.finished;
});

Deno.test("one address serves every endpoint when metrics and health share it", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const controller = new AbortController();
  await using server = serveObservability({
    metricsAddress: `127.0.0.1:${port}`,
    healthAddress: `127.0.0.1:${port}`,
    registry: new MetricsRegistry(),
    readyz: () => true,
    signal: controller.signal,
  });
  assert.equal(server.healthUrl, `http://127.0.0.1:${port}`);
  assert.equal((await text(`${server.healthUrl}/readyz`)).status, 200);
  assert.equal((await text(`${server.healthUrl}/metrics`)).status, 200);
});

Deno.test("both endpoints disabled or an already aborted signal start nothing", async () => {
  const server = serveObservability({
    metricsAddress: "0",
    healthAddress: "0",
    registry: new MetricsRegistry(),
    readyz: () => true,
    signal: new AbortController().signal,
  });
  assert.deepEqual([server.metricsUrl, server.healthUrl], [undefined, undefined]);
  await server.finished;
  const aborted = serveObservability({
    metricsAddress: "127.0.0.1:0",
    registry: new MetricsRegistry(),
    readyz: () => true,
    signal: AbortSignal.abort(),
  });
  assert.equal(aborted.metricsUrl, undefined);
  await aborted.finished;
});

/** A certificate source the test can rotate. */
function rotatingSource(first: TlsMaterial) {
  let current = first;
  const listeners = new Set<(m: TlsMaterial) => void>();
  return {
    current: () => current,
    subscribe: (l: (m: TlsMaterial) => void) => (listeners.add(l), () => void listeners.delete(l)),
    rotate: (next: TlsMaterial) => {
      current = next;
      for (const l of listeners) l(next);
    },
  };
}

/**
 * An authorizer deciding by token: good → allowed, denied → forbidden, broken → error, busy → throttled, else
 * unauthenticated.
 */
const fakeAuthorizer: ScrapeAuthorizer & { seen: ScrapeRequest[] } = {
  seen: [],
  review(request) {
    fakeAuthorizer.seen.push(request);
    const decisions: Record<string, ScrapeDecision> = {
      good: { kind: "allowed", user: "system:serviceaccount:monitoring:prometheus" },
      denied: { kind: "forbidden", user: "system:serviceaccount:default:intruder", reason: "no RBAC" },
      broken: { kind: "error", reason: "TokenReview failed: connection refused" },
      busy: { kind: "throttled", retryAfterSeconds: 3, reason: "TokenReview: the review budget is spent" },
    };
    return Promise.resolve(decisions[request.token] ?? { kind: "unauthenticated", reason: "invalid token" });
  },
};

async function scrapeWith(
  url: string,
  caCert: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  const client = Deno.createHttpClient({ caCerts: [caCert] });
  try {
    const res = await fetch(url, {
      client,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: await res.text() };
  } finally {
    client.close();
  }
}

Deno.test("attack: a scraper without an allowed token gets no metrics (HTTPS; 401, 403, 429, 500), an allowed one does", async () => {
  const registry = new MetricsRegistry();
  registry.counter("demo_total", "Demo.").inc(4);
  const tls = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const controller = new AbortController();
  fakeAuthorizer.seen.length = 0;
  const server = serveObservability({
    metricsAddress: "127.0.0.1:0",
    healthAddress: "127.0.0.1:0",
    registry,
    readyz: () => true,
    metricsTls: staticCertificate(tls),
    metricsAuthorizer: fakeAuthorizer,
    signal: controller.signal,
  });
  try {
    const url = server.metricsUrl!;
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const anonymous = await scrapeWith(url, tls.cert);
    assert.equal(anonymous.status, 401);
    assert.doesNotMatch(anonymous.body, /demo_total/);
    assert.equal((await scrapeWith(url, tls.cert, "")).status, 401);
    const bogus = await scrapeWith(url, tls.cert, "stolen-or-made-up");
    assert.equal(bogus.status, 401);
    assert.doesNotMatch(bogus.body, /stolen-or-made-up/, "the token is never echoed");
    const denied = await scrapeWith(url, tls.cert, "denied");
    assert.equal(denied.status, 403);
    assert.match(denied.body, /system:serviceaccount:default:intruder/);
    assert.equal((await scrapeWith(url, tls.cert, "broken")).status, 500, "a failed review is no allow");
    const client = Deno.createHttpClient({ caCerts: [tls.cert] });
    const busy = await fetch(url, { client, headers: { authorization: "Bearer busy" } });
    assert.deepEqual([busy.status, busy.headers.get("retry-after")], [429, "3"], "over the review budget");
    assert.doesNotMatch(await busy.text(), /demo_total/);
    client.close();
    const allowed = await scrapeWith(url, tls.cert, "good");
    assert.equal(allowed.status, 200);
    assert.match(allowed.body, /^demo_total 4$/m);
    assert.deepEqual(
      fakeAuthorizer.seen.map((r) => [r.token, r.path, r.verb]),
      ["stolen-or-made-up", "denied", "broken", "busy", "good"].map((t) => [t, "/metrics", "get"]),
      "no review for a request without a token",
    );
    await assert.rejects(fetch(url.replace("https:", "http:")), "no plain HTTP on the metrics port");
    assert.equal(
      await fetch(`${server.healthUrl}/healthz`).then((r) => r.text()),
      "ok\n",
      "probes stay HTTP",
    );
    const counts = registry.render();
    assert.match(counts, /kubeloop_metrics_authorization_total\{decision="unauthenticated"\} 3/);
    assert.match(counts, /kubeloop_metrics_authorization_total\{decision="forbidden"\} 1/);
    assert.match(counts, /kubeloop_metrics_authorization_total\{decision="error"\} 1/);
    assert.match(counts, /kubeloop_metrics_authorization_total\{decision="throttled"\} 1/);
    assert.match(counts, /kubeloop_metrics_authorization_total\{decision="allowed"\} 1/);
  } finally {
    controller.abort();
    await server.finished;
  }
});

Deno.test("a new certificate restarts the HTTPS listener on the same port; a scrape in flight is still answered", async () => {
  const first = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const second = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const source = rotatingSource(first);
  let release = () => {};
  const slow: ScrapeAuthorizer = {
    review: () => new Promise((resolve) => (release = () => resolve({ kind: "allowed", user: "u" }))),
  };
  const controller = new AbortController();
  const server = serveObservability({
    metricsAddress: "127.0.0.1:0",
    healthAddress: "0",
    registry: new MetricsRegistry(),
    readyz: () => true,
    metricsTls: source,
    metricsAuthorizer: slow,
    signal: controller.signal,
  });
  try {
    const url = server.metricsUrl!;
    const inFlight = scrapeWith(url, first.cert, "t");
    await new Promise((r) => setTimeout(r, 100));
    source.rotate(second);
    const served = await eventuallyOk(() => scrapeWith(url, second.cert, "t"), () => release());
    assert.equal(served.status, 200, "the new certificate is served on the same URL");
    release();
    assert.equal((await inFlight).status, 200, "the request in flight on the old listener was answered");
    await assert.rejects(scrapeWith(url, first.cert, "t"), "the old certificate is gone");
    source.rotate({ cert: first.cert, key: second.key }); // a mismatched pair is ignored
    await new Promise((r) => setTimeout(r, 100));
    const still = scrapeWith(url, second.cert, "t");
    await new Promise((r) => setTimeout(r, 50));
    release();
    assert.equal((await still).status, 200);
  } finally {
    controller.abort();
    await server.finished;
  }
});

/** Retries `attempt` (calling `each` 20 ms into every try) until it resolves, for up to 5 s. */
async function eventuallyOk<T>(attempt: () => Promise<T>, each: () => void): Promise<T> {
  for (let i = 0;; i++) {
    const pending = attempt().then((value) => ({ value }), (error: unknown) => ({ error }));
    await new Promise((r) => setTimeout(r, 20));
    each();
    const outcome = await pending;
    if ("value" in outcome) return outcome.value;
    if (i > 100) throw outcome.error;
  }
}

Deno.test("secure metrics refuse unsafe combinations: an authorizer without TLS, TLS sharing the health port", async () => {
  const tls = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const base = { registry: new MetricsRegistry(), readyz: () => true, signal: new AbortController().signal };
  assert.throws(
    () => serveObservability({ ...base, metricsAddress: "127.0.0.1:0", metricsAuthorizer: fakeAuthorizer }),
    /needs metricsTls/,
  );
  assert.throws(
    () =>
      serveObservability({
        ...base,
        metricsAddress: "127.0.0.1:18443",
        healthAddress: "127.0.0.1:18443",
        metricsTls: staticCertificate(tls),
      }),
    /cannot share the address/,
  );
});

import assert from "node:assert/strict";
import { KubeScrapeAuthorizer, type KubeScrapeAuthorizerOptions } from "../../lib/auth/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import type { HttpRequest, HttpResponse, Transport } from "../../lib/http/types.ts";
import type { ScrapeRequest } from "../../lib/observe/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { json, type RecordedRequest, ScriptedTransport, statusAnswer } from "../_util/scripted_transport.ts";

const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "kubeloop-system",
  source: "test",
  inCluster: true,
  credentials: { get: () => Promise.resolve({ token: "controller-token" }), invalidate: () => {} },
};

const PROMETHEUS = {
  username: "system:serviceaccount:monitoring:prometheus",
  uid: "u-1",
  groups: ["system:serviceaccounts", "system:authenticated"],
  extra: { "authentication.kubernetes.io/pod-name": ["prometheus-0"] },
};

/** A fake API server: tokens "good"/"denied" authenticate, only "good"'s user may get /metrics; "down" fails. */
function apiServer(req: RecordedRequest) {
  const body = JSON.parse(req.body ?? "{}");
  if (req.url.pathname === "/apis/authentication.k8s.io/v1/tokenreviews") {
    const token = body.spec.token as string;
    if (token === "down") return statusAnswer(503, "ServiceUnavailable");
    const user = token === "good"
      ? PROMETHEUS
      : token === "denied"
      ? { username: "system:anonymous-ish" }
      : null;
    return json(201, {
      ...body,
      status: user ? { authenticated: true, user } : { authenticated: false, error: "invalid bearer token" },
    });
  }
  if (req.url.pathname === "/apis/authorization.k8s.io/v1/subjectaccessreviews") {
    const allowed = body.spec.user === PROMETHEUS.username;
    return json(201, {
      ...body,
      status: allowed ? { allowed: true } : { allowed: false, reason: "no RBAC policy matched" },
    });
  }
  return statusAnswer(404, "NotFound");
}

function setup(options: KubeScrapeAuthorizerOptions = {}, transport = new ScriptedTransport(apiServer)) {
  const clock = new FakeClock();
  const client = new KubeClient(config, { transport, clock });
  return { clock, transport, authorizer: new KubeScrapeAuthorizer(client, { clock, ...options }) };
}

const scrape = (token: string, signal = new AbortController().signal): ScrapeRequest => ({
  token,
  path: "/metrics",
  verb: "get",
  signal,
});

Deno.test("a TokenReview, then a SubjectAccessReview for the non-resource URL /metrics with the user's identity", async () => {
  const { transport, authorizer } = setup();
  assert.deepEqual(await authorizer.review(scrape("good")), { kind: "allowed", user: PROMETHEUS.username });
  const [tr, sar] = transport.requests.map((r) => ({
    method: r.method,
    path: r.url.pathname,
    body: JSON.parse(r.body!),
  }));
  assert.deepEqual(tr, {
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/tokenreviews",
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      metadata: {},
      spec: { token: "good" },
    },
  });
  assert.deepEqual(sar?.body.spec, {
    user: PROMETHEUS.username,
    uid: "u-1",
    groups: PROMETHEUS.groups,
    extra: PROMETHEUS.extra,
    nonResourceAttributes: { path: "/metrics", verb: "get" },
  });
  assert.equal(sar?.path, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
  assert.equal(
    transport.requests[0]?.headers["Authorization"],
    "Bearer controller-token",
    "sent as the controller",
  );
});

Deno.test("unknown tokens are 401, users without the permission 403", async () => {
  const { authorizer } = setup();
  assert.deepEqual(await authorizer.review(scrape("forged")), {
    kind: "unauthenticated",
    reason: "invalid bearer token",
  });
  assert.deepEqual(await authorizer.review(scrape("denied")), {
    kind: "forbidden",
    user: "system:anonymous-ish",
    reason: "no RBAC policy matched",
  });
});

Deno.test("decisions are cached for their TTL: allows and authenticated tokens a minute, denials ten seconds", async () => {
  const { transport, authorizer, clock } = setup();
  await authorizer.review(scrape("good"));
  await authorizer.review(scrape("denied"));
  await authorizer.review(scrape("forged"));
  assert.equal(transport.requests.length, 5);
  await authorizer.review(scrape("good"));
  await authorizer.review(scrape("denied"));
  await authorizer.review(scrape("forged"));
  assert.equal(transport.requests.length, 5, "all three answered from the cache");
  await clock.advance(10_000);
  await authorizer.review(scrape("good"));
  assert.equal(transport.requests.length, 5, "an allow lasts a minute");
  await authorizer.review(scrape("denied"));
  assert.equal(
    transport.requests.length,
    6,
    "the denial expired; the token is still known, so only a new SAR",
  );
  await authorizer.review(scrape("forged"));
  assert.equal(transport.requests.length, 7, "the rejected token expired: a new TokenReview");
  await clock.advance(50_000);
  await authorizer.review(scrape("good"));
  assert.equal(transport.requests.length, 9, "after a minute both reviews are asked again");
});

Deno.test("attack: a failing review is an error (500), never cached, never an allow", async () => {
  const { transport, authorizer } = setup();
  const first = await authorizer.review(scrape("down"));
  assert.equal(first.kind, "error");
  assert.match(first.kind === "error" ? first.reason : "", /TokenReview failed/);
  await authorizer.review(scrape("down"));
  const reviews = transport.requests.filter((r) => r.url.pathname.endsWith("/tokenreviews"));
  assert.equal(reviews.length > 1, true, "asked again: failures are not cached");
  // The review itself forbidden (the controller lacks RBAC for it) is an error too.
  const forbidden = setup({}, new ScriptedTransport(() => statusAnswer(403, "Forbidden")));
  assert.equal((await forbidden.authorizer.review(scrape("good"))).kind, "error");
});

Deno.test("attack: a flood of random tokens stays within the cache bound and the in-flight cap", async () => {
  const { authorizer } = setup({ maxEntries: 100, reviewQps: 10_000, reviewBurst: 10_000 });
  for (let i = 0; i < 1_000; i++) await authorizer.review(scrape(`random-${i}`));
  assert.equal(authorizer.cachedDecisions, 100, "a thousand rejected tokens, a hundred remembered");
  // Stuck API server: reviews never answer. Beyond maxInFlight, scrapes are refused at once (429), not queued.
  const pending: ((r: HttpResponse) => void)[] = [];
  const stuck: Transport = {
    request: (req: HttpRequest) =>
      new Promise<HttpResponse>((resolve, reject) => {
        pending.push(resolve);
        req.signal?.addEventListener("abort", () => reject(req.signal?.reason), { once: true });
      }),
    close: () => {},
  };
  const clock = new FakeClock();
  const capped = new KubeScrapeAuthorizer(new KubeClient(config, { transport: stuck, clock }), {
    clock,
    maxInFlight: 3,
    timeoutMs: 5_000,
  });
  const decisions = Array.from({ length: 5 }, (_, i) => capped.review(scrape(`t${i}`)));
  // Which three get a slot depends on the order their token hashes finish; two are refused at once.
  const settled: string[] = [];
  for (const d of decisions) void d.then((r) => settled.push(r.kind));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise((r) => timer = setTimeout(r, 1_000));
  clearTimeout(timer);
  assert.deepEqual(
    settled,
    ["throttled", "throttled"],
    "two of five scrapes are refused at once, none waits",
  );
  await clock.advance(5_000);
  const kinds = (await Promise.all(decisions)).map((d) => d.kind).sort();
  assert.deepEqual(
    kinds,
    ["error", "error", "error", "throttled", "throttled"],
    "timed out reviews are errors",
  );
  assert.equal(pending.length, 3, "only three reviews were ever sent");
});

Deno.test("concurrent scrapes with one token share one review; a scraper going away does not cancel it for others", async () => {
  const transport = new ScriptedTransport(apiServer);
  const { authorizer } = setup({}, transport);
  const gone = new AbortController();
  const first = authorizer.review(scrape("good", gone.signal));
  const second = authorizer.review(scrape("good"));
  gone.abort(new Error("scraper disconnected"));
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.kind, "error");
  assert.deepEqual(b, { kind: "allowed", user: PROMETHEUS.username });
  assert.equal(transport.requests.filter((r) => r.url.pathname.endsWith("/tokenreviews")).length, 1);
});

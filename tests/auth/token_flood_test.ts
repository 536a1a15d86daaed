// A flood of made-up bearer tokens on the metrics port, against the authorizer alone (fake API server, fake
// clock): the valid scraper keeps its decision and its reviews, and the flood costs the API server a
// bounded number of TokenReviews. bench/metrics_flood.ts measures the same against the real API server.
import assert from "node:assert/strict";
import { KubeScrapeAuthorizer, type ReviewClient } from "../../lib/auth/mod.ts";
import type { KubeObject, ResourceRef } from "../../lib/resources/object.ts";
import type { ScrapeDecision, ScrapeRequest } from "../../lib/observe/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";

const PROMETHEUS = {
  username: "system:serviceaccount:monitoring:prometheus",
  groups: ["system:serviceaccounts"],
};

/**
 * A fake API server: "good" authenticates as Prometheus, who may get /metrics; every other token is
 * rejected. With `hang`, reviews of the tokens it matches never answer (until their signal aborts).
 */
class FakeReviewer implements ReviewClient {
  readonly tokenReviews: string[] = [];
  readonly accessReviews: string[] = [];
  hang: (token: string) => boolean = () => false;

  create<T extends KubeObject>(ref: ResourceRef<T>, obj: T, options: { signal?: AbortSignal }): Promise<T> {
    const body = obj as unknown as { spec: { token?: string; user?: string } };
    if (ref.plural === "tokenreviews") {
      const token = body.spec.token ?? "";
      this.tokenReviews.push(token);
      if (this.hang(token)) {
        return new Promise((_, reject) => {
          options.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true });
        });
      }
      const status = token === "good"
        ? { authenticated: true, user: PROMETHEUS }
        : { authenticated: false, error: "invalid bearer token" };
      return Promise.resolve({ ...obj, status } as T);
    }
    this.accessReviews.push(body.spec.user ?? "");
    return Promise.resolve({ ...obj, status: { allowed: body.spec.user === PROMETHEUS.username } } as T);
  }
}

const scrape = (token: string): ScrapeRequest => ({
  token,
  path: "/metrics",
  verb: "get",
  signal: new AbortController().signal,
});

const goodReviews = (r: FakeReviewer) => r.tokenReviews.filter((t) => t === "good").length;
const randomReviews = (r: FakeReviewer) => r.tokenReviews.filter((t) => t !== "good").length;

Deno.test("attack: a flood of random tokens cannot evict the valid scraper's cached decision", async () => {
  const clock = new FakeClock();
  const reviewer = new FakeReviewer();
  // A generous review budget, so this test shows the cache alone: 1,000 rejected tokens get reviewed.
  const authorizer = new KubeScrapeAuthorizer(reviewer, {
    clock,
    maxEntries: 100,
    reviewQps: 10_000,
    reviewBurst: 10_000,
  });
  assert.equal((await authorizer.review(scrape("good"))).kind, "allowed");
  for (let i = 0; i < 1_000; i++) {
    assert.equal((await authorizer.review(scrape(`random-${i}`))).kind, "unauthenticated");
  }
  assert.equal(randomReviews(reviewer), 1_000);
  assert.ok(authorizer.cachedDecisions <= 300, `bounded: ${authorizer.cachedDecisions} entries`);
  await clock.advance(30_000);
  assert.deepEqual(await authorizer.review(scrape("good")), { kind: "allowed", user: PROMETHEUS.username });
  assert.equal(goodReviews(reviewer), 1, "the valid token was answered from the cache, not reviewed again");
});

Deno.test("attack: random tokens holding every review slot do not starve the valid token's re-review", async () => {
  const clock = new FakeClock();
  const reviewer = new FakeReviewer();
  const authorizer = new KubeScrapeAuthorizer(reviewer, { clock, timeoutMs: 10_000 });
  assert.equal((await authorizer.review(scrape("good"))).kind, "allowed");
  // A minute later the valid token and its allow must be reviewed again; meanwhile the flood's reviews hang.
  await clock.advance(60_000);
  reviewer.hang = (token) => token !== "good";
  const flood = Array.from({ length: 50 }, (_, i) => authorizer.review(scrape(`random-${i}`)));
  const settled: ScrapeDecision[] = [];
  for (const d of flood) void d.then((r) => settled.push(r));
  // Token hashes finish on real time; wait until every flood scrape was either refused or admitted.
  for (let i = 0; i < 500 && settled.length + randomReviews(reviewer) < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.deepEqual(await authorizer.review(scrape("good")), { kind: "allowed", user: PROMETHEUS.username });
  assert.equal(goodReviews(reviewer), 2, "re-reviewed in its own lane while the flood held the others");
  assert.equal(reviewer.accessReviews.length, 2);
  const admitted = randomReviews(reviewer);
  assert.ok(admitted <= 4, `at most maxInFlight (4) reviews of unknown tokens at once, got ${admitted}`);
  assert.equal(settled.length, 50 - admitted, "the others were refused at once");
  for (const d of settled) {
    assert.equal(d.kind, "throttled");
    assert.ok(d.kind === "throttled" && d.retryAfterSeconds >= 1);
  }
  await clock.advance(10_000); // the hanging reviews time out
  for (const d of await Promise.all(flood)) assert.ok(d.kind === "throttled" || d.kind === "error");
  await flush();
});

Deno.test("attack: a sustained flood costs at most reviewBurst + reviewQps TokenReviews per second; the valid scraper never fails", async () => {
  const clock = new FakeClock();
  const reviewer = new FakeReviewer();
  const authorizer = new KubeScrapeAuthorizer(reviewer, { clock });
  const counts: Record<string, number> = {};
  let n = 0;
  // 60 fake seconds: every 100 ms twenty made-up tokens, every 2 s the valid scraper.
  // The valid scraper was scraping before the flood began (its first scrape comes first).
  for (let tick = 0; tick < 600; tick++) {
    if (tick % 20 === 0) {
      const d = await authorizer.review(scrape("good"));
      assert.deepEqual(d, { kind: "allowed", user: PROMETHEUS.username }, `at ${tick * 100} ms`);
    }
    for (let i = 0; i < 20; i++) {
      const d = await authorizer.review(scrape(`random-${n++}`));
      counts[d.kind] = (counts[d.kind] ?? 0) + 1;
      if (d.kind === "throttled") assert.equal(d.retryAfterSeconds, 1);
    }
    await clock.advance(100);
  }
  const reviews = randomReviews(reviewer);
  assert.ok(reviews <= 10 + 5 * 60, `${reviews} TokenReviews for 12,000 made-up tokens in 60 s`);
  assert.ok(reviews >= 5 * 59, "the budget is used, not starved by itself");
  assert.deepEqual(counts, { unauthenticated: reviews, throttled: 12_000 - reviews });
  assert.equal(goodReviews(reviewer), 1, "the valid token stayed cached for its minute");
  // Past the minute its re-review takes the reserved lane, although the flood has spent its budget.
  for (let i = 0; i < 20; i++) await authorizer.review(scrape(`random-${n++}`));
  assert.deepEqual(await authorizer.review(scrape("good")), { kind: "allowed", user: PROMETHEUS.username });
  assert.equal(goodReviews(reviewer), 2);
});

import assert from "node:assert/strict";
import { TokenCache } from "../../lib/auth/token_cache.ts";
import { FakeClock } from "../_util/fake_clock.ts";

const user = { username: "system:serviceaccount:monitoring:prometheus" };

Deno.test("an authenticated token is fresh for its TTL, then known until another authenticated token pushes it out", async () => {
  const clock = new FakeClock();
  const cache = new TokenCache(2, clock);
  cache.authenticated("a", user, 60_000);
  assert.deepEqual(cache.lookup("a"), { kind: "fresh", user });
  await clock.advance(60_000);
  assert.deepEqual(cache.lookup("a"), { kind: "known" });
  cache.authenticated("b", user, 60_000);
  assert.equal(cache.lookup("a").kind, "known", "a was used last, so b is older");
  cache.authenticated("c", user, 60_000);
  assert.equal(cache.lookup("b").kind, "unknown", "the least recently used authenticated token went");
  assert.equal(cache.lookup("a").kind, "known");
});

Deno.test("attack: rejected tokens never push out an authenticated one, and are bounded themselves", async () => {
  const clock = new FakeClock();
  const cache = new TokenCache(10, clock);
  cache.authenticated("valid", user, 60_000);
  for (let i = 0; i < 10_000; i++) cache.rejected(`random-${i}`, 10_000);
  assert.deepEqual(cache.size, { authenticated: 1, rejected: 10 });
  assert.deepEqual(cache.lookup("valid"), { kind: "fresh", user });
  assert.equal(cache.lookup("random-9999").kind, "rejected");
  assert.equal(cache.lookup("random-0").kind, "unknown");
  await clock.advance(10_000);
  assert.equal(cache.lookup("random-9999").kind, "unknown", "a rejection lasts its TTL");
});

Deno.test("a token re-reviewed as rejected stops being known; one authenticated again stops being rejected", () => {
  const cache = new TokenCache(10, new FakeClock());
  cache.authenticated("t", user, 60_000);
  cache.rejected("t", 10_000);
  assert.equal(cache.lookup("t").kind, "rejected");
  cache.authenticated("t", user, 60_000);
  assert.equal(cache.lookup("t").kind, "fresh");
  cache.rejected("t", 0);
  assert.equal(cache.lookup("t").kind, "unknown", "a TTL of 0 forgets it");
  assert.throws(() => new TokenCache(0, new FakeClock()), RangeError);
});

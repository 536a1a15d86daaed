// When the API server goes away, an informer retries often (it costs the server nothing) and tells its
// subscribers when it is back, so work that failed meanwhile is retried at once; an answer such as 403
// backs off as before.
import assert from "node:assert/strict";
import { RetryPolicy } from "../../lib/cache/_retry_policy.ts";
import { Informer } from "../../lib/cache/informer.ts";
import { ConfigError } from "../../lib/config/config_error.ts";
import { ConnectError } from "../../lib/http/errors.ts";
import { WatchIdleTimeoutError } from "../../lib/watch/watch_idle_timeout_error.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { apiError, configMaps, page, ScriptedBody, ScriptedListWatcher } from "../watch/_helpers.ts";

function policy(): RetryPolicy {
  return new RetryPolicy({ clock: new FakeClock(), random: () => 1 }, 4000);
}

Deno.test("retry delays stay within reconnectMaxMs while the server is unreachable", () => {
  const p = policy();
  const refused = new ConnectError("Cannot connect to https://x: connection refused", "https://x");
  const delays = Array.from({ length: 8 }, () => p.delayFor(refused));
  assert.deepEqual(delays, [800, 1600, 3200, 4000, 4000, 4000, 4000, 4000]);
  for (
    const e of [
      apiError(503, "ServiceUnavailable"),
      apiError(500, "InternalError"),
      apiError(429, "TooManyRequests"),
      new WatchIdleTimeoutError(90_000),
    ]
  ) {
    assert.equal(p.delayFor(e), 4000, `${e.name} counts as unreachable`);
  }
});

Deno.test("answers a retry will not change soon back off up to maxMs, starting over when the kind changes", () => {
  const p = policy();
  for (let i = 0; i < 6; i++) p.delayFor(new TypeError("connection reset"));
  const forbidden = apiError(403, "Forbidden");
  const delays = Array.from({ length: 8 }, () => p.delayFor(forbidden));
  assert.deepEqual(
    delays,
    [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000],
    "starts over, then grows to 30 s",
  );
  assert.equal(p.delayFor(new ConfigError("exec plugin failed", { reason: "ExecFailed" })), 30000);
  assert.equal(p.delayFor(new TypeError("connection reset")), 800, "unreachable again: starts over");
});

Deno.test("an informer that reaches the server again after failing tells its subscribers, once", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([], "10")], [
    new TypeError("connection refused"),
    new TypeError("connection refused"),
    new ScriptedBody([], { stall: true }),
  ]);
  const informer = new Informer(lw, configMaps, { clock, random: () => 0.5, initialList: "paged" });
  let recovered = 0;
  informer.subscribe({ onRecovered: () => recovered++ });
  const ctl = new AbortController();
  const done = informer.run({ signal: ctl.signal });
  await informer.ready();
  for (let i = 0; i < 20 && lw.watches.length < 3; i++) await clock.advance(1000);
  assert.equal(lw.watches.length, 3);
  await clock.advance(0);
  assert.equal(recovered, 1, "the first list did not count: nothing had failed");
  ctl.abort();
  await done;
});

Deno.test("a connection lost after a healthy stretch of 12 s is retried from the first delay again", async () => {
  const clock = new FakeClock();
  const p = new RetryPolicy({ clock, random: () => 1 }, 4000);
  const reset = new TypeError("connection reset");
  for (let i = 0; i < 5; i++) p.delayFor(reset);
  assert.equal(p.delayFor(reset), 4000, "grown while failing");
  await clock.advance(11_999);
  assert.equal(p.delayFor(reset), 4000, "11.999 s apart: still the same outage");
  await clock.advance(12_000);
  assert.equal(p.delayFor(reset), 800, "after 12 s without a failure: a new loss, retried quickly");
});

import assert from "node:assert/strict";
import { SpamFilter } from "../../lib/events/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";

Deno.test("a key gets its burst, then one token per refill period", async () => {
  const clock = new FakeClock();
  const f = new SpamFilter(clock, { burst: 3, refillMs: 1_000 });
  assert.deepEqual([1, 2, 3, 4].map(() => f.allow("a")), [true, true, true, false]);
  assert.ok(f.allow("b"));
  await clock.advance(999);
  assert.ok(!f.allow("a"));
  await clock.advance(1);
  assert.ok(f.allow("a"));
  assert.ok(!f.allow("a"));
});

Deno.test("the least recently used key is forgotten beyond maxKeys", () => {
  const clock = new FakeClock();
  const f = new SpamFilter(clock, { burst: 1, maxKeys: 2 });
  assert.ok(f.allow("a"));
  assert.ok(f.allow("b"));
  assert.ok(f.allow("c")); // evicts "a"
  assert.ok(f.allow("a"), "a forgotten key starts with a full bucket");
  assert.ok(!f.allow("c"));
  assert.throws(() => new SpamFilter(clock, { burst: 0 }), RangeError);
});

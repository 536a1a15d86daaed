// The soak's memory judgement: the reference is the first sample at or after the warm-up, the deviation is
// measured after it only, and the trend is a least-squares slope, so a step and a steady climb read apart.
import assert from "node:assert/strict";
import { rssTrend } from "./_rss.ts";

const MiB = 2 ** 20;
const series = (values: number[]) => values.map((v, i) => ({ at: i * 10_000, bytes: v * MiB }));

Deno.test("a warm-up peak is outside the judgement; min and max cover every sample", () => {
  const t = rssTrend(series([120, 90, 80, 80, 80, 80, 80, 84, 80, 80]), 60_000);
  assert.equal(t.baselineBytes, 80 * MiB, "the sample at 60 s");
  assert.equal(t.minBytes, 80 * MiB);
  assert.equal(t.maxBytes, 120 * MiB);
  assert.equal(t.maxDeviation, 0.05, "84 against 80; the 120 of the warm-up does not count");
  assert.equal(t.samples, 10);
});

Deno.test("a trough at the reference inflates the deviation; a steady climb shows as a slope", () => {
  const step = rssTrend(series([80, 80, 80, 80, 80, 80, 74, 85, 85, 85, 85, 85, 85]), 60_000);
  assert.ok(step.maxDeviation > 0.14 && step.maxDeviation < 0.15);
  const climb = rssTrend(series([80, 80, 80, 80, 80, 80, 80, 81, 82, 83, 84, 85, 86]), 60_000);
  assert.ok(Math.abs(climb.slopeBytesPerMinute - 6 * MiB) < 1, "1 MiB per 10 s is 6 MiB/min");
  const flat = rssTrend(series([80, 80, 80, 80, 80, 80, 80, 80, 80]), 60_000);
  assert.equal(flat.slopeBytesPerMinute, 0);
});

Deno.test("no samples: NaN everywhere, which the soak's `<= 0.15` check refuses", () => {
  const t = rssTrend([], 60_000);
  assert.equal(t.samples, 0);
  assert.ok(Number.isNaN(t.maxDeviation) && Number.isNaN(t.minBytes));
  assert.equal(t.maxDeviation <= 0.15, false);
});

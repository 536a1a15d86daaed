import assert from "node:assert/strict";
import { formatMicroTime } from "../../lib/time/mod.ts";

Deno.test("MicroTime has six fractional digits", () => {
  assert.equal(formatMicroTime(Date.UTC(2026, 0, 1, 0, 0, 0, 123)), "2026-01-01T00:00:00.123000Z");
});

Deno.test("MicroTime of a non-finite number is a RangeError", () => {
  assert.throws(() => formatMicroTime(NaN), RangeError);
  assert.throws(() => formatMicroTime(Infinity), RangeError);
});

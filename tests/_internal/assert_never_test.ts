import assert from "node:assert/strict";
import { assertNever } from "../../lib/_internal/assert_never.ts";

type Shape = { kind: "circle" } | { kind: "square" };

function area(shape: Shape): string {
  switch (shape.kind) {
    case "circle":
      return "round";
    case "square":
      return "square";
    default:
      return assertNever(shape, "shape");
  }
}

Deno.test("assertNever throws a TypeError naming what arrived when a value outside the union gets through", () => {
  assert.equal(area({ kind: "circle" }), "round");
  const fromTheWire = JSON.parse('{"kind":"hexagon"}') as Shape;
  assert.throws(() => area(fromTheWire), new TypeError('Unexpected shape: {"kind":"hexagon"}'));
  assert.throws(() => assertNever("x" as never), new TypeError('Unexpected value: "x"'));
});

import assert from "node:assert/strict";
import { jsonSize } from "../../lib/cache/_json_size.ts";
import { serverConfigMap } from "../../bench/peers/configmaps.ts";
import { stripManagedFields } from "../../lib/cache/strip_managed_fields.ts";
import type { KubeObject } from "../../lib/resources/object.ts";

Deno.test("jsonSize is the length of JSON.stringify for ASCII text without escapes and small integers", () => {
  const values: unknown[] = [
    "",
    "abc",
    0,
    7,
    42,
    123456789,
    true,
    false,
    null,
    [],
    {},
    [1, "two", [3], {}],
    { a: 1, bb: "x", c: [true, null], d: { e: {} } },
    { metadata: { name: "a", labels: { app: "x" }, generation: 12 }, spec: { replicas: 3, items: [] } },
  ];
  for (const value of values) {
    assert.equal(jsonSize(value), JSON.stringify(value).length, JSON.stringify(value));
  }
});

Deno.test("jsonSize leaves out undefined fields, as JSON.stringify does", () => {
  const value = { a: 1, b: undefined, c: { d: undefined } };
  assert.equal(jsonSize(value), JSON.stringify(value).length);
});

Deno.test("jsonSize of cached ConfigMaps is within 1 % of their JSON length", () => {
  for (let i = 0; i < 50; i++) {
    const object = stripManagedFields(serverConfigMap(i, "ns") as unknown as KubeObject);
    const exact = JSON.stringify(object).length;
    assert.ok(Math.abs(jsonSize(object) - exact) <= exact / 100, `${jsonSize(object)} vs ${exact}`);
  }
});

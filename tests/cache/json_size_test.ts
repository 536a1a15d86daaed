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

Deno.test("jsonSize walks an object nested as deep as the API server allows (10,000 levels) without recursion", () => {
  let value: unknown = { leaf: "x" };
  for (let i = 1; i < 10_000; i++) value = { a: value };
  const list: unknown[] = [];
  let inner = list;
  for (let i = 1; i < 10_000; i++) inner.push(inner = []);
  assert.equal(jsonSize(value), JSON.stringify(value).length);
  assert.equal(jsonSize(list), JSON.stringify(list).length);
});

Deno.test("jsonSize agrees with JSON.stringify around the depth where the walk turns from recursion to a loop", () => {
  for (const depth of [60, 63, 64, 65, 66, 70, 130]) {
    let value: unknown = { leaf: [1, "two", { three: true, none: null, empty: [] }] };
    for (let i = 1; i < depth; i++) value = i % 3 === 0 ? [value, { side: "x" }] : { a: value, b: i };
    assert.equal(jsonSize(value), JSON.stringify(value).length, `depth ${depth}`);
  }
});

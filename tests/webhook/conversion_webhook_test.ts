import assert from "node:assert/strict";
import { conversionWebhook, spoke } from "../../lib/webhook/mod.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { seededRandom } from "../_util/seeded_random.ts";
import { randomObject } from "./_json.ts";
import type { JsonValue } from "../../lib/webhook/json_patch.ts";

// v1 (hub): spec.size and spec.extra (any JSON). v2: spec.dimensions.size, spec.extra, and spec.color,
// which v1 cannot hold. v3: spec.length (= size), no extra, no color.
interface V1 extends KubeObject {
  spec?: { size?: number; extra?: JsonValue };
}
interface V2 extends KubeObject {
  spec?: { dimensions?: { size?: number }; extra?: JsonValue; color?: string };
}
interface V3 extends KubeObject {
  spec?: { length?: number };
}

const things = conversionWebhook<V1>({
  crd: "things.example.com",
  hub: "v1",
  spokes: [
    spoke<V1, V2>("v2", {
      toHub: (o) => ({
        metadata: o.metadata,
        ...(o.spec && {
          spec: {
            ...(o.spec.dimensions?.size !== undefined && { size: o.spec.dimensions.size }),
            ...(o.spec.extra !== undefined && { extra: o.spec.extra }),
          },
        }),
      }),
      fromHub: (o) => ({
        metadata: o.metadata,
        ...(o.spec && {
          spec: {
            ...(o.spec.size !== undefined && { dimensions: { size: o.spec.size } }),
            ...(o.spec.extra !== undefined && { extra: o.spec.extra }),
          },
        }),
      }),
    }),
    spoke<V1, V3>("v3", {
      toHub: (o) => ({
        metadata: o.metadata,
        ...(o.spec && { spec: { ...(o.spec.length !== undefined && { size: o.spec.length }) } }),
      }),
      fromHub: (o) => ({
        metadata: o.metadata,
        ...(o.spec && { spec: { ...(o.spec.size !== undefined && { length: o.spec.size }) } }),
      }),
    }),
  ],
});

const meta = { name: "t", namespace: "ns", uid: "u-1", resourceVersion: "7", labels: { app: "x" } };

Deno.test("hub ⇄ spoke and spoke ⇄ spoke through the hub; apiVersion, kind and metadata set by kubeloop", () => {
  const v1 = { apiVersion: "example.com/v1", kind: "Thing", metadata: meta, spec: { size: 3 } };
  assert.deepEqual(things.convert(v1, "example.com/v2"), {
    apiVersion: "example.com/v2",
    kind: "Thing",
    metadata: meta,
    spec: { dimensions: { size: 3 } },
  });
  const v3 = things.convert(
    { apiVersion: "example.com/v2", kind: "Thing", metadata: meta, spec: { dimensions: { size: 4 } } } as V2,
    "example.com/v3",
  );
  assert.deepEqual(v3, { apiVersion: "example.com/v3", kind: "Thing", metadata: meta, spec: { length: 4 } });
  // Same version: returned as it came.
  assert.equal(things.convert(v1, "example.com/v1"), v1);
});

Deno.test("a converter cannot change identity: only labels and annotations it returns are taken", () => {
  const renaming = conversionWebhook<V1>({
    crd: "things.example.com",
    hub: "v1",
    spokes: [spoke<V1, V3>("v3", {
      toHub: () => ({ metadata: { name: "other", labels: { new: "1" } }, spec: {} }),
      fromHub: (o) => ({ metadata: o.metadata, spec: {} }),
    })],
  });
  const out = renaming.convert(
    { apiVersion: "example.com/v3", kind: "Thing", metadata: meta, spec: {} } as V3,
    "example.com/v1",
  );
  assert.deepEqual(out.metadata, {
    name: "t",
    namespace: "ns",
    uid: "u-1",
    resourceVersion: "7",
    labels: { new: "1" },
  });
});

Deno.test("fields the target version lacks are kept in an annotation and restored on the way back", () => {
  const v2 = {
    apiVersion: "example.com/v2",
    kind: "Thing",
    metadata: meta,
    spec: { dimensions: { size: 2 }, color: "teal" },
  };
  const stored = things.convert(v2, "example.com/v1");
  assert.deepEqual(stored.metadata.annotations, {
    "example.com/preserved-v2": JSON.stringify({ "/spec/color": "teal" }),
  });
  assert.deepEqual((stored as V1).spec, { size: 2 });
  assert.deepEqual(things.convert(stored, "example.com/v2"), v2);
  // Changed in the hub meanwhile: the new size wins, the preserved color comes back.
  const edited = { ...stored, spec: { size: 9 } };
  assert.deepEqual(things.convert(edited, "example.com/v2"), {
    ...v2,
    spec: { dimensions: { size: 9 }, color: "teal" },
  });
  // Preservation off: the color is gone.
  const lossy = conversionWebhook<V1>({
    crd: "things.example.com",
    hub: "v1",
    spokes: [spokeOf()],
    preserveFields: false,
  });
  const back = lossy.convert(lossy.convert(v2, "example.com/v1"), "example.com/v2");
  assert.deepEqual((back as V2).spec, { dimensions: { size: 2 } });
});

function spokeOf() {
  return spoke<V1, V2>("v2", {
    toHub: (o) => ({ metadata: o.metadata, spec: { size: o.spec?.dimensions?.size ?? 0 } }),
    fromHub: (o) => ({ metadata: o.metadata, spec: { dimensions: { size: o.spec?.size ?? 0 } } }),
  });
}

Deno.test("property: v2 → v1 → v2 and v2 → v3 → v2 are the identity on 2,000 generated objects", () => {
  const random = seededRandom(4242);
  for (let i = 0; i < 2000; i++) {
    const spec: NonNullable<V2["spec"]> = {};
    if (random() < 0.8) spec.dimensions = random() < 0.2 ? {} : { size: Math.floor(random() * 100) };
    if (random() < 0.5) spec.extra = randomObject(random, 3);
    if (random() < 0.6) spec.color = ["red", "", "a/b~c", "ü"][Math.floor(random() * 4)]!;
    const annotations = random() < 0.3 ? { "someone/else": "kept" } : undefined;
    const v2: V2 = {
      apiVersion: "example.com/v2",
      kind: "Thing",
      metadata: { ...meta, ...(annotations && { annotations }) },
      ...(random() < 0.9 && { spec }),
    };
    for (const via of ["example.com/v1", "example.com/v3"]) {
      const there = things.convert(structuredClone(v2), via);
      const back = things.convert(JSON.parse(JSON.stringify(there)), "example.com/v2");
      assert.deepEqual(back, v2, `case ${i} via ${via}: ${JSON.stringify({ v2, there })}`);
    }
  }
});

Deno.test("review: every object converted in order, or a Failure naming the first that failed", () => {
  const logger = new MemoryLogger();
  const ok = things.review({
    uid: "r1",
    desiredAPIVersion: "example.com/v3",
    objects: [
      { apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "a" }, spec: { size: 1 } } as V1,
      {
        apiVersion: "example.com/v2",
        kind: "Thing",
        metadata: { name: "b" },
        spec: { dimensions: { size: 2 } },
      } as V2,
    ],
  }, { logger });
  assert.equal(ok.result.status, "Success");
  assert.deepEqual(ok.convertedObjects.map((o) => (o as V3).spec?.length), [1, 2]);
  const bad = things.review({
    uid: "r2",
    desiredAPIVersion: "example.com/v3",
    objects: [
      { apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "a", namespace: "ns" } },
      { apiVersion: "example.com/v9", kind: "Thing", metadata: { name: "z", namespace: "ns" } },
    ],
  }, { logger });
  assert.deepEqual(bad.convertedObjects, []);
  assert.equal(bad.result.status, "Failure");
  assert.match(
    bad.result.message ?? "",
    /^converting ns\/z failed: Cannot convert from "example.com\/v9": this webhook converts things.example.com versions v1, v2, v3$/,
  );
  assert.ok(logger.find("Conversion failed"));
  const otherGroup = things.review({
    uid: "r3",
    desiredAPIVersion: "other.io/v1",
    objects: [{ apiVersion: "example.com/v1", metadata: {} }],
  }, { logger });
  assert.equal(otherGroup.result.status, "Failure");
});

Deno.test("declarations with a malformed CRD name or a version twice throw", () => {
  assert.throws(() => conversionWebhook<V1>({ crd: "things", hub: "v1", spokes: [] }), /plural>.<group/);
  assert.throws(
    () => conversionWebhook<V1>({ crd: "things.example.com", hub: "v1", spokes: [spokeOf(), spokeOf()] }),
    /twice/,
  );
  assert.equal(things.path, "/convert/things.example.com");
  assert.deepEqual(things.versions, ["v1", "v2", "v3"]);
});

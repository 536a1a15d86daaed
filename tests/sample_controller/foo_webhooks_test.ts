import assert from "node:assert/strict";
import { fooConversion, fooDefaulting, fooValidation } from "../../lib/sample_controller/foo_webhooks.ts";
import type { Foo } from "../../lib/sample_controller/foo.ts";
import type { Foo as FooV1beta1 } from "../../lib/sample_controller/foo_v1beta1.ts";
import type { AdmissionRequest } from "../../lib/webhook/mod.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { seededRandom } from "../_util/seeded_random.ts";

const logger = new MemoryLogger();

function review(spec: Foo["spec"], version = "v1alpha1"): AdmissionRequest<Foo> {
  const gvk = { group: "samplecontroller.k8s.io", version: "v1alpha1", kind: "Foo" };
  return {
    uid: "u",
    kind: gvk,
    resource: { group: "samplecontroller.k8s.io", version: "v1alpha1", resource: "foos" },
    requestKind: { ...gvk, version },
    operation: "CREATE",
    namespace: "ns",
    name: "f",
    userInfo: {},
    object: {
      apiVersion: "samplecontroller.k8s.io/v1alpha1",
      kind: "Foo",
      metadata: { name: "f" },
      ...(spec && { spec }),
    },
  };
}

Deno.test("validation: a DNS-1123 label and replicas within 1..10 pass; the rest are denied 422, naming the field as sent", async () => {
  for (
    const spec of [{ deploymentName: "web" }, { deploymentName: "a-1", replicas: 1 }, {
      deploymentName: "x".repeat(63),
      replicas: 10,
    }]
  ) {
    assert.equal((await fooValidation.review(review(spec), { logger })).allowed, true, JSON.stringify(spec));
  }
  const cases: [Foo["spec"], string, string][] = [
    [undefined, "v1alpha1", "spec.deploymentName is required"],
    [{ deploymentName: "" }, "v1beta1", "spec.deployment.name is required"],
    [{ deploymentName: "Web_1" }, "v1alpha1", "spec.deploymentName must be a DNS-1123 label"],
    [{ deploymentName: "-web" }, "v1beta1", "spec.deployment.name must be a DNS-1123 label"],
    [{ deploymentName: "x".repeat(64) }, "v1alpha1", "spec.deploymentName must be a DNS-1123 label"],
    [{ deploymentName: "web", replicas: 0 }, "v1alpha1", "spec.replicas must be an integer from 1 to 10"],
    [
      { deploymentName: "web", replicas: 11 },
      "v1beta1",
      "spec.deployment.replicas must be an integer from 1 to 10",
    ],
    [{ deploymentName: "web", replicas: 2.5 }, "v1alpha1", "spec.replicas must be an integer from 1 to 10"],
  ];
  for (const [spec, version, message] of cases) {
    const response = await fooValidation.review(review(spec, version), { logger });
    assert.equal(response.allowed, false, JSON.stringify(spec));
    assert.equal(response.status?.code, 422);
    assert.equal(response.status?.reason, "Invalid");
    assert.ok(response.status?.message?.startsWith(message), `${response.status?.message} / ${message}`);
  }
});

Deno.test("defaulting: replicas 1 when left out, nothing else touched", async () => {
  const add = await fooDefaulting.review(review({ deploymentName: "web" }), { logger });
  assert.deepEqual(JSON.parse(atob(add.patch!)), [{ op: "add", path: "/spec/replicas", value: 1 }]);
  const noSpec = await fooDefaulting.review(review(undefined), { logger });
  assert.deepEqual(JSON.parse(atob(noSpec.patch!)), [{ op: "add", path: "/spec", value: { replicas: 1 } }]);
  const kept = await fooDefaulting.review(review({ deploymentName: "web", replicas: 3 }), { logger });
  assert.deepEqual(kept, { uid: "u", allowed: true });
});

function randomFooV1beta1(random: () => number): FooV1beta1 {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const spec: NonNullable<FooV1beta1["spec"]> = {};
  if (random() < 0.85) {
    const deployment: NonNullable<NonNullable<FooV1beta1["spec"]>["deployment"]> = {};
    if (random() < 0.8) deployment.name = pick(["web", "api-1", "", "x".repeat(63)]);
    if (random() < 0.6) deployment.replicas = 1 + Math.floor(random() * 10);
    spec.deployment = deployment;
  }
  if (random() < 0.5) spec.description = pick(["", "front end", 'ü ~ / " quotes', "x".repeat(500)]);
  const status = random() < 0.5
    ? {
      availableReplicas: Math.floor(random() * 5),
      observedGeneration: 1 + Math.floor(random() * 9),
      conditions: [{ type: "Ready", status: pick(["True", "False", "Unknown"] as const), reason: "Synced" }],
    }
    : undefined;
  const annotations = random() < 0.3 ? { "example.com/note": "kept" } : undefined;
  return {
    apiVersion: "samplecontroller.k8s.io/v1beta1",
    kind: "Foo",
    metadata: {
      name: "f",
      namespace: "ns",
      uid: "u-1",
      resourceVersion: "12",
      generation: 3,
      ...(annotations && { annotations }),
    },
    ...(random() < 0.95 && { spec }),
    ...(status && { status }),
  };
}

Deno.test("property: v1beta1 → v1alpha1 → v1beta1 is the identity on 3,000 generated Foos, description included", () => {
  const random = seededRandom(20261203);
  let preserved = 0;
  for (let i = 0; i < 3000; i++) {
    const foo = randomFooV1beta1(random);
    const stored = fooConversion.convert(structuredClone(foo), "samplecontroller.k8s.io/v1alpha1");
    if (stored.metadata.annotations?.["samplecontroller.k8s.io/preserved-v1beta1"]) preserved++;
    // Through JSON, as etcd and the API server hand it back.
    const back = fooConversion.convert(JSON.parse(JSON.stringify(stored)), "samplecontroller.k8s.io/v1beta1");
    assert.deepEqual(back, foo, `case ${i}: ${JSON.stringify({ foo, stored })}`);
  }
  assert.ok(preserved > 1000, `only ${preserved} Foos needed the annotation`);
});

Deno.test("property: v1alpha1 → v1beta1 → v1alpha1 is the identity on 3,000 generated Foos", () => {
  const random = seededRandom(99);
  for (let i = 0; i < 3000; i++) {
    const beta = randomFooV1beta1(random);
    // A v1alpha1 Foo: whatever a v1beta1 one becomes when stored, without the preserved annotation.
    const alpha = fooConversion.convert(beta, "samplecontroller.k8s.io/v1alpha1");
    const annotations = { ...alpha.metadata.annotations };
    delete annotations["samplecontroller.k8s.io/preserved-v1beta1"];
    const { annotations: _, ...metadata } = alpha.metadata;
    const foo: Foo = {
      ...alpha,
      metadata: Object.keys(annotations).length ? { ...metadata, annotations } : metadata,
    };
    const there = fooConversion.convert(structuredClone(foo), "samplecontroller.k8s.io/v1beta1");
    const back = fooConversion.convert(JSON.parse(JSON.stringify(there)), "samplecontroller.k8s.io/v1alpha1");
    assert.deepEqual(back, foo, `case ${i}`);
  }
});

Deno.test("a Foo edited as v1alpha1 while stored: the edit wins, the v1beta1-only description comes back", () => {
  const beta: FooV1beta1 = {
    apiVersion: "samplecontroller.k8s.io/v1beta1",
    kind: "Foo",
    metadata: { name: "f" },
    spec: { deployment: { name: "web", replicas: 2 }, description: "front end" },
  };
  const stored = fooConversion.convert(beta, "samplecontroller.k8s.io/v1alpha1") as Foo;
  assert.deepEqual(stored.spec, { deploymentName: "web", replicas: 2 });
  const edited: Foo = { ...stored, spec: { deploymentName: "web-2", replicas: 5 } };
  assert.deepEqual((fooConversion.convert(edited, "samplecontroller.k8s.io/v1beta1") as FooV1beta1).spec, {
    deployment: { name: "web-2", replicas: 5 },
    description: "front end",
  });
});

/**
 * Typed kinds are closed: a misspelt field is a compile error, not a field the server drops without a
 * word. Each `@ts-expect-error` below is proven by `deno check` (the gate that type-checks tests/): if
 * the line stopped being an error, the directive itself would fail the check. The test bodies never run
 * the calls (the client is declared, not built); the run-time test only keeps the file a test.
 */
import assert from "node:assert/strict";
import { addFinalizer, apply, removeFinalizer } from "../../lib/controller/mod.ts";
import type { KubeClient } from "../../lib/client/mod.ts";
import type { DeepReadonly } from "../../lib/resources/deep_readonly.ts";
import { type Deployment, DEPLOYMENTS, type Secret, SECRETS } from "../../lib/resources/mod.ts";
import { type Foo, FOOS } from "../../lib/sample_controller/mod.ts";

/** True only when A and B are the same type. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;
function expectType<A, B>(_proof: Equal<A, B>): void {}

// Type-level only: never called.
async function _typos(client: KubeClient): Promise<void> {
  // @ts-expect-error `dta` is not a field of Secret (it is `data`).
  await client.create(SECRETS, { metadata: { name: "s" }, dta: { k: "dg==" } });
  await client.create(SECRETS, { metadata: { name: "s" }, data: { k: "dg==" } });

  await apply(client, FOOS, {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name: "f", namespace: "ns" },
    // @ts-expect-error `sepc` is not a field of Foo (it is `spec`).
    sepc: { deploymentName: "d", replicas: 1 },
  }, { fieldManager: "test" });

  const secret: Secret = {
    metadata: { name: "s" },
    // @ts-expect-error a typo in a typed object literal.
    strngData: { k: "v" },
  };
  void secret;
}

// Type-level only: the finalizer helpers infer the kind from the ref, for cached (read-only) objects too.
async function _finalizersInferTheKind(
  client: KubeClient,
  cached: DeepReadonly<Deployment>,
  foo: DeepReadonly<Foo>,
): Promise<void> {
  const added = await addFinalizer(client, DEPLOYMENTS, cached, "example.com/cleanup");
  const replicas: number | undefined = added.spec?.replicas;
  const removed = await removeFinalizer(client, FOOS, foo, "example.com/cleanup");
  const name: string | undefined = removed?.spec?.deploymentName;
  expectType<typeof added, DeepReadonly<Deployment> | Deployment>(true);
  void replicas;
  void name;
}

Deno.test("the type-level checks of this file are compiled (deno check) and the helpers exist", () => {
  assert.equal(typeof _typos, "function");
  assert.equal(typeof _finalizersInferTheKind, "function");
});

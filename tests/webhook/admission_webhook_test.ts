import assert from "node:assert/strict";
import {
  type AdmissionRequest,
  allow,
  deny,
  mutatingWebhook,
  SideEffectError,
  validatingWebhook,
} from "../../lib/webhook/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { FakeClock, flush, MemoryLogger } from "../../lib/testing/mod.ts";
import { applyPatch } from "./_json.ts";
import type { JsonPatchOperation, JsonValue } from "../../lib/webhook/json_patch.ts";

function request(overrides: Partial<AdmissionRequest<ConfigMap>> = {}): AdmissionRequest<ConfigMap> {
  return {
    uid: "0d3c5b9e-uid",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    operation: "CREATE",
    namespace: "team-a",
    name: "settings",
    userInfo: { username: "alice" },
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "team-a" },
      data: { a: "1" },
    },
    ...overrides,
  };
}

function patchOf(response: { patch?: string }): JsonPatchOperation[] {
  assert.ok(response.patch, "a patch");
  const bytes = Uint8Array.from(atob(response.patch), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

const logger = new MemoryLogger();

Deno.test("validating: allow, deny with a message and code, and warnings reach the response", async () => {
  const webhook = validatingWebhook({
    name: "configmaps.validate.example.com",
    resource: CONFIG_MAPS,
    validate(req, context) {
      context.warn("data.a is deprecated");
      return req.object?.data?.a === "1" ? deny("data.a must not be 1", { code: 422 }) : allow();
    },
  });
  const denied = await webhook.review(request(), { logger });
  assert.deepEqual(denied, {
    uid: "0d3c5b9e-uid",
    allowed: false,
    status: { status: "Failure", message: "data.a must not be 1", reason: "Invalid", code: 422 },
    warnings: ["data.a is deprecated"],
  });
  const allowed = await webhook.review(request({ object: { metadata: { name: "x" }, data: { a: "2" } } }), {
    logger,
  });
  assert.deepEqual(allowed, { uid: "0d3c5b9e-uid", allowed: true, warnings: ["data.a is deprecated"] });
});

Deno.test("mutating: the returned object becomes an RFC 6902 patch of the request's object", async () => {
  const webhook = mutatingWebhook({
    name: "configmaps.default.example.com",
    resource: CONFIG_MAPS,
    mutate(cm) {
      cm.data = { ...cm.data, b: "2" };
      delete cm.data["a"];
      cm.metadata.labels = { "app.kubernetes.io/managed-by": "kubeloop" };
      return cm;
    },
  });
  const req = request();
  const response = await webhook.review(req, { logger });
  assert.equal(response.allowed, true);
  assert.equal(response.patchType, "JSONPatch");
  const patched = applyPatch(req.object as unknown as JsonValue, patchOf(response));
  assert.deepEqual(patched, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "settings",
      namespace: "team-a",
      labels: { "app.kubernetes.io/managed-by": "kubeloop" },
    },
    data: { b: "2" },
  });
  // The handler worked on a copy: the request is what the API server sent.
  assert.deepEqual(req.object?.data, { a: "1" });
});

Deno.test("mutating: no change gives no patch; undefined members vanish as in JSON; a denial is a denial", async () => {
  const unchanged = mutatingWebhook({ name: "a.b.example.com", resource: CONFIG_MAPS, mutate: (cm) => cm });
  assert.deepEqual(await unchanged.review(request(), { logger }), { uid: "0d3c5b9e-uid", allowed: true });
  const unset = mutatingWebhook({
    name: "c.d.example.com",
    resource: CONFIG_MAPS,
    mutate: (cm) => ({ ...cm, data: undefined }) as unknown as ConfigMap,
  });
  assert.deepEqual(patchOf(await unset.review(request(), { logger })), [{ op: "remove", path: "/data" }]);
  const refusing = mutatingWebhook({
    name: "e.f.example.com",
    resource: CONFIG_MAPS,
    mutate: () => deny("no"),
  });
  const response = await refusing.review(request(), { logger });
  assert.equal(response.allowed, false);
  assert.equal(response.status?.message, "no");
  // DELETE carries no object: allowed without calling the handler.
  assert.deepEqual(
    await refusing.review(request({ operation: "DELETE", object: undefined as unknown as ConfigMap }), {
      logger,
    }),
    { uid: "0d3c5b9e-uid", allowed: true },
  );
});

Deno.test("a handler that throws is logged and answered by its failure policy: Fail denies, Ignore allows", async () => {
  const lines = new MemoryLogger();
  const throwing = (failurePolicy: "Fail" | "Ignore") =>
    validatingWebhook({
      name: `boom-${failurePolicy.toLowerCase()}.validate.example.com`,
      resource: CONFIG_MAPS,
      failurePolicy,
      validate: () => {
        throw new Error("database unreachable");
      },
    });
  const fail = await throwing("Fail").review(request(), { logger: lines });
  assert.equal(fail.allowed, false);
  assert.equal(fail.status?.code, 500);
  assert.match(
    fail.status?.message ?? "",
    /webhook "boom-fail.validate.example.com" failed .*uid 0d3c5b9e-uid.*failurePolicy Fail/,
  );
  const ignore = await throwing("Ignore").review(request(), { logger: lines });
  assert.equal(ignore.allowed, true);
  assert.match(ignore.warnings?.[0] ?? "", /failed; its failurePolicy is Ignore/);
  const logged = lines.lines.filter((l) => l.msg === "The admission handler failed");
  assert.equal(logged.length, 2);
  assert.equal(logged[0]!.fields["uid"], "0d3c5b9e-uid");
  assert.equal(String((logged[0]!.fields["error"] as Error).message), "database unreachable");
});

Deno.test("a handler that overruns timeoutSeconds is answered by the policy and its signal aborts", async () => {
  const clock = new FakeClock();
  let aborted = false;
  const webhook = validatingWebhook({
    name: "slow.validate.example.com",
    resource: CONFIG_MAPS,
    timeoutSeconds: 3,
    validate: (_req, context) =>
      new Promise((resolve) => {
        context.signal.addEventListener("abort", () => {
          aborted = true;
          resolve(allow());
        });
      }),
  });
  const answer = webhook.review(request(), { logger, clock });
  await flush();
  await clock.advance(2_999);
  assert.equal(aborted, false);
  await clock.advance(1);
  const response = await answer;
  assert.equal(aborted, true);
  assert.equal(response.allowed, false);
  assert.match(response.status?.message ?? "", /timed out/);
});

Deno.test("side effects: skipped on a dry run under NoneOnDryRun; refused under None", async () => {
  const effects: string[] = [];
  const declared = (sideEffects: "None" | "NoneOnDryRun") =>
    validatingWebhook({
      name: `audit-${sideEffects.toLowerCase()}.validate.example.com`,
      resource: CONFIG_MAPS,
      sideEffects,
      async validate(req, context) {
        const done = await context.sideEffect(() => {
          effects.push(req.name ?? "");
          return "written";
        });
        if (done !== undefined) assert.equal(done, "written");
        return allow();
      },
    });
  assert.equal((await declared("NoneOnDryRun").review(request({ dryRun: true }), { logger })).allowed, true);
  assert.deepEqual(effects, []);
  assert.equal((await declared("NoneOnDryRun").review(request({ dryRun: false }), { logger })).allowed, true);
  assert.deepEqual(effects, ["settings"]);
  const lines = new MemoryLogger();
  const none = await declared("None").review(request(), { logger: lines });
  assert.equal(none.allowed, false, "a webhook that lies about its side effects fails by its policy");
  assert.ok(lines.lines.some((l) => l.fields["error"] instanceof SideEffectError));
  assert.deepEqual(effects, ["settings"]);
});

Deno.test("declarations the API server would refuse throw at once", () => {
  const base = { resource: CONFIG_MAPS, validate: () => allow() };
  assert.throws(() => validatingWebhook({ ...base, name: "short.name" }), /fully qualified/);
  assert.throws(() => validatingWebhook({ ...base, name: "Upper.Case.example.com" }), /fully qualified/);
  assert.throws(() => validatingWebhook({ ...base, name: "a.b.example.com", timeoutSeconds: 31 }), /1 to 30/);
  assert.throws(() => validatingWebhook({ ...base, name: "a.b.example.com", operations: [] }), /operations/);
  assert.throws(
    () =>
      validatingWebhook({
        ...base,
        name: "a.b.example.com",
        matchConditions: [{ name: "x", expression: "true" }, { name: "x", expression: "false" }],
      }),
    /two matchConditions/,
  );
  assert.throws(() => deny(""), /message/);
  assert.throws(() => deny("x", { code: 200 }), /400 to 599/);
  const webhook = validatingWebhook({ ...base, name: "a.b.example.com" });
  assert.equal(webhook.path, "/validate/a.b.example.com");
  assert.equal(webhook.failurePolicy, "Fail");
  assert.equal(webhook.sideEffects, "None");
  assert.equal(webhook.timeoutSeconds, 10);
  assert.deepEqual(webhook.operations, ["CREATE", "UPDATE"]);
});

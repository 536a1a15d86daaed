// Whether a change is a write's own doing alone. Each "someone else's too" case is an edit another
// writer made that the writing controller must not miss; each "own" case is an echo it need not see.
import assert from "node:assert/strict";
import { isOwnChange } from "../../lib/cache/_write_attribution.ts";
import type { WriteStart } from "../../lib/client/mod.ts";
import type { KubeObject } from "../../lib/resources/mod.ts";
import { CONFIG_MAPS, DEPLOYMENTS } from "../../lib/resources/mod.ts";

type Obj = KubeObject & Record<string, unknown>;

function obj(rv: string, rest: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Obj {
  return { metadata: { name: "x", namespace: "ns", uid: "u1", resourceVersion: rv, ...meta }, ...rest };
}

function write(verb: WriteStart["verb"], body: unknown, extra: Partial<WriteStart> = {}): WriteStart {
  return {
    ref: DEPLOYMENTS,
    verb,
    namespace: "ns",
    name: "x",
    subresource: undefined,
    patchType: verb === "patch" ? "merge" : undefined,
    body,
    ...extra,
  };
}
const status = { subresource: "status", patchType: "apply" } as const;

Deno.test("a create is its own doing; a write that replaced another object (new uid) is not", () => {
  assert.equal(isOwnChange(undefined, obj("5", { spec: { a: 1 } }), write("create", {})), true);
  assert.equal(isOwnChange(undefined, obj("5"), write("patch", {})), false);
  assert.equal(isOwnChange(obj("4", {}, { uid: "old" }), obj("5"), write("create", {})), true);
});

Deno.test("a status write is own when only status (and server fields) changed; a spec edit merged in is not", () => {
  const before = obj("4", { spec: { replicas: 1 }, status: { ready: 0 } });
  const body = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, status: { ready: 1 } };
  const mine = obj("6", { spec: { replicas: 1 }, status: { ready: 1 } }, { managedFields: [{}] });
  assert.equal(isOwnChange(before, mine, write("patch", body, status)), true);
  const merged = obj("6", { spec: { replicas: 3 }, status: { ready: 1 } }, { generation: 2 });
  assert.equal(isOwnChange(before, merged, write("patch", body, status)), false, "someone scaled it");
  const relabelled = obj("6", { spec: { replicas: 1 }, status: { ready: 1 } }, { labels: { a: "b" } });
  assert.equal(isOwnChange(before, relabelled, write("patch", body, status)), false, "someone labelled it");
  const deleted = obj("6", { spec: { replicas: 1 }, status: { ready: 1 } }, { deletionTimestamp: "t" });
  assert.equal(isOwnChange(before, deleted, write("patch", body, status)), false, "someone deleted it");
});

Deno.test("a status write never covers the main resource, nor a main write the status", () => {
  const before = obj("4", { spec: { a: 1 }, status: { s: 1 } });
  const body = { ...before, metadata: { name: "x", namespace: "ns" } }; // unconditional
  assert.equal(
    isOwnChange(before, obj("5", { spec: { a: 1 }, status: { s: 2 } }), write("replace", body)),
    false,
    "a PUT of the main resource ignores status: a status change is someone else's",
  );
  assert.equal(
    isOwnChange(before, obj("5", { spec: { a: 2 }, status: { s: 1 } }), write("replace", body, status)),
    false,
  );
  assert.equal(
    isOwnChange(before, obj("5", { spec: { a: 2 }, status: { s: 1 } }), write("replace", body)),
    true,
  );
});

Deno.test("a precondition equal to the cached version makes every difference the write's", () => {
  const before = obj("4", { spec: { a: 1 } });
  const after = obj("5", { spec: { a: 9, b: 2 } }, { finalizers: ["f"] });
  const body = { metadata: { resourceVersion: "4", finalizers: ["f"] } };
  assert.equal(isOwnChange(before, after, write("patch", body)), true);
  assert.equal(
    isOwnChange(before, after, write("patch", { metadata: { resourceVersion: "3", finalizers: ["f"] } })),
    false,
  );
  const json = [{ op: "test", path: "/metadata/resourceVersion", value: "4" }, {
    op: "add",
    path: "/x",
    value: 1,
  }];
  assert.equal(isOwnChange(before, after, write("patch", json, { patchType: "json" })), true);
  assert.equal(isOwnChange(before, after, write("patch", json.slice(1), { patchType: "json" })), false);
});

Deno.test("a merge patch covers the fields it names, a list only as sent; others' fields are theirs", () => {
  const before = obj("4", { data: { a: "1", b: "1" } }, { finalizers: ["theirs"] });
  const fin = { metadata: { finalizers: ["theirs", "mine"] } };
  assert.equal(
    isOwnChange(
      before,
      obj("5", { data: { a: "1", b: "1" } }, { finalizers: ["theirs", "mine"] }),
      write("patch", fin),
    ),
    true,
  );
  assert.equal(
    isOwnChange(
      before,
      obj("5", { data: { a: "1", b: "1" } }, { finalizers: ["theirs", "other", "mine"] }),
      write("patch", fin),
    ),
    false,
    "a finalizer someone added meanwhile",
  );
  const data = { data: { a: "2", b: null } };
  assert.equal(
    isOwnChange(before, obj("5", { data: { a: "2" } }, { finalizers: ["theirs"] }), write("patch", data)),
    true,
  );
  assert.equal(
    isOwnChange(
      before,
      obj("5", { data: { a: "2", c: "3" } }, { finalizers: ["theirs"] }),
      write("patch", data),
    ),
    false,
    "a key someone added meanwhile",
  );
});

Deno.test("an apply's list is own when each item now was sent or was there, and each item gone was replaced", () => {
  const ready = (status: string) => ({ type: "Ready", status });
  const synced = { type: "Synced", status: "True" };
  const before = obj("4", { status: { conditions: [synced, ready("False")] } });
  const body = { status: { conditions: [ready("True")] } };
  const w = write("patch", body, status);
  assert.equal(isOwnChange(before, obj("5", { status: { conditions: [synced, ready("True")] } }), w), true);
  assert.equal(
    isOwnChange(
      before,
      obj("5", { status: { conditions: [{ ...synced, status: "False" }, ready("True")] } }),
      w,
    ),
    false,
    "another manager's condition changed meanwhile",
  );
  assert.equal(
    isOwnChange(before, obj("5", { status: { conditions: [ready("True")] } }), w),
    false,
    "one removed",
  );
});

Deno.test("an apply that created the object is own only when the object holds nothing but what it sent", () => {
  const body = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", labels: { a: "b" } },
    data: { k: "v" },
  };
  const fresh = obj("5", { apiVersion: "v1", kind: "ConfigMap", data: { k: "v" } }, {
    labels: { a: "b" },
    creationTimestamp: "t",
  });
  const w = write("patch", body, { ref: CONFIG_MAPS, patchType: "apply" });
  assert.equal(isOwnChange(undefined, fresh, w), true);
  const existing = obj("5", { data: { k: "v", theirs: "1" } }, { labels: { a: "b" } });
  assert.equal(isOwnChange(undefined, existing, w), false, "it existed, with someone else's data");
});

Deno.test("a delete covers the deletion fields only", () => {
  const before = obj("4", {}, { finalizers: ["f"] });
  const marked = obj("5", {}, { finalizers: ["f"], deletionTimestamp: "t", deletionGracePeriodSeconds: 0 });
  assert.equal(isOwnChange(before, marked, write("delete", { kind: "DeleteOptions" })), true);
  const edited = obj("5", { data: { x: "1" } }, { finalizers: ["f"], deletionTimestamp: "t" });
  assert.equal(isOwnChange(before, edited, write("delete", { kind: "DeleteOptions" })), false);
});

Deno.test("objects nested 10,000 levels deep are judged without overflowing the stack: not own", () => {
  const deep = (leaf: string) => {
    let value: Record<string, unknown> = { leaf };
    for (let i = 0; i < 10_000; i++) value = { n: value };
    return value;
  };
  const before = obj("4", { spec: deep("a") });
  const after = obj("5", { spec: deep("b") });
  assert.equal(isOwnChange(before, after, write("patch", { spec: deep("b") })), false);
  assert.equal(isOwnChange(before, obj("5", { spec: deep("a") }), write("patch", { spec: deep("b") })), true);
});

import assert from "node:assert/strict";
import { constantName, generateResourceModules } from "../../lib/codegen/mod.ts";
import type { OpenApiDocument } from "../../lib/codegen/mod.ts";

const meta = "io.k8s.apimachinery.pkg.apis.meta.v1";
/** A hand-made OpenAPI document (the generator reads only schemas and list paths). */
const doc = (schemas: Record<string, unknown>, paths: Record<string, unknown>) =>
  ({ components: { schemas }, paths }) as unknown as OpenApiDocument;

const listOp = (group: string, version: string, kind: string) => ({
  get: { "x-kubernetes-action": "list", "x-kubernetes-group-version-kind": { group, version, kind } },
});

const apps = doc({
  "io.k8s.api.apps.v1.Gadget": {
    description: "Gadget is a test kind.",
    required: ["spec"],
    "x-kubernetes-group-version-kind": [{ group: "apps", version: "v1", kind: "Gadget" }],
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { allOf: [{ $ref: `#/components/schemas/${meta}.ObjectMeta` }], default: {} },
      spec: {
        allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.GadgetSpec" }],
        description: "The spec.",
      },
    },
  },
  "io.k8s.api.apps.v1.GadgetSpec": {
    properties: {
      selector: { $ref: `#/components/schemas/${meta}.LabelSelector` },
      size: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity" },
      port: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString" },
      notes: { type: "array", items: { type: "string" } },
      event: { $ref: "#/components/schemas/io.k8s.api.events.v1.EventSeries" },
      coreEvent: { $ref: "#/components/schemas/io.k8s.api.core.v1.EventSeries" },
    },
  },
  [`${meta}.LabelSelector`]: {
    properties: { matchLabels: { type: "object", additionalProperties: { type: "string" } } },
  },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": { oneOf: [{ type: "string" }, { type: "number" }] },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
    format: "int-or-string",
    oneOf: [{ type: "integer" }, { type: "string" }],
  },
  "io.k8s.api.events.v1.EventSeries": { properties: { count: { type: "integer" } } },
  "io.k8s.api.core.v1.EventSeries": { properties: { count: { type: "integer" } } },
}, {
  "/apis/apps/v1/gadgets": listOp("apps", "v1", "Gadget"),
  "/apis/apps/v1/namespaces/{namespace}/gadgets": listOp("apps", "v1", "Gadget"),
  "/apis/apps/v1/watch/namespaces/{namespace}/gadgets": listOp("apps", "v1", "Gadget"),
});

Deno.test("a kind extends KubeObject with required metadata; references become imports between modules", () => {
  const files = generateResourceModules([apps], {
    kinds: [{ group: "apps", version: "v1", kind: "Gadget" }],
    source: "a test server",
  });
  assert.deepEqual([...files.keys()].sort(), [
    "apimachinery.ts",
    "apps_v1.ts",
    "core_v1.ts",
    "events_v1.ts",
    "refs.ts",
  ]);
  const appsV1 = files.get("apps_v1.ts")!;
  assert.match(appsV1, /^\/\/ Code generated .* from the OpenAPI v3 of a test server\. DO NOT EDIT\./);
  assert.match(appsV1, /import type \{ KubeObject, ObjectMeta \} from "\.\/object\.ts";/);
  assert.match(appsV1, /import type \{ IntOrString, LabelSelector, Quantity \} from "\.\/apimachinery\.ts";/);
  assert.match(appsV1, /export interface Gadget extends KubeObject \{/);
  assert.match(appsV1, / {2}metadata: ObjectMeta;/);
  assert.match(appsV1, / {2}\/\*\* The spec\. \*\/\n {2}spec: GadgetSpec;/);
  assert.match(appsV1, / {2}notes\?: string\[\];/);
  // Two packages define EventSeries: both get their module's name as a prefix.
  assert.match(appsV1, / {2}event\?: EventsV1EventSeries;/);
  assert.match(appsV1, / {2}coreEvent\?: CoreV1EventSeries;/);
  const machinery = files.get("apimachinery.ts")!;
  assert.match(machinery, /export type Quantity = string \| number;/);
  assert.match(machinery, /export type IntOrString = number \| string;/);
  assert.match(machinery, /matchLabels\?: Record<string, string>;/);
  const refs = files.get("refs.ts")!;
  assert.match(refs, /export const GADGETS: ResourceRef<Gadget> = Object\.freeze\(\{/);
  assert.match(refs, /plural: "gadgets",/);
  assert.match(refs, /namespaced: true,/);
});

Deno.test("an unknown kind, a kind the server does not list, or a dangling reference is an error naming it", () => {
  assert.throws(
    () =>
      generateResourceModules([apps], {
        kinds: [{ group: "apps", version: "v1", kind: "Nope" }],
        source: "x",
      }),
    /No schema for apps\/v1 Nope/,
  );
  const unlisted = doc({ ...apps.components!.schemas }, {});
  assert.throws(
    () =>
      generateResourceModules([unlisted], {
        kinds: [{ group: "apps", version: "v1", kind: "Gadget" }],
        source: "x",
      }),
    /No list path for apps\/v1 Gadget in the OpenAPI documents/,
  );
  const broken = doc({
    "io.k8s.api.apps.v1.Gadget": {
      "x-kubernetes-group-version-kind": [{ group: "apps", version: "v1", kind: "Gadget" }],
      properties: { spec: { $ref: "#/components/schemas/io.k8s.api.apps.v1.Missing" } },
    },
  }, {});
  assert.throws(
    () =>
      generateResourceModules([broken], {
        kinds: [{ group: "apps", version: "v1", kind: "Gadget" }],
        source: "x",
      }),
    /Schema "io\.k8s\.api\.apps\.v1\.Missing" is referenced but not defined/,
  );
});

Deno.test("constant names follow the kind's words with the server's plural", () => {
  assert.equal(constantName("ConfigMap", "configmaps"), "CONFIG_MAPS");
  assert.equal(
    constantName("CustomResourceDefinition", "customresourcedefinitions"),
    "CUSTOM_RESOURCE_DEFINITIONS",
  );
  assert.equal(constantName("NetworkPolicy", "networkpolicies"), "NETWORK_POLICIES");
  assert.equal(constantName("Endpoints", "endpoints"), "ENDPOINTS");
  assert.equal(constantName("Pod", "pods"), "PODS");
});

Deno.test("the header names the command that regenerates the files, for code generated outside kubeloop", () => {
  const kinds = [{ group: "apps", version: "v1", kind: "Gadget" }];
  const own = generateResourceModules([apps], {
    kinds,
    source: "my cluster",
    command: "deno task gen:types",
  });
  for (const text of own.values()) {
    assert.match(text, /^\/\/ Code generated by `deno task gen:types` from the OpenAPI v3 of my cluster\./);
  }
  const plain = generateResourceModules([apps], { kinds, source: "my cluster" });
  assert.doesNotMatch(plain.get("apps_v1.ts")!, /deno task gen:resources/, "not kubeloop's own task");
  assert.match(plain.get("apps_v1.ts")!, /^\/\/ Code generated by kubeloop's generateResourceModules from/);
});

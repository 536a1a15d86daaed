import assert from "node:assert/strict";
import { generateCrdTypes } from "../../lib/codegen/mod.ts";
import type { CustomResourceDefinition } from "../../lib/resources/mod.ts";

function crd(
  schema: unknown,
  extra: Partial<CustomResourceDefinition["spec"]> = {},
): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Cluster",
      names: { kind: "Widget", plural: "widgets" },
      versions: [
        { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: { type: "object" } } },
        { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema as never } },
      ],
      ...extra,
    },
  };
}

Deno.test("nested objects get path names, required fields stay required, enums become literal unions", () => {
  const text = generateCrdTypes(
    crd({
      type: "object",
      properties: {
        spec: {
          type: "object",
          required: ["size"],
          properties: {
            size: { type: "string", enum: ["S", "M"] },
            ports: { type: "array", items: { type: "object", properties: { port: { type: "integer" } } } },
            target: { "x-kubernetes-int-or-string": true },
            labels: { type: "object", additionalProperties: { type: "string" } },
            template: { type: "object", "x-kubernetes-embedded-resource": true },
            raw: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      },
    }),
    { kubeloop: "jsr:@kubeloop/kubeloop" },
  );
  assert.match(text, /import type \{ KubeObject, ObjectMeta, ResourceRef \} from "jsr:@kubeloop\/kubeloop";/);
  assert.match(text, /export interface Widget extends KubeObject \{/);
  assert.match(text, /spec\?: WidgetSpec;/);
  assert.match(text, /size: "S" \| "M";/);
  assert.match(text, /ports\?: WidgetSpecPort\[\];/);
  assert.match(text, /export interface WidgetSpecPort \{\n.*\n {2}port\?: number;/);
  assert.match(text, /target\?: number \| string;/);
  assert.match(text, /labels\?: Record<string, string>;/);
  assert.match(text, /template\?: KubeObject;/);
  assert.match(text, /raw\?: Record<string, unknown>;/);
  assert.match(text, /export const WIDGETS: ResourceRef<Widget> = Object\.freeze\(\{/);
  assert.match(text, /version: "v1",/, "the storage version by default");
  assert.match(text, /namespaced: false,/);
});

Deno.test("a version can be chosen, and an unknown one is an error naming the versions there are", () => {
  const schema = { type: "object", properties: { spec: { type: "object" } } };
  assert.match(generateCrdTypes(crd(schema), { kubeloop: "x", version: "v1beta1" }), /version: "v1beta1",/);
  assert.throws(
    () => generateCrdTypes(crd(schema), { kubeloop: "x", version: "v2" }),
    /no version "v2" \(have v1beta1, v1\)/,
  );
});

Deno.test("what the schema says besides descriptions goes into the field docs", () => {
  const text = generateCrdTypes(
    crd({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            replicas: { type: "integer", format: "int32", minimum: 0, maximum: 10, default: 1 },
            name: {
              type: "string",
              description: "The name.",
              minLength: 1,
              maxLength: 63,
              pattern: "^[a-z]+$",
            },
            when: { type: "string", format: "date-time" },
            ports: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["port", "protocol"],
              items: { type: "integer" },
            },
            tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
            plain: { type: "string" },
          },
        },
      },
    }),
    { kubeloop: "x" },
  );
  assert.match(
    text,
    /\/\*\* `replicas`: minimum 0; maximum 10; defaults to 1\. \*\/\n {2}replicas\?: number;/,
  );
  assert.match(
    text,
    /\/\*\*\n {3}\* The name\.\n {3}\* \(at least 1 characters; at most 63 characters; matches `\^\[a-z\]\+\$`\)\n {3}\*\/\n {2}name\?: string;/,
  );
  assert.match(text, /`when`: format date-time\./);
  assert.match(text, /`ports`: a list-map keyed by port, protocol\./);
  assert.match(text, /`tags`: a set\./);
  assert.match(text, /The `plain` field \(not described by the schema\)\./);
});

Deno.test("list items are named by the singular of their field; a name already taken gets a number", () => {
  const item = { type: "object", properties: { x: { type: "string" } } };
  const text = generateCrdTypes(
    crd({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            policies: { type: "array", items: item },
            boxes: { type: "array", items: item },
            addresses: { type: "array", items: item },
            data: { type: "array", items: item },
            extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { y: item } },
          },
        },
        specs: { type: "array", items: item },
      },
    }),
    { kubeloop: "x" },
  );
  assert.match(text, /policies\?: WidgetSpecPolicy\[\];/);
  assert.match(text, /boxes\?: WidgetSpecBox\[\];/);
  assert.match(text, /addresses\?: WidgetSpecAddress\[\];/);
  assert.match(text, /data\?: WidgetSpecDataItem\[\];/, "no singular: Item is added");
  assert.match(text, /specs\?: WidgetSpec2\[\];/, "WidgetSpec is taken by spec");
  assert.match(text, /\/\*\* `specs\[\]` of a Widget\. \*\/\nexport interface WidgetSpec2 \{/);
  assert.match(
    text,
    /export interface WidgetSpecExtra \{\n.*\n {2}y\?: WidgetSpecExtraY;\n {2}\/\*\* Fields this schema does not name\. \*\/\n {2}\[field: string\]: unknown;\n\}/,
    "known fields and the unknown ones it keeps",
  );
});

Deno.test("a version without a schema, or a $ref (not allowed in a CRD schema), is an error naming the CRD", () => {
  const noSchema = crd({ type: "object" });
  delete noSchema.spec.versions[1]!.schema;
  assert.throws(
    () => generateCrdTypes(noSchema, { kubeloop: "x" }),
    /CRD widgets\.example\.com: version v1 has no openAPIV3Schema/,
  );
  assert.throws(
    () =>
      generateCrdTypes(crd({ type: "object", properties: { spec: { $ref: "#/definitions/Spec" } } }), {
        kubeloop: "x",
      }),
    /CRD widgets\.example\.com: unexpected \$ref "#\/definitions\/Spec" in a structural schema/,
  );
  const noStorage = crd({ type: "object" });
  noStorage.spec.versions[1]!.storage = false;
  assert.throws(
    () => generateCrdTypes(noStorage, { kubeloop: "x" }),
    /CRD widgets\.example\.com: no storage version \(have v1beta1, v1\)/,
  );
});

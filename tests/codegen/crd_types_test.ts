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

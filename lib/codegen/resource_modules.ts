import type { GroupVersionKind, JsonSchema, OpenApiDocument } from "./schema.ts";
import { docComment } from "./ts_text.ts";
import { objectMembers, type TypeContext, typeExpression } from "./type_expression.ts";

/** Options of {@linkcode generateResourceModules}. */
export interface GenerateResourceModulesOptions {
  /** The kinds to emit; every type they use is emitted too. */
  readonly kinds: readonly GroupVersionKind[];
  /**
   * More schemas to emit by full name, e.g. "io.k8s.apimachinery.pkg.apis.meta.v1.Condition".
   * @default {[]}
   */
  readonly extraSchemas?: readonly string[];
  /** Where the schemas came from, for the generated-file header, e.g. "kube-apiserver v1.37.2". */
  readonly source: string;
  /**
   * The command that regenerates the files, named in their header so whoever opens one knows how.
   * @default {"kubeloop's generateResourceModules"}
   */
  readonly command?: string;
  /**
   * Import path of the hand-written base types (KubeObject, ObjectMeta, …) as seen from the output folder:
   * in your own project, the specifier you import kubeloop by (e.g. "@kubeloop/kubeloop").
   * @default {"./object.ts" (lib/resources' own)}
   */
  readonly clientTypes?: string;
}

/** Schemas written by hand in lib/resources/object.ts: mapped to those names instead of being generated. */
const HAND_WRITTEN: Readonly<Record<string, string>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": "ObjectMeta",
  "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": "OwnerReference",
  "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": "ListMeta",
  "io.k8s.apimachinery.pkg.apis.meta.v1.Status": "Status",
};

/** Schemas the server publishes as `{}` although their shape is known. */
const OVERRIDES: Readonly<Record<string, (self: (name: string) => string) => string>> = {
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": (n) =>
    `${n("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")} | ${
      n("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
    }[]`,
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": (n) =>
    `${n("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")} | boolean`,
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": (n) =>
    `${n("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")} | string[]`,
};

const REF_PREFIX = "#/components/schemas/";

/**
 * Generates TypeScript modules for `options.kinds` and every schema they reference, from kube-apiserver's
 * OpenAPI v3 documents (one per group-version, as served under `/openapi/v3/`). Returns file name → source:
 * one module per API package (`core_v1.ts`, `apps_v1.ts`, `apimachinery.ts`, …) plus `refs.ts` with a typed
 * `ResourceRef` constant per kind. Output is deterministic (sorted), so regenerating changes nothing unless
 * the schemas did.
 *
 * @example Types of a built-in kind kubeloop does not ship (RoleBinding), from the cluster's OpenAPI document
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeClient, loadConfig } from "@kubeloop/kubeloop";
 * import { generateResourceModules, type OpenApiDocument } from "@kubeloop/kubeloop/codegen";
 *
 * await using client = new KubeClient(await loadConfig());
 * const document = await client.getPath<OpenApiDocument>("/openapi/v3/apis/rbac.authorization.k8s.io/v1");
 * const files = generateResourceModules([document], {
 *   kinds: [{ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding" }],
 *   source: "my cluster",
 *   clientTypes: "@kubeloop/kubeloop", // the generated files import KubeObject etc. from here
 *   command: "deno task gen:types", // named in the files' header
 * });
 * // Write each file into a folder of your project, then `deno fmt` it.
 * assert.match(files.get("rbac_v1.ts") ?? "", /export interface RoleBinding extends KubeObject/);
 * assert.ok(files.get("rbac_v1.ts")?.includes('import type { KubeObject, ObjectMeta } from "@kubeloop/kubeloop";'));
 * assert.match(files.get("refs.ts") ?? "", /export const ROLE_BINDINGS: ResourceRef<RoleBinding>/);
 * ```
 */
export function generateResourceModules(
  documents: readonly OpenApiDocument[],
  options: GenerateResourceModulesOptions,
): Map<string, string> {
  const schemas = new Map<string, JsonSchema>();
  for (const doc of documents) {
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) schemas.set(name, schema);
  }
  const kindSchemas = options.kinds.map((gvk) => {
    const found = [...schemas].find(([, s]) => isKindSchema(s, gvk));
    if (!found) throw new Error(`No schema for ${gvkText(gvk)} in the OpenAPI documents`);
    return { gvk, name: found[0] };
  });
  const closure = collect([...kindSchemas.map((k) => k.name), ...options.extraSchemas ?? []], schemas);
  const names = typeNames(closure);
  const modules = new Map<string, string[]>();
  for (const full of closure) {
    const list = modules.get(moduleOf(full)) ?? [];
    list.push(full);
    modules.set(moduleOf(full), list);
  }
  const kindByName = new Map(kindSchemas.map((k) => [k.name, k.gvk]));
  const command = options.command === undefined
    ? "kubeloop's generateResourceModules"
    : `\`${options.command}\``;
  const header = `// Code generated by ${command} from the OpenAPI v3 of ${options.source}. DO NOT EDIT.\n`;
  const clientTypes = options.clientTypes ?? "./object.ts";
  const files = new Map<string, string>();
  for (const [module, members] of [...modules].sort(([a], [b]) => a.localeCompare(b))) {
    const imports = new Map<string, Set<string>>();
    const use = (from: string, name: string) => imports.set(from, (imports.get(from) ?? new Set()).add(name));
    const nameOf = (full: string): string => {
      const hand = HAND_WRITTEN[full];
      if (hand) {
        use(clientTypes, hand);
        return hand;
      }
      const target = moduleOf(full);
      const name = names.get(full)!;
      if (target !== module) use(`./${target}.ts`, name);
      return name;
    };
    const ctx: TypeContext = { refName: (ref) => nameOf(ref.slice(REF_PREFIX.length)) };
    let body = "";
    for (const full of members.sort((a, b) => names.get(a)!.localeCompare(names.get(b)!))) {
      body += "\n" +
        declaration(
          full,
          schemas.get(full)!,
          names.get(full)!,
          kindByName.get(full),
          ctx,
          nameOf,
          use,
          clientTypes,
        );
    }
    let head = header;
    head += `/**\n * Kubernetes API types of \`${packageOf(members[0]!)}\`.\n * @module\n */\n`;
    for (const [from, set] of [...imports].sort(([a], [b]) => a.localeCompare(b))) {
      head += `import type { ${[...set].sort().join(", ")} } from "${from}";\n`;
    }
    files.set(`${module}.ts`, head + body);
  }
  files.set("refs.ts", refsModule(documents, kindSchemas, names, header, clientTypes));
  return files;
}

function declaration(
  full: string,
  schema: JsonSchema,
  name: string,
  kind: GroupVersionKind | undefined,
  ctx: TypeContext,
  nameOf: (full: string) => string,
  use: (from: string, name: string) => void,
  clientTypes: string,
): string {
  const doc = docComment(schema.description ?? `\`${name}\` (not described by the schema).`, "");
  const override = OVERRIDES[full];
  if (override) return `${doc}export type ${name} = ${override(nameOf)};\n`;
  const hasProps = Object.keys(schema.properties ?? {}).length > 0;
  if (!hasProps) return `${doc}export type ${name} = ${typeExpression(schema, ctx, [name])};\n`;
  if (kind) {
    use(clientTypes, "KubeObject");
    const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
    // The generic apiVersion/kind texts repeat on every kind; say what they are for this one instead.
    const props = { ...schema.properties };
    if (props.apiVersion) props.apiVersion = { ...props.apiVersion, description: `Always "${apiVersion}".` };
    if (props.kind) props.kind = { ...props.kind, description: `Always "${kind.kind}".` };
    // apiVersion and kind stay \`string\`: list items and watch objects may omit them, and literal types
    // would reject \`const cm = { kind: "ConfigMap", … }\` written without an annotation.
    const members = objectMembers({ ...schema, properties: props }, ctx, [name], "  ").replace(
      /^ {2}metadata\?: ObjectMeta;$/m,
      "  metadata: ObjectMeta;",
    );
    return `${doc}export interface ${name} extends KubeObject {\n${members}}\n`;
  }
  return `${doc}export interface ${name} {\n${objectMembers(schema, ctx, [name], "  ")}}\n`;
}

function refsModule(
  documents: readonly OpenApiDocument[],
  kinds: readonly { gvk: GroupVersionKind; name: string }[],
  names: Map<string, string>,
  header: string,
  clientTypes: string,
): string {
  const refs = kinds.map(({ gvk, name }) => {
    const { plural, namespaced } = listPath(documents, gvk);
    return {
      gvk,
      plural,
      namespaced,
      constant: constantName(gvk.kind, plural),
      typeName: names.get(name)!,
      module: moduleOf(name),
    };
  }).sort((a, b) => a.constant.localeCompare(b.constant));
  let out = header;
  out += `/**\n * Typed {@linkcode ResourceRef}s of the generated kinds: \`informer(DEPLOYMENTS)\` is an\n`;
  out +=
    ` * \`Informer<Deployment>\` and \`client.get(CONFIG_MAPS, name)\` a \`Promise<ConfigMap>\`, without casts.\n`;
  out += ` * @module\n */\n`;
  out += `import type { ResourceRef } from "${clientTypes}";\n`;
  const byModule = new Map<string, string[]>();
  for (const r of refs) byModule.set(r.module, [...(byModule.get(r.module) ?? []), r.typeName]);
  for (const [module, types] of [...byModule].sort(([a], [b]) => a.localeCompare(b))) {
    out += `import type { ${types.sort().join(", ")} } from "./${module}.ts";\n`;
  }
  for (const r of refs) {
    const apiVersion = r.gvk.group ? `${r.gvk.group}/${r.gvk.version}` : `core/${r.gvk.version}`;
    out += `\n/** ${apiVersion} ${r.gvk.kind} (${r.plural}, ${
      r.namespaced ? "namespaced" : "cluster-scoped"
    }). */\n`;
    out += `export const ${r.constant}: ResourceRef<${r.typeName}> = Object.freeze({\n`;
    out += `  group: ${JSON.stringify(r.gvk.group)},\n  version: ${JSON.stringify(r.gvk.version)},\n`;
    out += `  plural: ${JSON.stringify(r.plural)},\n  kind: ${JSON.stringify(r.gvk.kind)},\n`;
    out += `  namespaced: ${r.namespaced},\n});\n`;
  }
  return out;
}

/** The plural and scope of a kind, from its list operation's path. */
function listPath(
  documents: readonly OpenApiDocument[],
  gvk: GroupVersionKind,
): { plural: string; namespaced: boolean } {
  let found: { plural: string; namespaced: boolean } | undefined;
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const get = item["get"] as Record<string, unknown> | undefined;
      const kind = get?.["x-kubernetes-group-version-kind"] as GroupVersionKind | undefined;
      if (
        get?.["x-kubernetes-action"] !== "list" || !kind || !sameGvk(kind, gvk) || path.includes("/watch/")
      ) {
        continue;
      }
      const plural = path.split("/").at(-1)!;
      const namespaced = path.includes("/namespaces/{namespace}/");
      if (!found || namespaced) found = { plural, namespaced };
    }
  }
  if (!found) throw new Error(`No list path for ${gvkText(gvk)} in the OpenAPI documents`);
  return found;
}

/** "ConfigMap" + "configmaps" → "CONFIG_MAPS": the kind's words, the last one pluralised as the server does. */
export function constantName(kind: string, plural: string): string {
  const words = kind.split(/(?<=[a-z0-9])(?=[A-Z])/);
  const head = words.slice(0, -1);
  const prefix = head.join("").toLowerCase();
  const last = plural.startsWith(prefix) ? plural.slice(prefix.length) : plural;
  return [...head, last].map((w) => w.toUpperCase()).join("_");
}

/** Every schema reachable from `roots` through `$ref`s, hand-written ones excluded. */
function collect(roots: readonly string[], schemas: Map<string, JsonSchema>): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || HAND_WRITTEN[name]) return;
    const schema = schemas.get(name);
    if (!schema) throw new Error(`Schema "${name}" is referenced but not defined`);
    seen.add(name);
    for (const ref of refsIn(schema)) visit(ref);
    if (OVERRIDES[name]) visit("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps");
  };
  for (const root of roots) visit(root);
  return [...seen].sort();
}

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== "object" || value === null) return [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key === "$ref" && typeof v === "string" && v.startsWith(REF_PREFIX)) {
      out.push(v.slice(REF_PREFIX.length));
    } else out.push(...refsIn(v));
  }
  return out;
}

/** Short names; a name used by two packages gets its module's name as a prefix in both. */
function typeNames(closure: readonly string[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const full of closure) count.set(shortName(full), (count.get(shortName(full)) ?? 0) + 1);
  return new Map(closure.map((full) => {
    const short = shortName(full);
    if (count.get(short) === 1) return [full, short];
    const prefix = moduleOf(full).split("_").map((p) => p[0]!.toUpperCase() + p.slice(1)).join("");
    return [full, prefix + short];
  }));
}

function shortName(full: string): string {
  return full.slice(full.lastIndexOf(".") + 1);
}

function packageOf(full: string): string {
  return full.slice(0, full.lastIndexOf("."));
}

/** The output module of a schema: one per API package. */
export function moduleOf(full: string): string {
  const pkg = packageOf(full);
  if (pkg.startsWith("io.k8s.api.")) return pkg.slice("io.k8s.api.".length).replace(/[.-]/g, "_");
  if (pkg.startsWith("io.k8s.apimachinery.")) return "apimachinery";
  const apis = pkg.match(/\.apis\.([^.]+)\.([^.]+)$/);
  if (apis) return `${apis[1]}_${apis[2]}`.replace(/[.-]/g, "_");
  return pkg.replace(/[.-]/g, "_");
}

function isKindSchema(schema: JsonSchema, gvk: GroupVersionKind): boolean {
  const kinds = schema["x-kubernetes-group-version-kind"] ?? [];
  return kinds.length === 1 && sameGvk(kinds[0]!, gvk);
}

function sameGvk(a: GroupVersionKind, b: GroupVersionKind): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

function gvkText(gvk: GroupVersionKind): string {
  return `${gvk.group || "core"}/${gvk.version} ${gvk.kind}`;
}

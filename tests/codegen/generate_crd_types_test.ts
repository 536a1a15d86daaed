/**
 * The CRD generator's command line, run as `deno task gen:crds` runs it (a `deno run` process), with the
 * output in a temporary project: the committed file is what the task writes, the output follows the
 * project it lands in, and mistakes are one clear line with a non-zero exit that leaves no output behind.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseCrds } from "../../lib/codegen/generate_crd_types.ts";

const root = new URL("../../", import.meta.url);
const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as {
  tasks: Record<string, string>;
  fmt: Record<string, unknown>;
};
// Split like a shell: the task quotes its --command value.
const task = (config.tasks["gen:crds"]!.match(/"[^"]*"|\S+/g) ?? []).map((a) => a.replace(/^"(.*)"$/, "$1"));
const script = task.findIndex((a) => a.endsWith("generate_crd_types.ts"));
/** The task's `deno run` flags and script (as an absolute path), without the arguments: from any folder. */
const runScript = [...task.slice(1, script), new URL(task[script]!, root).pathname];
const foosYaml = new URL("crds/samplecontroller.k8s.io_foos.yaml", root).pathname;

interface Run {
  readonly code: number;
  readonly stderr: string;
}

async function deno(args: readonly string[], cwd: string | URL): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** A temporary project folder holding `files`; removed on dispose. */
async function project(files: Record<string, string> = {}): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-gen-crds-" });
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

const crdYaml = (kind: string, plural: string, versions: string) => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { kind: ${kind}, plural: ${plural} }
  versions:${versions}
`;
const version = (name: string, storage: boolean, field: string) => `
    - name: ${name}
      served: true
      storage: ${storage}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { ${field}: { type: string } } }`;

const MULTI = [
  "apiVersion: v1\nkind: Namespace\nmetadata: { name: not-a-crd }",
  crdYaml("Widget", "widgets", version("v1", true, "color")),
  crdYaml("Gizmo", "gizmos", version("v1beta1", false, "oldField") + version("v1", true, "newField")),
].join("\n---\n");

Deno.test("`deno task gen:crds` writes exactly the committed lib/sample_controller/foo.ts", async () => {
  // The task's command line with only the output moved, into a folder formatted like this repository.
  const { exclude: _, ...fmt } = config.fmt;
  await using tmp = await project({ "deno.json": JSON.stringify({ fmt }) });
  const output = join(tmp.dir, "foo.ts");
  const args = task.slice(1).map((a) => (a === "lib/sample_controller/foo.ts" ? output : a));
  assert.notDeepEqual(args, task.slice(1), "the task writes lib/sample_controller/foo.ts");
  const run = await deno(args, root);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    await Deno.readTextFile(output),
    await Deno.readTextFile(new URL("lib/sample_controller/foo.ts", root)),
    "run `deno task gen:crds` after changing crds/",
  );
});

Deno.test("without --import the output imports this lib/mod.ts and is formatted like the project it lands in", async () => {
  // Run from this repository (as `deno task` would), writing into another project with its own settings.
  await using tmp = await project({
    "deno.json": JSON.stringify({ fmt: { indentWidth: 4, lineWidth: 60 } }),
  });
  await Deno.mkdir(join(tmp.dir, "src"));
  const output = join(tmp.dir, "src/foo_types.ts");
  const run = await deno([...runScript, foosYaml, output], root);
  assert.equal(run.code, 0, run.stderr);
  const text = await Deno.readTextFile(output);
  const specifier = /^} from "([^"]+)";$/m.exec(text)?.[1];
  assert.ok(specifier, text.slice(0, 400));
  assert.match(specifier, /^(\.\.\/)+.*lib\/mod\.ts$/, "a relative path");
  assert.equal(new URL(specifier, pathToFileURL(output)).href, new URL("lib/mod.ts", root).href);
  assert.match(text, /^ {4}metadata: ObjectMeta;$/m, "the project's indent width");
  const check = await deno(["fmt", "--check", "src/foo_types.ts"], tmp.dir);
  assert.equal(check.code, 0, `the project's deno fmt --check passes:\n${check.stderr}`);
});

Deno.test("--kind picks one of several CRDs in a file, --version one of its versions", async () => {
  await using tmp = await project({ "crds.yaml": MULTI });
  const generate = async (...options: string[]) => {
    const run = await deno(
      [...runScript, "crds.yaml", "out.ts", "--import", "kubeloop", ...options],
      tmp.dir,
    );
    assert.equal(run.code, 0, run.stderr);
    return await Deno.readTextFile(join(tmp.dir, "out.ts"));
  };
  const first = await generate();
  assert.match(first, /export interface Widget extends KubeObject/, "the first CRD by default");
  assert.match(first, /from "kubeloop";/);
  const gizmo = await generate("--kind", "Gizmo");
  assert.match(gizmo, /export interface Gizmo extends KubeObject/);
  assert.match(gizmo, /newField\?: string;/, "the storage version by default");
  assert.match(gizmo, /version: "v1",/);
  const old = await generate("--kind=Gizmo", "--version=v1beta1");
  assert.match(old, /oldField\?: string;/);
  assert.match(old, /version: "v1beta1",/);
  assert.doesNotMatch(old, /newField/);
});

Deno.test("a mistake prints one line naming the argument, file or field, exits non-zero and writes nothing", async () => {
  await using tmp = await project({
    "crds.yaml": MULTI,
    "broken.yaml": "kind: CustomResourceDefinition\nspec:\n  group: x\n names: {}\n",
    "incomplete.yaml": crdYaml("Widget", "widgets", "").replace(/\n {2}names: .*/, ""),
    "nocrd.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n",
  });
  const cases: [string[], number, RegExp][] = [
    [[], 2, /expected a CRD file and an output file, got 0 argument\(s\)\nusage: generate_crd_types\.ts /],
    [["crds.yaml", "out.ts", "extra.ts"], 2, /got 3 argument\(s\)/],
    [["crds.yaml", "out.ts", "--verison", "v1"], 2, /unknown option "--verison"\nusage:/],
    [["crds.yaml", "out.ts", "--kind"], 2, /option --kind needs a value/],
    [["missing.yaml", "out.ts"], 1, /Cannot read "missing\.yaml": No such file/],
    [["broken.yaml", "out.ts"], 1, /Cannot parse "broken\.yaml": .* at line 4, column 1$/m],
    [
      ["incomplete.yaml", "out.ts"],
      1,
      /"incomplete\.yaml": CustomResourceDefinition "widgets\.example\.com" \(document 1\) has no spec\.names\.kind/,
    ],
    [["nocrd.yaml", "out.ts"], 1, /No CustomResourceDefinition in "nocrd\.yaml"$/m],
    [
      ["crds.yaml", "out.ts", "--kind", "Foo"],
      1,
      /No CustomResourceDefinition of kind Foo in "crds\.yaml" \(it defines Widget, Gizmo\)/,
    ],
    [
      ["crds.yaml", "out.ts", "--kind", "Gizmo", "--version", "v2"],
      1,
      /CRD gizmos\.example\.com: no version "v2" \(have v1beta1, v1\)/,
    ],
    [["crds.yaml", "no/such/dir/out.ts"], 1, /Cannot write "no\/such\/dir\/out\.ts": No such file/],
  ];
  for (const [args, code, message] of cases) {
    const run = await deno([...runScript, ...args], tmp.dir);
    const what = `generate_crd_types.ts ${args.join(" ")}`;
    assert.equal(run.code, code, `${what}: exit code\n${run.stderr}`);
    assert.match(run.stderr, /^generate_crd_types: /, what);
    assert.match(run.stderr, message, `${what}: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /^\s+at /m, `${what}: no stack trace`);
    await assert.rejects(Deno.stat(join(tmp.dir, "out.ts")), Deno.errors.NotFound, `${what}: no output`);
  }
});

Deno.test("a CRD document without a field the generator reads is an error naming the document and field", () => {
  const full = {
    group: "example.com",
    names: { kind: "Widget", plural: "widgets" },
    versions: [{ name: "v1" }],
  };
  const cases: [unknown, string][] = [
    [undefined, "spec.group"],
    [{ ...full, group: undefined }, "spec.group"],
    [{ ...full, names: { plural: "widgets" } }, "spec.names.kind"],
    [{ ...full, names: { kind: "Widget" } }, "spec.names.plural"],
    [{ ...full, versions: [] }, "spec.versions"],
  ];
  for (const [spec, field] of cases) {
    const text = [
      "kind: ConfigMap",
      JSON.stringify({ kind: "CustomResourceDefinition", metadata: { name: "widgets.example.com" }, spec }),
    ].join("\n---\n");
    assert.throws(
      () => parseCrds(text, "crds.yaml"),
      new Error(
        `Cannot use "crds.yaml": CustomResourceDefinition "widgets.example.com" (document 2) has no ${field}`,
      ),
    );
  }
  assert.equal(
    parseCrds(`kind: CustomResourceDefinition\nspec: ${JSON.stringify(full)}`, "ok.yaml").length,
    1,
  );
});

Deno.test("the header names the command that wrote the file; --help prints the usage and exits 0", async () => {
  await using tmp = await project({ "crds.yaml": MULTI });
  const run = await deno(
    [...runScript, "crds.yaml", "out.ts", "--import", "kubeloop", "--kind", "Gizmo"],
    tmp.dir,
  );
  assert.equal(run.code, 0, run.stderr);
  const first = (await Deno.readTextFile(join(tmp.dir, "out.ts"))).split("\n")[0];
  assert.equal(
    first,
    "// Code generated by `generate_crd_types.ts crds.yaml out.ts --import kubeloop --kind Gizmo` from crds.yaml. " +
      "DO NOT EDIT.",
  );
  const named = await deno([...runScript, "crds.yaml", "out.ts", "--command", "deno task gen"], tmp.dir);
  assert.equal(named.code, 0, named.stderr);
  assert.match(
    await Deno.readTextFile(join(tmp.dir, "out.ts")),
    /^\/\/ Code generated by `deno task gen` from/,
  );
  const help = await new Deno.Command(Deno.execPath(), {
    args: [...runScript, "--help"],
    cwd: tmp.dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(help.code, 0);
  const text = new TextDecoder().decode(help.stdout);
  assert.match(text, /^usage: generate_crd_types\.ts CRD\.yaml OUT\.ts/);
  assert.match(text, /--version V/);
  assert.equal(new TextDecoder().decode(help.stderr), "");
});

/**
 * lib/resources is what `deno task gen:resources` makes from the local kube-apiserver's OpenAPI v3. The task
 * runs here as a process, as a maintainer runs it, with only its output moved to a temporary folder: against
 * the release the files were generated from, its output equals the committed files and mod.ts exports every
 * generated module; against another supported release (KUBELOOP_K8S_VERSION=1.34), every typed ResourceRef
 * is served by that server, so the typed refs work on the oldest release too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fetchOpenApi } from "../../lib/codegen/generate_resources.ts";
import * as refs from "../../lib/resources/refs.ts";
import { adminClient } from "../_util/clients.ts";
import { kubectlOk, testEnv } from "../_util/testenv.ts";

const root = new URL("../../", import.meta.url);
const dir = new URL("lib/resources/", root);
const generatedFrom = /from the OpenAPI v3 of kube-apiserver (v\S+)\./.exec(
  await Deno.readTextFile(new URL("refs.ts", dir)),
)?.[1];
const serverVersion: string = JSON.parse(await kubectlOk(["version", "-o", "json"])).serverVersion.gitVersion;
const task = (JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as {
  tasks: Record<string, string>;
}).tasks["gen:resources"]!.split(/\s+/);

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `deno task gen:resources` with `args` appended, as a process of its own. */
async function genResources(...args: string[]): Promise<Run> {
  assert.equal(task[0], "deno");
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...task.slice(1), ...args],
    cwd: root,
    env: { KUBELOOP_TESTENV_BIN: testEnv.binDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Runs `fn` with a temporary folder, removed afterwards. */
async function inTempDir(fn: (path: string) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempDir({ prefix: "kubeloop-gen-resources-" });
  try {
    await fn(path);
  } finally {
    await Deno.remove(path, { recursive: true });
  }
}

/** Name → text of the .ts files in `path`. */
async function readFiles(path: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(path)) {
    if (entry.isFile && entry.name.endsWith(".ts")) {
      files.set(entry.name, await Deno.readTextFile(join(path, entry.name)));
    }
  }
  return files;
}

Deno.test({
  name:
    "`deno task gen:resources` regenerates exactly the committed lib/resources files from its own control plane",
  ignore: serverVersion !== generatedFrom,
  fn: () =>
    inTempDir(async (out) => {
      const run = await genResources("--out", out);
      assert.equal(run.code, 0, run.stderr);
      const files = await readFiles(out);
      assert.equal(run.stdout, `Generated ${files.size} files in ${out}\n`);
      assert.ok(files.size >= 8, `generated ${[...files.keys()].join(", ")}`);
      const stale: string[] = [];
      for (const [name, text] of files) {
        const committed = await Deno.readTextFile(new URL(name, dir)).catch(() => "(missing)");
        if (committed !== text) stale.push(name);
      }
      assert.deepEqual(stale, [], "run `deno task gen:resources` and commit the result");
      const mod = await Deno.readTextFile(new URL("mod.ts", dir));
      for (const name of files.keys()) {
        assert.match(mod, new RegExp(`"\\./${name.replace(".", "\\.")}"`), name);
      }
    }),
});

Deno.test("gen:resources --kubeconfig generates from that cluster; a bad command line or kubeconfig is one clear line", async () => {
  await inTempDir(async (out) => {
    const run = await genResources("--kubeconfig", testEnv.kubeconfig, "--out", out);
    assert.equal(run.code, 0, run.stderr);
    const files = await readFiles(out);
    assert.ok(files.size >= 8, `generated ${[...files.keys()].join(", ")}`);
    assert.equal(run.stdout, `Generated ${files.size} files in ${out}\n`);
    for (const [name, text] of files) {
      assert.match(
        text,
        new RegExp(`^// Code generated .* of kube-apiserver ${serverVersion}\\. DO NOT EDIT\\.`),
        name,
      );
    }
    if (serverVersion === generatedFrom) {
      const committed = [...(await readFiles(dir.pathname))].filter(([, text]) =>
        text.startsWith("// Code generated")
      );
      assert.deepEqual([...files.keys()].sort(), committed.map(([name]) => name).sort());
    }

    const mistakes: [string[], number, RegExp][] = [
      [["--kubeconfig"], 2, /^generate_resources: option --kubeconfig needs a value\nusage: /],
      [
        ["--kubeconfig", join(out, "missing"), "--out", out],
        1,
        /^generate_resources: Cannot read kubeconfig ".*missing": /,
      ],
      [
        ["--out", join(out, "missing")],
        1,
        /^generate_resources: The output directory ".*missing" does not exist\n$/,
      ],
      [["lib/resources"], 2, /^generate_resources: unexpected argument "lib\/resources"\nusage: /],
    ];
    for (const [args, code, message] of mistakes) {
      const failed = await genResources(...args);
      assert.equal(failed.code, code, `${args.join(" ")}: ${failed.stderr}`);
      assert.match(failed.stderr, message, args.join(" "));
      assert.doesNotMatch(failed.stderr, /^\s+at /m, "no stack trace");
    }
    assert.deepEqual(
      [...(await readFiles(out)).keys()].sort(),
      [...files.keys()].sort(),
      "nothing else written",
    );
  });
});

Deno.test("a group-version the server does not publish OpenAPI for is an error naming it", async () => {
  await using client = await adminClient();
  await assert.rejects(
    fetchOpenApi(client, ["v1", "nothing.example.com/v1"]),
    /The server publishes no OpenAPI v3 document for apis\/nothing\.example\.com\/v1/,
  );
});

Deno.test("every typed ResourceRef is served, with its kind and scope, by the running kube-apiserver", async () => {
  assert.ok(generatedFrom, "lib/resources/refs.ts names the release it was generated from");
  const served = new Map<string, { resources: { name: string; kind: string; namespaced: boolean }[] }>();
  for (const ref of Object.values(refs)) {
    const path = ref.group === "" ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
    if (!served.has(path)) served.set(path, JSON.parse(await kubectlOk(["get", "--raw", path])));
    const resource = served.get(path)!.resources.find((r) => r.name === ref.plural);
    assert.ok(resource, `${path}/${ref.plural} is not served by ${serverVersion}`);
    assert.equal(resource.kind, ref.kind, `${ref.plural}: kind`);
    assert.equal(resource.namespaced, ref.namespaced, `${ref.plural}: namespaced`);
  }
});

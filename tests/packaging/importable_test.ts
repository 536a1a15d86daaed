/**
 * kubeloop is used from other projects: lib/ must resolve without our deno.json (no bare specifiers),
 * type-check under a user's default compiler options, run, and be publishable as is.
 */
import assert from "node:assert/strict";
import { publishDryRun } from "../_util/published_files.ts";
import { createUserProject } from "../_util/user_project.ts";

const root = new URL("../../", import.meta.url);

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

Deno.test("every import in lib/ is relative or carries its registry (npm:, node:), so no import map is needed", async () => {
  const bare: string[] = [];
  for await (const file of sourceFiles(new URL("lib/", root))) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^"'`;]*?from\s*["']([^"']+)["']/g)) {
      const spec = m[1] ?? "";
      if (!/^(\.\.?\/|npm:|node:)/.test(spec)) {
        bare.push(`${file.pathname.slice(root.pathname.length)}: ${spec}`);
      }
    }
    for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) {
      const spec = m[1] ?? "";
      if (!/^(\.\.?\/|npm:|node:)/.test(spec)) {
        bare.push(`${file.pathname.slice(root.pathname.length)}: ${spec}`);
      }
    }
  }
  assert.deepEqual(bare, []);
});

Deno.test("a project in an empty folder with no import map imports lib/mod.ts by path, type-checks and runs", async () => {
  await using project = await createUserProject({
    "main.ts": `
import { CONFIG_MAPS, loadConfig } from "{{LIB}}mod.ts";

const kubeconfig = "clusters:\\n- name: c\\n  cluster: {server: https://127.0.0.1:6443}\\n" +
  "contexts:\\n- name: x\\n  context: {cluster: c, namespace: a}\\ncurrent-context: x\\n";
const config = await loadConfig({
  kubeconfig: "/nowhere/config",
  readTextFile: (path) => Promise.resolve(path === "/nowhere/config" ? kubeconfig : ""),
  env: () => undefined,
});
const server: string = config.server.href;
console.log(JSON.stringify({ server, namespace: config.namespace, plural: CONFIG_MAPS.plural }));
`,
  });
  const check = await project.deno(["check", "main.ts"]);
  assert.equal(check.code, 0, check.stderr);
  const run = await project.deno(["run", "--allow-read", "--ignore-env=LOG_TOKENS,LOG_STREAM", "main.ts"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), {
    server: "https://127.0.0.1:6443/",
    namespace: "a",
    plural: "configmaps",
  });
});

Deno.test("deno publish --dry-run passes: license, no slow types, every export documented", async () => {
  const { code, output, files } = await publishDryRun();
  assert.equal(code, 0, output.slice(-4000));
  assert.match(output, /Dry run complete/);
  assert.doesNotMatch(output, /error\[/); // slow types and other publish problems are error[<code>] lines
  // Only the library (and its docs and config) is published: not tests, benches or the repository's
  // control plane folder (the package carries the control plane's sources as lib/testing/_testenv_sources.ts).
  assert.ok(files.includes("lib/mod.ts"), files.join("\n"));
  assert.ok(files.includes("lib/testing/_testenv_sources.ts"), files.join("\n"));
  assert.deepEqual(files.filter((f) => !/^(lib\/|README\.md$|deno\.json$)/.test(f)), []);
});

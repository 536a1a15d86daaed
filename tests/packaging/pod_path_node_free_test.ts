/**
 * The controller's pod path loads no `node:` (or `npm:`) module when it starts: either would load Deno's
 * Node compatibility layer, about 6-7 MB of RSS in every pod. The module graph of main.ts is read from
 * `deno info --json` and walked along static imports only. Dynamic imports are allowed: deno info marks
 * them `isDynamic` (only when no static import of the same module exists), and they load only when a
 * code path needs them (node:tls for the connections Deno's TLS cannot carry, npm:yaml for kubeconfig
 * files). Type-only imports (`import type`) are not code and are not followed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

interface InfoDependency {
  readonly specifier: string;
  /** Absent for a type-only import. */
  readonly code?: { readonly specifier: string };
  readonly isDynamic?: boolean;
}

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly InfoDependency[];
  readonly error?: string;
}

interface Info {
  readonly roots: readonly string[];
  readonly modules: readonly InfoModule[];
  readonly redirects: Readonly<Record<string, string>>;
}

const repo = new URL("../../", import.meta.url).pathname;

async function denoInfo(entry: string, cwd: string, extra: readonly string[] = []): Promise<Info> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", ...extra, entry],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.ok(out.success, `deno info ${entry} failed:\n${dec.decode(out.stderr)}`);
  return JSON.parse(dec.decode(out.stdout)) as Info;
}

/** Specifiers that load the Node compatibility layer. */
const nodeLayer = (specifier: string) => specifier.startsWith("node:") || specifier.startsWith("npm:");

/**
 * Every `node:`/`npm:` module reachable from the roots along static imports, each with one shortest
 * import chain from a root; and the reachable modules deno info could not load, which the walk
 * cannot vouch for.
 */
function staticNodeChains(info: Info): { chains: string[][]; errors: string[] } {
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (specifier: string) => info.redirects[specifier] ?? specifier;
  const parent = new Map<string, string | undefined>();
  const queue: string[] = [];
  for (const root of info.roots) {
    const r = resolve(root);
    if (parent.has(r)) continue;
    parent.set(r, undefined);
    queue.push(r);
  }
  const found: string[] = [];
  const errors: string[] = [];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (nodeLayer(at)) {
      found.push(at);
      continue;
    }
    const module = modules.get(at);
    if (module?.error !== undefined) errors.push(`${at}: ${module.error}`);
    for (const dep of module?.dependencies ?? []) {
      if (dep.code === undefined || dep.isDynamic === true) continue;
      const next = resolve(dep.code.specifier);
      const target = nodeLayer(dep.code.specifier) ? dep.code.specifier : next;
      if (parent.has(target)) continue;
      parent.set(target, at);
      queue.push(target);
    }
  }
  const chains = found.map((leaf) => {
    const chain = [leaf];
    for (let at = parent.get(leaf); at !== undefined; at = parent.get(at)) chain.unshift(at);
    return chain;
  });
  return { chains, errors };
}

/** A chain as repository-relative paths: `main.ts -> lib/mod.ts -> … -> node:zlib`. */
function show(chain: readonly string[], root: string): string {
  const base = new URL(`file://${root}`).href;
  return chain.map((s) => s.startsWith(base) ? s.slice(base.length) : s).join(" -> ");
}

Deno.test("the walk finds node: modules behind static imports only, and names the chain", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-node-free-" });
  try {
    const files: Record<string, string> = {
      "root.ts": [
        'import "./a.ts";',
        'import type { B } from "./types.ts";',
        'export const lazy = () => import("./lazy.ts");',
        'import "./both.ts";',
        'export const again = () => import("./both.ts");',
        "export type { B };",
      ].join("\n"),
      "a.ts": 'import "./b.ts";',
      "b.ts": 'import { hostname } from "node:os";\nexport const h = hostname;',
      "types.ts": 'import type { Buffer } from "node:buffer";\nexport type B = Buffer;',
      "lazy.ts": 'import "node:fs";',
      "both.ts": 'import "node:path";',
    };
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text + "\n");
    const { chains, errors } = staticNodeChains(await denoInfo("root.ts", dir, ["--no-config", "--no-lock"]));
    assert.deepEqual(errors, []);
    assert.deepEqual(chains.map((c) => show(c, `${dir}/`)).sort(), [
      "root.ts -> a.ts -> b.ts -> node:os",
      "root.ts -> both.ts -> node:path",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the controller's pod path (main.ts) imports no node: or npm: module statically", async () => {
  const { chains, errors } = staticNodeChains(await denoInfo("main.ts", repo));
  assert.deepEqual(errors, [], "modules on the pod path that deno info could not resolve");
  assert.ok(
    chains.length === 0,
    "main.ts loads the Node compatibility layer at start through these static imports:\n" +
      chains.map((c) => `  ${show(c, repo)}`).join("\n"),
  );
});

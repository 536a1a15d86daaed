/**
 * Reads lib/'s import graph and judges it against the floors in docs/architecture.md: no import circle
 * between files (type-only imports count: they tie files together for a reader just the same), no import
 * that climbs to a folder on a higher floor or sideways to another folder on the same floor, no folder
 * without a floor, and nothing in lib/ that reaches outside lib/.
 *
 * `deno run --allow-read tests/tooling/import_graph.ts` prints the folder graph and any violation.
 */
import { dirname, join, normalize, relative } from "node:path";
import { print } from "../_util/print.ts";

/**
 * Each folder of lib/ and the floor it sits on; a folder may import only folders on lower floors.
 * docs/architecture.md explains each floor; keep the two in step.
 */
export const FLOORS: Readonly<Record<string, number>> = {
  time: 0,
  resources: 0,
  gzip: 0,
  _internal: 1,
  log: 1,
  metrics: 1,
  trace: 1,
  x509: 2,
  http: 3,
  config: 4,
  queue: 4,
  observe: 4,
  client: 5,
  webhook: 5,
  watch: 6,
  leader: 6,
  shard: 6,
  events: 6,
  auth: 6,
  cache: 7,
  controller: 8,
  webhook_certs: 8,
  testing: 9,
  codegen: 9,
  sample_controller: 10,
  init: 10,
  ".": 11,
};

/** One import: the importing file, the imported file (both relative to the repository root). */
export interface Edge {
  readonly from: string;
  readonly to: string;
}

// import … from "x"; export … from "x"; import "x"; import("x") — with a literal specifier.
const SPECIFIER =
  /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The relative imports of one module's source text (comments stripped first). */
export function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const out: string[] = [];
  for (const m of code.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2];
    if (spec !== undefined) out.push(spec);
  }
  return out;
}

/** Every import between files under `root` (a repository-relative folder such as "lib"). */
export async function readGraph(repo: string, root = "lib"): Promise<Edge[]> {
  const edges: Edge[] = [];
  for (const file of await tsFiles(join(repo, root))) {
    const from = relative(repo, file);
    for (const spec of importsOf(await Deno.readTextFile(file))) {
      if (!spec.startsWith(".")) continue;
      edges.push({ from, to: normalize(join(dirname(from), spec)) });
    }
  }
  return edges;
}

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await tsFiles(path));
    else if (entry.isFile && entry.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

/** The folder of lib/ a file belongs to ("." for lib/mod.ts), or undefined outside lib/. */
export function folderOf(file: string, root = "lib"): string | undefined {
  if (!file.startsWith(`${root}/`)) return undefined;
  const rest = file.slice(root.length + 1);
  const slash = rest.indexOf("/");
  return slash === -1 ? "." : rest.slice(0, slash);
}

/** Every circle of files (strongly connected components of more than one file, or a self-import). */
export function circles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  // Tarjan's algorithm, iterative so a long chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const children = next.get(top.node)!;
      if (top.child < children.length) {
        const child = children[top.child++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        const selfLoop = component.length === 1 && children.includes(top.node);
        if (component.length > 1 || selfLoop) found.push(component.sort());
      }
    }
  }
  return found;
}

/** What is wrong with the layering: climbs, sideways imports, folders without a floor, escapes. */
export function layerViolations(
  edges: readonly Edge[],
  floors: Readonly<Record<string, number>> = FLOORS,
  root = "lib",
): string[] {
  const problems = new Set<string>();
  for (const { from, to } of edges) {
    const a = folderOf(from, root);
    const b = folderOf(to, root);
    if (a === undefined) continue;
    if (b === undefined) {
      problems.add(`${from} imports ${to}, outside ${root}/: a published module must stand on its own`);
      continue;
    }
    for (const folder of [a, b]) {
      if (floors[folder] === undefined) {
        problems.add(`${root}/${folder} has no floor: add it to FLOORS and docs/architecture.md`);
      }
    }
    if (a === b || floors[a] === undefined || floors[b] === undefined) continue;
    if (floors[b]! >= floors[a]!) {
      const how = floors[b]! > floors[a]! ? "climbs" : "goes sideways";
      problems.add(
        `${from} (${a}, floor ${floors[a]}) imports ${to} (${b}, floor ${floors[b]}): the import ${how}`,
      );
    }
  }
  return [...problems].sort();
}

/** Folder → folders it imports, for the printout. */
export function folderGraph(edges: readonly Edge[], root = "lib"): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = folderOf(from, root);
    const b = folderOf(to, root);
    if (a === undefined || b === undefined || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
  }
  return graph;
}

if (import.meta.main) {
  const repo = new URL("../..", import.meta.url).pathname;
  const edges = await readGraph(repo);
  const graph = folderGraph(edges);
  const byFloor = Object.keys(FLOORS).sort((x, y) => FLOORS[x]! - FLOORS[y]! || x.localeCompare(y));
  for (const folder of byFloor) {
    const deps = [...(graph.get(folder) ?? [])].sort((x, y) => FLOORS[x]! - FLOORS[y]!);
    print(`${String(FLOORS[folder]).padStart(2)}  ${folder.padEnd(18)} -> ${deps.join(", ")}`);
  }
  const problems = [
    ...circles(edges).map((c) => `import circle: ${c.join(" -> ")}`),
    ...layerViolations(edges),
  ];
  for (const p of problems) print(p);
  if (problems.length > 0) Deno.exit(1);
}

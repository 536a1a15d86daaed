/**
 * The public surface as `deno doc` shows it: one name per concept across the entry points, every
 * option documents its default where users read it (a parsed `@default {…}` tag), and the names a user
 * meets first carry a runnable `@example` (tests/run.sh type-checks and runs them with `deno test --doc`).
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);
/** The modules users import. */
const ENTRY_POINTS = [
  "lib/mod.ts",
  "lib/resources/mod.ts",
  "lib/sample_controller/mod.ts",
  "lib/testing/mod.ts",
  "lib/codegen/mod.ts",
  "lib/init/main.ts",
  "lib/init/gen.ts",
];

interface DocTag {
  kind: string;
  value?: string;
  doc?: string;
}
interface DocProperty {
  name: string;
  optional?: boolean;
  jsDoc?: { doc?: string; tags?: DocTag[] };
}
interface DocDeclaration {
  kind: string;
  location: { filename: string; line: number };
  jsDoc?: { doc?: string; tags?: DocTag[] };
  def?: { properties?: DocProperty[] };
}
interface DocSymbol {
  name: string;
  declarations: DocDeclaration[];
}

/** The `@example` tags of each entry point's module doc. */
const moduleExamples = new Map<string, DocTag[]>();

async function symbolsOf(entry: string): Promise<DocSymbol[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const doc = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[]; module_doc?: { tags?: DocTag[] } }>;
  };
  const nodes = Object.values(doc.nodes);
  moduleExamples.set(
    entry,
    nodes.flatMap((n) => n.module_doc?.tags ?? []).filter((t) => t.kind === "example"),
  );
  return nodes.flatMap((node) => node.symbols);
}

const symbols = new Map<string, DocSymbol[]>();
for (const entry of ENTRY_POINTS) symbols.set(entry, await symbolsOf(entry));

/** Where a symbol is declared (its first declaration: re-exports repeat the same one). */
function origin(symbol: DocSymbol): string {
  const d = symbol.declarations[0];
  return d ? `${d.location.filename.slice(root.href.length)}:${d.location.line}` : "?";
}

Deno.test("a name exported by several entry points is one declaration everywhere", () => {
  const files = new Map<string, Set<string>>();
  for (const list of symbols.values()) {
    for (const symbol of list) {
      const set = files.get(symbol.name) ?? new Set<string>();
      // Re-exports of one type list the same declaration again; another file means another thing.
      for (const d of symbol.declarations) {
        if (d.kind !== "reference") set.add(d.location.filename.slice(root.href.length));
      }
      files.set(symbol.name, set);
    }
  }
  const twice = [...files].filter(([, set]) => set.size > 1).map(([name, set]) =>
    `${name}: ${[...set].join(", ")}`
  );
  assert.deepEqual(twice, []);
});

Deno.test("no second name for the store or the informer handler", () => {
  const names = new Set([...symbols.values()].flat().map((s) => s.name));
  for (const name of ["StoreLike", "InformerHandlerLike"]) assert.ok(!names.has(name), `${name} is exported`);
  for (const name of ["Store", "InformerHandler", "objectKey", "DEPLOYMENTS"]) {
    assert.ok(names.has(name), `${name} is not exported`);
  }
});

Deno.test("every optional field of an exported *Options interface shows its default in deno doc", () => {
  const missing: string[] = [];
  for (const list of symbols.values()) {
    for (const symbol of list) {
      if (!symbol.name.endsWith("Options")) continue;
      const declaration = symbol.declarations.find((d) => d.kind === "interface");
      // Generated API types (e.g. SELinuxOptions) are data, not call options.
      if (declaration?.location.filename.includes("/lib/resources/")) continue;
      for (const property of declaration?.def?.properties ?? []) {
        if (!property.optional) continue;
        const tags = property.jsDoc?.tags ?? [];
        if (!tags.some((t) => t.kind === "default" && (t.value ?? "") !== "")) {
          missing.push(`${symbol.name}.${property.name} (${origin(symbol)})`);
        }
      }
    }
  }
  assert.deepEqual([...new Set(missing)], []);
});

Deno.test("lib/mod.ts lists what it exports by name: no export *", async () => {
  const text = await Deno.readTextFile(new URL("lib/mod.ts", root));
  assert.deepEqual(text.match(/^export \*.*$/gm) ?? [], []);
});

Deno.test("no entry point exports the watcher's internals or a second name for a concept", () => {
  const names = new Set([...symbols.values()].flat().map((s) => s.name));
  const internals = [
    "step",
    "nextAction",
    "initialState",
    "streamIsOpen",
    "isGone",
    "assertNever",
    "WatcherState",
    "WatcherPhase",
    "WatcherInput",
    "WatcherAction",
    "WatcherTransition",
    "StoreWriter",
    "TokenBucket",
    "DecisionCache",
  ];
  // Renamed so one concept has one name: ConfigLogger and ConfigClock were narrow copies of Logger
  // and Clock; Request shadowed the Fetch global (now ReconcileRequest); controller() was a second
  // way to build a Controller; WatchEvent/WatchOptions read like WatcherEvent/WatcherOptions (now
  // RawWatchEvent/RawWatchOptions).
  const retired = [
    "ConfigLogger",
    "ConfigClock",
    "silentConfigLogger",
    "Request",
    "controller",
    "WatchEvent",
    "WatchOptions",
  ];
  assert.deepEqual([...internals, ...retired].filter((n) => names.has(n)), []);
  for (const name of ["ReconcileRequest", "RawWatchEvent", "WatcherEvent", "Controller", "Logger", "Clock"]) {
    assert.ok(names.has(name), `${name} is not exported`);
  }
});

/** The names a user meets first, per entry point: each must keep a runnable `@example`. */
const NEED_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  "lib/mod.ts": [
    "loadConfig",
    "inClusterConfig",
    "KubeClient",
    "ResourceClient",
    "watcher",
    "withBackoff",
    "Informer",
    "SharedInformerFactory",
    "IndexedStore",
    "Indexers",
    "WorkQueue",
    "RateLimitingQueue",
    "defaultControllerRateLimiter",
    "Controller",
    "Manager",
    "LeaderElector",
    "ShardCoordinator",
    "EventRecorder",
    "apply",
    "createOrPatch",
    "setCondition",
    "findCondition",
    "isConditionTrue",
    "setControllerReference",
    "isControlledBy",
    "addFinalizer",
    "removeFinalizer",
    "finalizer",
    "generationChanged",
    "and",
    "or",
    "MetricsRegistry",
    "serveObservability",
    "createLogger",
  ],
  "lib/testing/mod.ts": ["FakeApi", "FakeClock", "FakeInformers", "MemoryLogger", "startTestEnv"],
  "lib/codegen/mod.ts": ["generateCrdTypes", "generateResourceModules"],
};

/** What an example may import: the package by its published name (as a user writes it), and node: builtins. */
const EXAMPLE_IMPORT = /^(@kubeloop\/kubeloop(\/(testing|codegen|resources))?|node:[a-z/_]+)$/;

/** Why `example` would not run as a user's code, if it would not. */
function exampleProblem(example: DocTag): string | undefined {
  const text = example.doc ?? "";
  const fence = /^```(\S*)(.*)$/m.exec(text);
  if (!fence || !/^(ts|typescript)$/.test(fence[1] ?? "")) return "has no ```ts block";
  if (/\bignore\b/.test(fence[2] ?? "")) return "is marked ignore: deno test --doc skips it";
  const imports = [...text.matchAll(/\bfrom\s+["']([^"']+)["']/g)].map((m) => m[1] ?? "");
  const odd = imports.filter((spec) => !EXAMPLE_IMPORT.test(spec));
  return odd.length > 0
    ? `imports ${odd.join(", ")} (use "@kubeloop/kubeloop", "/testing" or "/codegen")`
    : undefined;
}

Deno.test("the entry points a user meets have a runnable @example that imports the package by name", () => {
  const problems: string[] = [];
  for (const [entry, names] of Object.entries(NEED_EXAMPLES)) {
    const list = symbols.get(entry) ?? [];
    for (const name of names) {
      const symbol = list.find((s) => s.name === name);
      if (!symbol) {
        problems.push(`${entry}: ${name} is not exported`);
        continue;
      }
      const examples = symbol.declarations.flatMap((d) => d.jsDoc?.tags ?? []).filter((t) =>
        t.kind === "example"
      );
      if (examples.length === 0) problems.push(`${name} (${origin(symbol)}): no @example`);
      for (const example of examples) {
        const problem = exampleProblem(example);
        if (problem) {
          problems.push(
            `${name} (${origin(symbol)}): the example "${example.doc?.split("\n")[0]}" ${problem}`,
          );
        }
      }
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("lib/mod.ts' module doc has a runnable example of a whole controller", () => {
  const examples = moduleExamples.get("lib/mod.ts") ?? [];
  assert.equal(examples.length, 1);
  assert.deepEqual(examples.map(exampleProblem), [undefined]);
  assert.match(examples[0]?.doc ?? "", /new Manager\(/);
});

/**
 * The public surface as `deno doc` shows it: one name per concept across the entry points, and every
 * option documents its default where users read it (a parsed `@default {…}` tag).
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
];

interface DocTag {
  kind: string;
  value?: string;
}
interface DocProperty {
  name: string;
  optional?: boolean;
  jsDoc?: { doc?: string; tags?: DocTag[] };
}
interface DocDeclaration {
  kind: string;
  location: { filename: string; line: number };
  def?: { properties?: DocProperty[] };
}
interface DocSymbol {
  name: string;
  declarations: DocDeclaration[];
}

async function symbolsOf(entry: string): Promise<DocSymbol[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const doc = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  return Object.values(doc.nodes).flatMap((node) => node.symbols);
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

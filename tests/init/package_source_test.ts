/**
 * `--package`: the registry package of this kubeloop's own version by default, another jsr: specifier as
 * given, or a local checkout (its root or its lib/, by path or file: URL) linked in place of the registry's
 * package; anything else is refused naming the flag.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../../lib/init/args.ts";
import { resolvePackage } from "../../lib/init/package_source.ts";

const root = new URL("../../", import.meta.url);
const checkout = root.pathname.replace(/\/$/, "");
const { version } = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as { version: string };

Deno.test("by default: this kubeloop's version range on JSR, and no link", async () => {
  assert.deepEqual(await resolvePackage(undefined), { specifier: `jsr:@kubeloop/kubeloop@^${version}` });
});

Deno.test("a jsr: specifier is used as given", async () => {
  for (const spec of ["jsr:@kubeloop/kubeloop@^9.1.0", "jsr:@kubeloop/kubeloop", "jsr:@me/kubeloop-fork@1"]) {
    assert.deepEqual(await resolvePackage(spec), { specifier: spec });
  }
});

Deno.test("a checkout, by its root or its lib/, by path or file: URL, is linked at its own version", async () => {
  const expected = { specifier: `jsr:@kubeloop/kubeloop@^${version}`, link: checkout };
  for (const value of [checkout, `${checkout}/`, `${checkout}/lib`, root.href, new URL("lib/", root).href]) {
    assert.deepEqual(await resolvePackage(value), expected, value);
  }
});

Deno.test("anything else is refused naming --package", async () => {
  const elsewhere = await Deno.makeTempDir({ prefix: "kubeloop-init-pkg-" });
  try {
    await Deno.writeTextFile(
      join(elsewhere, "deno.json"),
      JSON.stringify({ name: "@me/other", version: "1.0.0" }),
    );
    const cases: [string, RegExp][] = [
      ["npm:kubeloop", /^--package "npm:kubeloop": expected a jsr: specifier, or a path/],
      ["https://example.com/kubeloop/", /^--package "https:/],
      ["jsr:kubeloop", /^--package "jsr:kubeloop" is not a jsr: package specifier/],
      [join(elsewhere, "nothing-here"), /is not a kubeloop checkout/],
      [elsewhere, /is not a kubeloop checkout: no deno.json naming @kubeloop\/kubeloop/],
    ];
    for (const [value, message] of cases) {
      await assert.rejects(resolvePackage(value), (error: unknown) => {
        assert.ok(error instanceof UsageError, `${value}: a UsageError, got ${error}`);
        assert.match(error.message, message);
        return true;
      });
    }
  } finally {
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("kubeloop's own deno.json without a version is an error, not a guess", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-init-pkg-" });
  try {
    await Deno.writeTextFile(join(dir, "deno.json"), "{}");
    await assert.rejects(
      resolvePackage(undefined, { self: new URL(`file://${dir}/deno.json`) }),
      /Cannot read kubeloop's version from file:/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

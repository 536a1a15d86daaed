/**
 * The package carries the control plane's Go sources as lib/testing/_testenv_sources.ts, generated from
 * tests/testenv/ (`deno task gen:testenv`): the module must hold exactly those files, byte for byte, and the
 * generator's quoting must survive any text a Go file or a shell script holds.
 */
import assert from "node:assert/strict";
import { TESTENV_SOURCES } from "../../lib/testing/_testenv_sources.ts";
import { sourcesKey } from "../../lib/testing/_testenv_build.ts";
import { readTestenvSources, renderSourcesModule } from "../_util/embed_testenv.ts";

Deno.test("lib/testing/_testenv_sources.ts holds every file of tests/testenv/, byte for byte", async () => {
  const onDisk = await readTestenvSources();
  const embedded = new Map(Object.entries(TESTENV_SOURCES));
  const stale = [...new Set([...onDisk.keys(), ...embedded.keys()])].filter((path) =>
    onDisk.get(path) !== embedded.get(path)
  );
  assert.deepEqual(stale, [], "run `deno task gen:testenv` and commit lib/testing/_testenv_sources.ts");
  for (const path of ["build.sh", "go.mod", "go.sum", "main.go", "hack/k8s-module.sh", "kwok/go.mod"]) {
    assert.ok(embedded.has(path), path);
  }
  assert.equal(await sourcesKey(TESTENV_SOURCES), await sourcesKey(Object.fromEntries(onDisk)));
});

Deno.test("the generated module evaluates to exactly the files' text: backslashes, backticks and ${ survive", async () => {
  const tricky = new Map([
    ["a.go", 'x := `raw ${y} \\n`\n\tpath := "C:\\\\dir"\r\n'],
    ["dir/b.sh", 'echo "${HOME}" \\\n  `date` $((1 + 2))\n\\`\\${'],
    ["empty", ""],
  ]);
  const text = renderSourcesModule(tricky);
  const url = `data:application/typescript;base64,${
    btoa(String.fromCharCode(...new TextEncoder().encode(text)))
  }`;
  const mod = await import(url) as { TESTENV_SOURCES: Record<string, string> };
  assert.deepEqual(new Map(Object.entries(mod.TESTENV_SOURCES)), tricky);
});

Deno.test("the cache key changes with any path or content, and not with the order files are listed in", async () => {
  const base = await sourcesKey({ "a.go": "package a", "b/c.go": "package c" });
  assert.match(base, /^[0-9a-f]{16}$/);
  assert.equal(await sourcesKey({ "b/c.go": "package c", "a.go": "package a" }), base);
  assert.notEqual(await sourcesKey({ "a.go": "package a ", "b/c.go": "package c" }), base);
  assert.notEqual(await sourcesKey({ "a2.go": "package a", "b/c.go": "package c" }), base);
  // The separators keep a name and a content from trading characters.
  assert.notEqual(await sourcesKey({ "a.g": "opackage a", "b/c.go": "package c" }), base);
});

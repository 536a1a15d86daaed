/** startTestEnv's guidance when it can neither find nor build the control plane binaries. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Copies the folder `from` into `to`, recursively. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

Deno.test("startTestEnv from a copy of lib/ outside a kubeloop checkout, with no binaries named, says how to get them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-vendored-" });
  try {
    // A user who vendored lib/ into their project: no tests/testenv/build.sh next to it.
    await copyTree(new URL("../../lib/", import.meta.url).pathname, join(dir, "lib"));
    const module = pathToFileURL(join(dir, "lib/testing/mod.ts")).href;
    const { startTestEnv } = await import(module) as typeof import("../../lib/testing/mod.ts");
    await assert.rejects(
      startTestEnv({ env: () => undefined }),
      new Error(
        "Cannot find the control plane binaries: set KUBELOOP_TESTENV_BIN to a directory built by kubeloop's " +
          "tests/testenv/build.sh, or import kubeloop from a local checkout so startTestEnv can build them",
      ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

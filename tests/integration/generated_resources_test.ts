/**
 * lib/resources is what `deno task gen:resources` makes from the local kube-apiserver's OpenAPI v3: the
 * committed types match the server the tests run against, and mod.ts exports every generated module.
 */
import assert from "node:assert/strict";
import { generateFromCluster } from "../../lib/codegen/generate_resources.ts";
import { formatTs } from "../codegen/_format.ts";
import { adminClient } from "../_util/clients.ts";

const dir = new URL("../../lib/resources/", import.meta.url);

Deno.test("the committed lib/resources files equal a fresh generation from the running kube-apiserver", async () => {
  await using client = await adminClient();
  const files = await generateFromCluster(client);
  assert.ok(files.size >= 8, `generated ${[...files.keys()].join(", ")}`);
  const stale: string[] = [];
  for (const [name, text] of files) {
    const committed = await Deno.readTextFile(new URL(name, dir)).catch(() => "(missing)");
    if (committed !== await formatTs(text)) stale.push(name);
  }
  assert.deepEqual(stale, [], "run `deno task gen:resources` and commit the result");
  const mod = await Deno.readTextFile(new URL("mod.ts", dir));
  for (const name of files.keys()) assert.match(mod, new RegExp(`"\\./${name.replace(".", "\\.")}"`), name);
});

/**
 * lib/resources is what `deno task gen:resources` makes from the local kube-apiserver's OpenAPI v3: against
 * the release it was generated from, the committed types match a fresh generation and mod.ts exports every
 * generated module; against another supported release (KUBELOOP_K8S_VERSION=1.34), every typed ResourceRef
 * is served by that server, so the typed refs work on the oldest release too.
 */
import assert from "node:assert/strict";
import { generateFromCluster } from "../../lib/codegen/generate_resources.ts";
import * as refs from "../../lib/resources/refs.ts";
import { formatTs } from "../codegen/_format.ts";
import { adminClient } from "../_util/clients.ts";
import { kubectlOk } from "../_util/testenv.ts";

const dir = new URL("../../lib/resources/", import.meta.url);
const generatedFrom = /from the OpenAPI v3 of kube-apiserver (v\S+)\./.exec(
  await Deno.readTextFile(new URL("refs.ts", dir)),
)?.[1];
const serverVersion: string = JSON.parse(await kubectlOk(["version", "-o", "json"])).serverVersion.gitVersion;

Deno.test({
  name: "the committed lib/resources files equal a fresh generation from the running kube-apiserver",
  ignore: serverVersion !== generatedFrom,
  fn: async () => {
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
  },
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

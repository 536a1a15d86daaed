// `deno task testenv` as a newcomer uses it: one KUBECONFIG=<path> line, a working kubectl, and a
// clean stop on SIGTERM that leaves no process or state directory behind.
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { kubectl, testEnv } from "../_util/testenv.ts";

Deno.test("deno task testenv prints KUBECONFIG=<path>, serves kubectl get ns, and stops cleanly", async () => {
  const script = new URL("../testenv/testenv.sh", import.meta.url).pathname;
  const child = new Deno.Command("bash", {
    args: [script, "-controller-manager=false"],
    env: { KUBELOOP_TESTENV_BIN: testEnv.binDir },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stopped = false;
  try {
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    const line = out.split("\n")[0] ?? "";
    assert.match(line, /^KUBECONFIG=\/.+\/kubeconfig$/);
    const path = line.slice("KUBECONFIG=".length);

    const ns = await kubectl(["get", "ns", "-o", "name"], { kubeconfig: path });
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stdout, /namespace\/default/);

    child.kill("SIGTERM");
    const status = await child.status;
    stopped = true;
    const rest = await reader.read();
    assert.equal(rest.done, true, "nothing more on stdout after the ready line");
    assert.equal(status.code, 0);
    await assert.rejects(Deno.stat(dirname(path)), Deno.errors.NotFound, "state directory removed");
    const ps = await new Deno.Command("pgrep", { args: ["-f", dirname(path)], stdout: "piped" }).output();
    assert.equal(new TextDecoder().decode(ps.stdout).trim(), "", "no control-plane process left behind");
  } finally {
    // Whatever failed above, never leave this second control plane running.
    if (!stopped) {
      child.kill("SIGTERM");
      await child.status;
    }
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
  }
});

// The credential scan on a real controller's log: clean as captured, failing once the controller's own
// TokenRequest token (or the control plane's CA key) is planted in it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { installSampleControllerPrerequisites } from "../_util/sample_controller.ts";
import { eventually, testEnv } from "../_util/testenv.ts";
import { registerSecret } from "../_util/test_logs.ts";
import { controllerAccountToken, startController } from "../e2e/controller_process.ts";

const scanner = new URL("./scan_logs.ts", import.meta.url).pathname;

async function scan(root: string): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", scanner, root, "--min-secrets=2"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

Deno.test("credential scan: a real controller log is clean, and fails the scan once its token is planted", async () => {
  await installSampleControllerPrerequisites();
  const root = await Deno.makeTempDir({ prefix: "kubeloop-scan-live-" });
  try {
    const token = await controllerAccountToken("10m");
    registerSecret(token, "TokenRequest token of kubeloop-sample-controller", root);
    registerSecret(await Deno.readTextFile(join(testEnv.dir, "ca.key")), "control plane ca.key", root);
    const controller = await startController(["--leader-elect=false", "--log-level=debug"]);
    await eventually(async () => {
      const res = await fetch(`${controller.healthUrl}/readyz`).catch(() => undefined);
      await res?.body?.cancel();
      return res?.ok ? true : undefined;
    }, { timeoutMs: 60_000 });
    assert.equal(await controller.stop(), 0);
    const log = join(root, "logs", "controller.log");
    await Deno.mkdir(join(root, "logs"));
    await Deno.writeTextFile(log, controller.logs());

    const clean = await scan(root);
    assert.equal(clean.code, 0, clean.output);

    const leak = JSON.stringify({
      level: "debug",
      msg: "sending request",
      headers: { authorization: `Bearer ${token}` },
    });
    await Deno.writeTextFile(log, leak + "\n", { append: true });
    const leaked = await scan(root);
    assert.equal(leaked.code, 1, leaked.output);
    assert.match(
      leaked.output,
      /LEAK: logs\/controller\.log:\d+: TokenRequest token of kubeloop-sample-controller/,
    );
    assert.ok(!leaked.output.includes(token.slice(-40)), "the report must not repeat the token");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

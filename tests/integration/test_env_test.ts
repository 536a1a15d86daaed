/**
 * startTestEnv as a user's integration test calls it: it finds (or builds) the binaries itself, serves a
 * real control plane, and stop() leaves nothing behind; a wrong binary directory is a clear error that
 * leaves nothing running either.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTestEnv } from "../../lib/testing/mod.ts";
import { testEnv } from "../_util/testenv.ts";

/** Processes whose command line mentions `text`. */
async function processesMentioning(text: string): Promise<string> {
  const ps = await new Deno.Command("pgrep", { args: ["-af", text], stdout: "piped" }).output();
  return new TextDecoder().decode(ps.stdout).trim();
}

Deno.test("startTestEnv with no binDir or KUBELOOP_TESTENV_BIN builds (or finds) the binaries itself, serves, and stop() removes everything", async () => {
  const env = await startTestEnv({
    controllerManager: false,
    env: (name) => (name === "KUBELOOP_TESTENV_BIN" ? undefined : Deno.env.get(name)),
  });
  let stopped = false;
  try {
    assert.match(env.server, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok((await Deno.stat(env.kubeconfig)).isFile);
    assert.ok(env.kubeconfig.startsWith(env.dir));
    const kubectl = await new Deno.Command(env.kubectl, {
      args: [`--kubeconfig=${env.kubeconfig}`, "get", "namespace", "default", "-o", "name"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(kubectl.stdout).trim(), "namespace/default");
    assert.equal(env.kubectl, join(env.binDir, "kubectl"));
    assert.ok((await Deno.stat(join(env.binDir, "kube-apiserver"))).isFile, "build.sh's binaries");
    assert.equal(env.binDir, testEnv.binDir, "the same cached build as the test run's");
    assert.notEqual(
      await processesMentioning(env.dir),
      "",
      "the control plane runs from its state directory",
    );

    await env.stop();
    stopped = true;
    await env.stop(); // a second stop (or the disposal after it) is harmless
    await assert.rejects(Deno.stat(env.dir), Deno.errors.NotFound, "state directory removed");
    assert.equal(await processesMentioning(env.dir), "", "no control-plane process left behind");
    const port = Number(new URL(env.server).port);
    await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }), "nothing listens on the server port");
  } finally {
    if (!stopped) await env.stop();
  }
});

Deno.test("a binary directory without the control plane is an error saying what is missing, and nothing keeps running", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-bin-" });
  try {
    await assert.rejects(
      startTestEnv({ binDir: dir, controllerManager: false }),
      new RegExp(
        `^Error: Cannot run "${dir}/testenv" \\(from binDir\\): .*No such file.*\\. ` +
          "The directory must hold the binaries built by kubeloop's tests/testenv/build\\.sh$",
      ),
    );
    await assert.rejects(
      startTestEnv({ env: (name) => (name === "KUBELOOP_TESTENV_BIN" ? dir : undefined) }),
      /\(from KUBELOOP_TESTENV_BIN\)/,
    );
    // testenv alone, without kube-apiserver next to it: testenv's own error comes through.
    await Deno.symlink(join(testEnv.binDir, "testenv"), join(dir, "testenv"));
    await assert.rejects(
      startTestEnv({ binDir: dir, controllerManager: false }),
      (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.match(e.message, /^The local control plane did not start:\n/);
        assert.match(e.message, new RegExp(`${dir}/kube-apiserver: no such file or directory`));
        return true;
      },
    );
    assert.equal(await processesMentioning(dir), "", "nothing left running");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { defaultExecRunner, ExecCredentialSource } from "../../lib/config/mod.ts";

Deno.test("the default runner runs a real plugin script with the exec env", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop_exec_" });
  try {
    const script = `${dir}/plugin.sh`;
    await Deno.writeTextFile(
      script,
      [
        "#!/bin/sh",
        'case "$KUBERNETES_EXEC_INFO" in *\'"interactive":false\'*) ;; *) echo "no exec info" >&2; exit 3;; esac',
        'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",' +
        '"status":{"token":"%s-%s"}}\' "$1" "$PLUGIN_SUFFIX"',
        "",
      ].join("\n"),
    );
    await Deno.chmod(script, 0o755);
    const source = new ExecCredentialSource(
      {
        apiVersion: "client.authentication.k8s.io/v1",
        command: script,
        args: ["real"],
        env: [{ name: "PLUGIN_SUFFIX", value: "token" }],
        provideClusterInfo: false,
      },
      { user: "u" },
    );
    assert.deepEqual(await source.get(), { token: "real-token" });
    const failed = await defaultExecRunner("/bin/sh", { args: ["-c", "echo oops >&2; exit 7"], env: {} });
    assert.deepEqual(failed, { code: 7, stdout: "", stderr: "oops\n" });
    const missing = new ExecCredentialSource(
      {
        apiVersion: "client.authentication.k8s.io/v1",
        command: `${dir}/absent`,
        args: [],
        env: [],
        provideClusterInfo: false,
      },
      { user: "u" },
    );
    await assert.rejects(missing.get(), /exec plugin ".*absent": the command was not found/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

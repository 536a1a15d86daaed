import assert from "node:assert/strict";
import { join } from "node:path";

const lib = new URL("../../lib/mod.ts", import.meta.url).href;

/**
 * Runs loadConfig in a child `deno run --no-npm`: npm packages cannot be resolved there, so the child
 * fails as soon as anything imports `npm:yaml`, statically or by running a dynamic import.
 */
async function loadWithoutNpm(args: { saDir?: string; kubeconfig?: string }) {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-lazy-yaml-" });
  try {
    const script = join(dir, "load.ts");
    await Deno.writeTextFile(
      script,
      `import { loadConfig } from ${JSON.stringify(lib)};
const env: Record<string, string> = { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "6443" };
const config = await loadConfig({
  ${args.saDir ? `inClusterDir: ${JSON.stringify(args.saDir)},` : ""}
  ${args.kubeconfig ? `kubeconfig: ${JSON.stringify(args.kubeconfig)},` : ""}
  env: (name) => env[name],
});
console.log(config.source);
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-npm", "--no-lock", "--allow-read", "--allow-env", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { success: out.success, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("in-cluster configuration never loads the YAML parser (npm:yaml stays unloaded in a pod)", async () => {
  const sa = await Deno.makeTempDir({ prefix: "kubeloop-sa-" });
  try {
    await Deno.writeTextFile(join(sa, "token"), "token-value");
    await Deno.writeTextFile(join(sa, "namespace"), "kube-system");
    // A real CA certificate (loadConfig parses it); no connection is made.
    await Deno.copyFile(new URL("../http/fixtures/trust/ca.crt", import.meta.url), join(sa, "ca.crt"));
    const result = await loadWithoutNpm({ saDir: sa });
    assert.ok(result.success, `loading the in-cluster config failed without npm:\n${result.stderr}`);
    assert.equal(result.stdout.trim(), "in-cluster");

    // The probe can tell: YAML outside the subset read without it (here an anchor) loads the
    // parser, and fails without npm.
    const kubeconfig = join(sa, "config");
    await Deno.writeTextFile(kubeconfig, "apiVersion: &v v1\nkind: Config\n");
    const withFile = await loadWithoutNpm({ kubeconfig });
    assert.ok(!withFile.success, "a kubeconfig with an anchor was parsed without the YAML parser");
  } finally {
    await Deno.remove(sa, { recursive: true });
  }
});

Deno.test("a kubeconfig as kubectl writes it is loaded without the YAML parser (npm:yaml stays unloaded)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-kubeconfig-" });
  try {
    const kubeconfig = join(dir, "config");
    await Deno.writeTextFile(
      kubeconfig,
      `apiVersion: v1
clusters:
- cluster:
    server: https://127.0.0.1:6443
  name: dev
contexts:
- context:
    cluster: dev
    user: dev
  name: dev
current-context: dev
kind: Config
preferences: {}
users:
- name: dev
  user:
    token: abc
`,
    );
    const result = await loadWithoutNpm({ kubeconfig });
    assert.ok(result.success, `loading the kubeconfig failed without npm:\n${result.stderr}`);
    assert.equal(result.stdout.trim(), `${kubeconfig} (context "dev")`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

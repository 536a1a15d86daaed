/**
 * The package works as installed: exactly the files `deno publish --dry-run` lists, copied into an empty
 * folder outside the repository, give a user's program a running control plane from startTestEnv() with
 * nothing named — no KUBELOOP_TESTENV_BIN, no checkout beside it. The sources it builds from are the ones
 * the package carries; the build finds the binaries this test run's build.sh already made (same inputs,
 * same cache keys), so it compiles nothing. A cold build from the package is the same path with an empty
 * cache (18.4 min on a busy 2-core machine, 880 CPU-seconds), run by hand, not on every run.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { sourcesKey } from "../../lib/testing/_testenv_build.ts";
import { TESTENV_SOURCES } from "../../lib/testing/_testenv_sources.ts";
import { publishDryRun, REPO_ROOT } from "../_util/published_files.ts";
import { createUserProject } from "../_util/user_project.ts";

const PROGRAM = `
import { startTestEnv } from "./kubeloop/lib/testing/mod.ts";
import { KubeClient, loadConfig, NAMESPACES } from "./kubeloop/lib/mod.ts";

const started = performance.now();
await using env = await startTestEnv({ controllerManager: false });
const ms = Math.round(performance.now() - started);
await using client = new KubeClient(await loadConfig({ kubeconfig: env.kubeconfig, env: () => undefined }));
const ns = await client.get(NAMESPACES, "default");
console.log(JSON.stringify({ binDir: env.binDir, server: env.server, namespace: ns.metadata?.name, ms }));
`;

/** The variables a user's shell would have that matter here; KUBELOOP_TESTENV_BIN is not one of them. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const name of [
      "HOME",
      "PATH",
      "DENO_DIR",
      "XDG_CACHE_HOME",
      "KUBELOOP_TESTENV_CACHE",
      "KUBELOOP_K8S_VERSION",
    ]
  ) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}

/** What the repository's own tests/testenv/build.sh prints (cached: it builds nothing here). */
async function suiteBinDir(): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [new URL("tests/testenv/build.sh", REPO_ROOT).pathname],
    clearEnv: true,
    env: userEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
}

Deno.test("exactly the published files, copied into an empty folder, start the control plane with startTestEnv()", async () => {
  const { code, output, files } = await publishDryRun();
  assert.equal(code, 0, output.slice(-4000));
  assert.ok(files.includes("lib/testing/mod.ts") && files.includes("deno.json"), files.join("\n"));
  assert.deepEqual(files.filter((f) => f.startsWith("tests/")), [], "no tests/ in the package");

  await using project = await createUserProject({ "main.ts": PROGRAM });
  for (const file of files) {
    const to = join(project.dir, "kubeloop", file);
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.copyFile(new URL(file, REPO_ROOT), to);
  }

  const check = await project.deno(["check", "main.ts"], { clearEnv: true, env: userEnv() });
  assert.equal(check.code, 0, check.stderr);
  const run = await project.deno(
    [
      "run",
      "--allow-run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      "main.ts",
    ],
    { clearEnv: true, env: userEnv() },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { binDir: string; server: string; namespace: string; ms: number };
  assert.equal(result.namespace, "default", "the control plane serves");
  assert.match(result.server, /^https:\/\/127\.0\.0\.1:\d+$/);

  // Built from the package's own sources, written into the cache under their hash …
  const root = dirname(result.binDir);
  const src = join(root, `src-${await sourcesKey(TESTENV_SOURCES)}`);
  assert.ok((await Deno.stat(join(src, ".complete"))).isFile, `${src} holds the package's sources`);
  assert.equal(await Deno.readTextFile(join(src, "go.mod")), TESTENV_SOURCES["go.mod"]);
  // … into the very binaries the repository's build.sh made for this run: nothing was compiled twice.
  assert.equal(result.binDir, await suiteBinDir());
  assert.ok(result.ms < 120_000, `a warm start from the package took ${result.ms} ms`);
});

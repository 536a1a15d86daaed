/**
 * The project generator end to end: `deno run -A lib/init/main.ts` writes a project into an empty folder
 * outside the repository, taking kubeloop from this checkout (a deno.json `links` entry, so the project's
 * code and imports are exactly those of a project made from the published package). The project then
 * passes its own gates (check, lint, fmt, `deno task gen` changes nothing) and its own `deno task test`
 * (unit tests on FakeApi, and an end-to-end test on a control plane that startTestEnv starts); its
 * manifests install on the shared control plane, and its main.ts, run with exactly its start task's
 * permissions as its ServiceAccount (so with only the RBAC the manifests grant), takes the Lease, makes a
 * Widget Ready and lets it go when it is deleted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput } from "../_util/captured_output.ts";
import { createNamespace, eventually, kubectl, kubectlOk, testEnv } from "../_util/testenv.ts";
import { freePort } from "../_util/start_task.ts";

const initMain = new URL("../../lib/init/main.ts", import.meta.url).pathname;
const checkout = new URL("../../", import.meta.url).pathname;

interface Run {
  readonly code: number;
  readonly output: string;
}

/** Runs deno with `args` in `cwd` and collects its output (stdout and stderr). */
async function deno(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

/** A folder outside the repository, with no Deno config above it that could lend the project settings. */
async function emptyParent(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-init-" });
  for (let up = dir; up !== "/"; up = join(up, "..")) {
    for (const name of ["deno.json", "deno.jsonc", "package.json"]) {
      const found = await Deno.stat(join(up, name)).then(() => true, () => false);
      if (found) throw new Error(`A ${name} above ${dir} (in ${up}) would configure the generated project`);
    }
  }
  return dir;
}

/** Generates a project named `name` in `parent` from this checkout, with `flags`. */
async function generate(parent: string, name: string, flags: string[]): Promise<string> {
  const run = await deno(["run", "-A", initMain, name, ...flags, "--package", checkout], parent);
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, new RegExp(`^Created ${name}: `));
  return join(parent, name);
}

/** The project's own gates: type check, lint, format, and `deno task gen` leaving the types as they are. */
async function assertGates(dir: string, typesFile: string): Promise<void> {
  for (const args of [["check", "main.ts", "src/", "tests/"], ["lint"], ["fmt", "--check"]]) {
    const run = await deno(args, dir);
    assert.equal(run.code, 0, `deno ${args.join(" ")}:\n${run.output}`);
  }
  const before = await Deno.readTextFile(join(dir, typesFile));
  const gen = await deno(["task", "gen"], dir);
  assert.equal(gen.code, 0, gen.output);
  assert.equal(await Deno.readTextFile(join(dir, typesFile)), before, "deno task gen changes nothing");
}

/** Runs the project's `deno task test` with this run's control plane binaries; returns its output. */
async function assertTestsPass(dir: string): Promise<string> {
  const run = await deno(["task", "test"], dir, { KUBELOOP_TESTENV_BIN: testEnv.binDir });
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /^ok \| 5 passed \| 0 failed/m, run.output);
  return run.output;
}

Deno.test("a generated project passes its own gates and tests, and runs in a cluster as its ServiceAccount", async (t) => {
  const parent = await emptyParent();
  const suffix = crypto.randomUUID().slice(0, 6);
  const name = `init-e2e-${suffix}`;
  const group = `e2e-${suffix}.example.com`;
  const dir = await generate(parent, name, ["--group", group, "--kind", "Widget"]);
  const system = `${name}-system`;
  try {
    await t.step("deno check, lint and fmt --check pass, and deno task gen changes nothing", async () => {
      await assertGates(dir, "src/widget_types.ts");
    });

    await t.step("deno task test: the unit tests on FakeApi and the test on startTestEnv pass", async () => {
      const output = await assertTestsPass(dir);
      assert.match(output, /a Widget on a real API server gets its ConfigMap and turns Ready.* \.\.\. ok/);
    });

    await t.step(
      "kubectl apply -k manifests/ installs the CRD, RBAC and the hardened Deployment",
      async () => {
        await kubectlOk(["apply", "-k", join(dir, "manifests")]);
        await kubectlOk(["wait", "--for=condition=Established", "--timeout=60s", `crd/widgets.${group}`]);
        const sa = await kubectlOk(["get", "serviceaccount", name, "-n", system, "-o", "name"]);
        assert.equal(sa.trim(), `serviceaccount/${name}`);
      },
    );

    await t.step(
      "main.ts, as the ServiceAccount, takes the Lease, makes a Widget Ready and lets it go",
      async () => {
        await runAsServiceAccount(dir, name, group);
      },
    );
  } finally {
    await kubectl(["delete", "-k", join(dir, "manifests"), "--wait=false", "--ignore-not-found"]);
    await Deno.remove(parent, { recursive: true });
  }
});

/** Starts main.ts with the start task's permissions and a kubeconfig holding a token of the ServiceAccount. */
async function runAsServiceAccount(dir: string, name: string, group: string): Promise<void> {
  const system = `${name}-system`;
  const token = (await kubectlOk(["create", "token", name, "-n", system, "--duration=1h"])).trim();
  const kubeconfig = join(dir, "sa.kubeconfig");
  await Deno.writeTextFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "test",
        cluster: { server: testEnv.server, "certificate-authority": join(testEnv.dir, "ca.crt") },
      }],
      users: [{ name: "controller", user: { token } }],
      contexts: [{ name: "controller", context: { cluster: "test", user: "controller", namespace: system } }],
      "current-context": "controller",
    }),
    { mode: 0o600 },
  );
  const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json"))) as {
    tasks: Record<string, string>;
  };
  const start = config.tasks["start"]!.split(/\s+/);
  assert.deepEqual([start[0], start[1], start.at(-1)], ["deno", "run", "main.ts"]);
  const health = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...start.slice(1), "--leader-elect", `--health-probe-bind-address=127.0.0.1:${health}`],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { KUBECONFIG: kubeconfig, NO_COLOR: "1" },
  }).spawn();
  const output = captureOutput(child, `init-e2e-${name}`);
  let stopped = false;
  try {
    await using ns = await createNamespace("init-e2e");
    const logs = () => output.text();
    await eventually(async () => {
      const holder = await kubectl([
        "get",
        "lease",
        name,
        "-n",
        system,
        "-o",
        "jsonpath={.spec.holderIdentity}",
      ]);
      return holder.code === 0 && holder.stdout !== "" ? holder.stdout : undefined;
    }, { timeoutMs: 60_000, message: () => `no Lease holder; the controller logged:\n${logs()}` });

    await kubectlOk(["apply", "-n", ns.name, "-f", "-"], {
      stdin: JSON.stringify({
        apiVersion: `${group}/v1alpha1`,
        kind: "Widget",
        metadata: { name: "hello" },
        spec: { message: "Hi" },
      }),
    });
    const ready = '{.status.conditions[?(@.type=="Ready")].status}';
    await eventually(async () => {
      const status = await kubectl([
        "get",
        `widgets.${group}`,
        "hello",
        "-n",
        ns.name,
        "-o",
        `jsonpath=${ready}`,
      ]);
      return status.stdout === "True" ? true : undefined;
    }, {
      timeoutMs: 60_000,
      message: () => `the Widget did not turn Ready; the controller logged:\n${logs()}`,
    });
    const configMap = JSON.parse(
      await kubectlOk(["get", "configmap", "hello", "-n", ns.name, "-o", "json"]),
    ) as {
      data?: Record<string, string>;
      metadata: { ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
    };
    assert.deepEqual(configMap.data, { message: "Hi" });
    assert.deepEqual(
      configMap.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.controller]),
      [["Widget", "hello", true]],
    );
    const readyz = await fetch(`http://127.0.0.1:${health}/readyz`);
    assert.equal(readyz.status, 200, await readyz.text());

    // Deletion completes only once the controller has removed its finalizer.
    await kubectlOk(["delete", `widgets.${group}`, "hello", "-n", ns.name, "--wait=true", "--timeout=60s"]);

    child.kill("SIGTERM");
    stopped = true;
    const status = await child.status;
    await output.done;
    assert.equal(status.code, 0, `exit code after SIGTERM; the controller logged:\n${logs()}`);
    assert.doesNotMatch(logs(), /forbidden/i, "every request was allowed by the manifests' RBAC");
  } finally {
    if (!stopped) {
      child.kill("SIGKILL");
      await child.status;
      await output.done;
    }
  }
}

Deno.test("a generated project of a cluster-scoped kind passes its own gates and tests", async () => {
  const parent = await emptyParent();
  try {
    const dir = await generate(parent, "policy-op", [
      "--group",
      "policy.acme.io",
      "--kind",
      "NetworkPolicySet",
      "--version",
      "v1beta2",
      "--namespaced=false",
    ]);
    await assertGates(dir, "src/network_policy_set_types.ts");
    await assertTestsPass(dir);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

/**
 * The reference controller's webhooks end to end: main.ts in-cluster (its ServiceAccount, namespace
 * kubeloop-system) with `--webhook-bind-address` and `--webhook-url`, against a control plane of this test's
 * own (its webhooks intercept every Foo outside kube-system and kubeloop-system, which would disturb the
 * other tests on the shared one). kubectl, as a user: an invalid Foo is denied with the handler's message, a
 * Foo without replicas comes back defaulted, a v1beta1 Foo is written and read back as both versions, and
 * with the controller killed the failure policy refuses Foos everywhere except the controller's namespace.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startOwnedTestEnv } from "../_util/testenv_process.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { registerSecret } from "../_util/test_logs.ts";
import { freePort, startTaskFlags } from "../_util/start_task.ts";

const root = new URL("../../", import.meta.url).pathname;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

Deno.test("the Foo webhooks through kube-apiserver and kubectl", async (t) => {
  await using env = await startOwnedTestEnv(["-controller-manager=false", "-workloads=false"]);
  const kubectl = async (args: string[], stdin?: string): Promise<Result> => {
    const child = new Deno.Command(env.kubectl, {
      args: [`--kubeconfig=${env.kubeconfig}`, ...args],
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      env: { KUBECONFIG: "" },
    }).spawn();
    if (stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(stdin));
      await writer.close();
    }
    const out = await child.output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
  const ok = async (args: string[], stdin?: string) => {
    const r = await kubectl(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  const eventually = async (check: () => boolean | Promise<boolean>, what: string) => {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting until ${what}`);
  };

  // The shipped CRD, then the webhook component's v1beta1 patch over it (as kustomize would).
  await ok(["apply", "-f", join(root, "crds/samplecontroller.k8s.io_foos.yaml")]);
  await ok([
    "apply",
    "--server-side",
    "--force-conflicts",
    "-f",
    join(root, "manifests/webhook/foos_v1beta1.yaml"),
  ]);
  await ok(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io", "--timeout=30s"]);
  for (const file of ["namespace.yaml", "service_account.yaml", "rbac.yaml"]) {
    await ok(["apply", "-f", join(root, "manifests", file)]);
  }
  // --webhook-url registers the webhooks itself: a development setup, so the test grants what that takes.
  await ok([
    "create",
    "clusterrole",
    "webhook-dev-registration",
    "--verb=get,create,patch,delete",
    "--resource=validatingwebhookconfigurations,mutatingwebhookconfigurations,customresourcedefinitions",
  ]);
  await ok([
    "create",
    "clusterrolebinding",
    "webhook-dev-registration",
    "--clusterrole=webhook-dev-registration",
    "--serviceaccount=kubeloop-system:kubeloop-sample-controller",
  ]);
  await ok(["create", "namespace", "team-a"]);

  const saDir = await Deno.makeTempDir({ prefix: "kubeloop-sa-" });
  const home = await Deno.makeTempDir({ prefix: "kubeloop-home-" });
  const token =
    (await ok(["create", "token", "kubeloop-sample-controller", "-n", "kubeloop-system", "--duration=1h"]))
      .trim();
  registerSecret(token, "TokenRequest token (webhook e2e controller)");
  await Deno.writeTextFile(join(saDir, "token"), token);
  await Deno.copyFile(join(env.dir, "ca.crt"), join(saDir, "ca.crt"));
  await Deno.writeTextFile(join(saDir, "namespace"), "kubeloop-system");
  const server = new URL(env.server);
  const webhookPort = freePort();
  const start = async () => {
    const healthPort = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...await startTaskFlags(),
        join(root, "main.ts"),
        `--health-probe-bind-address=127.0.0.1:${healthPort}`,
        "--metrics-bind-address=0",
        `--webhook-bind-address=127.0.0.1:${webhookPort}`,
        `--webhook-url=https://127.0.0.1:${webhookPort}`,
      ],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: home,
        DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
        DENO_NO_UPDATE_CHECK: "1",
        ...(Deno.env.get("DENO_COVERAGE_DIR")
          ? { DENO_COVERAGE_DIR: Deno.env.get("DENO_COVERAGE_DIR")! }
          : {}),
        KUBERNETES_SERVICE_HOST: server.hostname,
        KUBERNETES_SERVICE_PORT: server.port,
        KUBELOOP_SERVICE_ACCOUNT_DIR: saDir,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = captureOutput(child, "webhook-controller");
    await eventually(() => {
      if (output.text().includes('"level":"error"') && !output.text().includes("Registered")) {
        throw new Error(`the controller failed to start:\n${output.text()}`);
      }
      return output.text().includes("Registered the Foo webhooks and conversion");
    }, "the controller registered its webhooks");
    return { child, output };
  };
  const foo = (namespace: string, name: string, spec: Record<string, unknown>, version = "v1alpha1") =>
    JSON.stringify({
      apiVersion: `samplecontroller.k8s.io/${version}`,
      kind: "Foo",
      metadata: { name, namespace },
      spec,
    });

  let controller = await start();
  try {
    // The API server's webhook informer sees new configurations a moment after they are written.
    await eventually(async () => {
      const r = await kubectl(
        ["apply", "--dry-run=server", "-f", "-"],
        foo("team-a", "probe", { deploymentName: "No_Way" }),
      );
      return r.code !== 0 && r.stderr.includes("denied the request");
    }, "the validating webhook is called");

    await t.step("kubectl apply of an invalid Foo is denied with the handler's message", async () => {
      const r = await kubectl(["apply", "-f", "-"], foo("team-a", "bad", { deploymentName: "Web_Frontend" }));
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /admission webhook "foos\.validate\.samplecontroller\.k8s\.io" denied the request: spec\.deploymentName must be a DNS-1123 label/,
      );
      const absent = await kubectl(["get", "foo", "bad", "-n", "team-a"]);
      assert.notEqual(absent.code, 0, "nothing was stored");
      const beta = await kubectl(
        ["apply", "-f", "-"],
        foo("team-a", "bad-beta", { deployment: { name: "x_y" } }, "v1beta1"),
      );
      assert.match(beta.stderr, /denied the request: spec\.deployment\.name must be a DNS-1123 label/);
    });

    await t.step(
      "a Foo without replicas comes back defaulted to 1; a dry run is checked and defaulted too, and stores nothing",
      async () => {
        await ok(["apply", "-f", "-"], foo("team-a", "web", { deploymentName: "web" }));
        // Plain `kubectl get foo` now reads v1beta1, the preferred version (beta sorts above alpha).
        const stored = JSON.parse(
          await ok(["get", "foos.v1alpha1.samplecontroller.k8s.io", "web", "-n", "team-a", "-o", "json"]),
        );
        assert.deepEqual(stored.spec, { deploymentName: "web", replicas: 1 });
        const dry = JSON.parse(
          await ok(
            ["apply", "--dry-run=server", "-o", "json", "-f", "-"],
            foo("team-a", "dry", { deploymentName: "dry" }),
          ),
        );
        assert.equal(dry.spec.replicas, 1);
        assert.notEqual((await kubectl(["get", "foo", "dry", "-n", "team-a"])).code, 0);
        const dryBad = await kubectl(
          ["apply", "--dry-run=server", "-f", "-"],
          foo("team-a", "dry", { deploymentName: "-x" }),
        );
        assert.match(dryBad.stderr, /denied the request/);
      },
    );

    await t.step(
      "a v1beta1 Foo is written and read back as both versions; v1beta1's description survives storage as v1alpha1",
      async () => {
        await ok(
          ["apply", "-f", "-"],
          foo("team-a", "beta", {
            deployment: { name: "beta-web", replicas: 3 },
            description: "the front end",
          }, "v1beta1"),
        );
        const asBeta = JSON.parse(
          await ok(["get", "foos.v1beta1.samplecontroller.k8s.io", "beta", "-n", "team-a", "-o", "json"]),
        );
        assert.equal(asBeta.apiVersion, "samplecontroller.k8s.io/v1beta1");
        assert.deepEqual(asBeta.spec, {
          deployment: { name: "beta-web", replicas: 3 },
          description: "the front end",
        });
        assert.equal(asBeta.metadata.annotations?.["samplecontroller.k8s.io/preserved-v1beta1"], undefined);
        const asAlpha = JSON.parse(
          await ok(["get", "foos.v1alpha1.samplecontroller.k8s.io", "beta", "-n", "team-a", "-o", "json"]),
        );
        assert.equal(asAlpha.apiVersion, "samplecontroller.k8s.io/v1alpha1");
        assert.deepEqual(asAlpha.spec, { deploymentName: "beta-web", replicas: 3 });
        assert.deepEqual(
          JSON.parse(asAlpha.metadata.annotations["samplecontroller.k8s.io/preserved-v1beta1"]),
          { "/spec/description": "the front end" },
        );
        // A v1alpha1 Foo read as v1beta1, and defaulted when written as v1beta1 without replicas.
        const web = JSON.parse(
          await ok(["get", "foos.v1beta1.samplecontroller.k8s.io", "web", "-n", "team-a", "-o", "json"]),
        );
        assert.deepEqual(web.spec, { deployment: { name: "web", replicas: 1 } });
        await ok(
          ["apply", "-f", "-"],
          foo("team-a", "beta-2", { deployment: { name: "beta-2" } }, "v1beta1"),
        );
        const defaulted = JSON.parse(
          await ok(["get", "foos.v1beta1.samplecontroller.k8s.io", "beta-2", "-n", "team-a", "-o", "json"]),
        );
        assert.deepEqual(defaulted.spec, { deployment: { name: "beta-2", replicas: 1 } });
      },
    );

    await t.step(
      "`kubectl get foos.v1beta1.samplecontroller.k8s.io` lists with v1beta1's printer columns",
      async () => {
        const table = await ok(["get", "foos.v1beta1.samplecontroller.k8s.io", "-n", "team-a"]);
        assert.match(table, /^NAME\s+DEPLOYMENT\s+DESIRED\s+AVAILABLE\s+READY\s+AGE$/m);
        assert.match(table, /^beta\s+beta-web\s+3\s/m);
        assert.match(table, /^web\s+web\s+1\s/m);
      },
    );

    await t.step(
      "webhook down (the controller killed): failurePolicy Fail refuses Foos, except in the controller's own namespace",
      async () => {
        controller.child.kill("SIGKILL");
        await controller.child.status;
        await controller.output.done;
        const refused = await kubectl(
          ["apply", "-f", "-"],
          foo("team-a", "while-down", { deploymentName: "down" }),
        );
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /failed calling webhook "foos\.default\.samplecontroller\.k8s\.io"/);
        // The controller's namespace is excluded from every webhook: its own objects are never blocked.
        await ok(["apply", "-f", "-"], foo("kubeloop-system", "own", { deploymentName: "own" }));
        // The storage version needs no conversion: the controller's own reads go on working.
        assert.match(await ok(["get", "foos.v1alpha1.samplecontroller.k8s.io", "-n", "team-a"]), /^beta\s/m);
        const beta = await kubectl(["get", "foos.v1beta1.samplecontroller.k8s.io", "beta", "-n", "team-a"]);
        assert.notEqual(beta.code, 0, "v1beta1 needs the conversion webhook");
        assert.match(
          beta.stderr,
          /conversion webhook for samplecontroller\.k8s\.io\/v1alpha1, Kind=Foo failed/,
        );
      },
    );

    await t.step(
      "restarted, it serves again; stopped with SIGTERM, it removes its configurations",
      async () => {
        controller = await start();
        await eventually(
          async () =>
            (await kubectl(["apply", "-f", "-"], foo("team-a", "back", { deploymentName: "back" }))).code ===
              0,
          "Foos are admitted again",
        );
        controller.child.kill("SIGTERM");
        assert.equal((await controller.child.status).code, 0);
        await controller.output.done;
        assert.match(controller.output.text(), /Removed the Foo webhook configurations/);
        assert.notEqual(
          (await kubectl(["get", "validatingwebhookconfiguration", "kubeloop-sample-controller"])).code,
          0,
        );
        await ok(["apply", "-f", "-"], foo("team-a", "after", { deploymentName: "Not_Checked" }));
      },
    );
  } finally {
    try {
      controller.child.kill("SIGKILL");
    } catch { /* exited already */ }
    await controller.child.status;
    await controller.output.done;
    await Deno.remove(saDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

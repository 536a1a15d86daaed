/**
 * The reference controller with self-managed webhook certificates, end to end: two replicas of main.ts
 * in-cluster (ServiceAccount kubeloop-system/kubeloop-sample-controller, leader election on) with
 * `--webhook-cert-secret`, holding only the RBAC of manifests/ and of manifests/webhook/self-managed (plus
 * `delete` on the two configurations, which only the development `--webhook-url` mode uses), against a
 * control plane of this test's own. One Secret appears, the leader writes its CA into both configurations
 * and the Foo CRD, both replicas serve its certificate, kubectl's Foos are checked, defaulted and
 * converted; and the RBAC lets the controller touch nothing but that Secret and those three objects.
 */
import assert from "node:assert/strict";
import * as nodeTls from "node:tls";
import { join } from "node:path";
import { startOwnedTestEnv } from "../_util/testenv_process.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { registerSecret } from "../_util/test_logs.ts";
import { freePort, startTaskFlags } from "../_util/start_task.ts";
import { fooWebhookConfigurations } from "../../lib/sample_controller/webhook_serving.ts";

const root = new URL("../../", import.meta.url).pathname;
const SECRET = "kubeloop-sample-controller-webhook-certs";
const SA = "system:serviceaccount:kubeloop-system:kubeloop-sample-controller";

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The base64 DER of the certificate served on `port`, or undefined while nothing listens there: a replica
 * binds once it has read the Secret, and lib/webhook replaces its listener when the certificate changes (the
 * port refuses connections for about 3 ms).
 */
async function servedOn(port: number): Promise<string | undefined> {
  try {
    return await handshakeWith(port);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ECONNREFUSED" || code === "ECONNRESET") return undefined;
    throw error;
  }
}

function handshakeWith(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = nodeTls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate(false).raw;
      socket.destroy();
      resolve(btoa(String.fromCharCode(...raw)));
    });
    socket.on("error", (error) => (socket.destroy(), reject(error)));
  });
}

const der = (pem: string) =>
  (/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)?.[1] ?? "").replace(/\s+/g, "");

Deno.test("self-managed webhook certificates in the reference controller, with the component's RBAC only", async (t) => {
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
  const eventually = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting until ${what}`);
  };

  await ok(["apply", "-f", join(root, "crds/samplecontroller.k8s.io_foos.yaml")]);
  await ok([
    "apply",
    "--server-side",
    "--force-conflicts",
    "-f",
    join(root, "manifests/webhook/foos_v1beta1.yaml"),
  ]);
  await ok(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io", "--timeout=30s"]);
  for (
    const file of ["namespace.yaml", "service_account.yaml", "rbac.yaml", "webhook/self-managed/rbac.yaml"]
  ) {
    await ok(["apply", "-f", join(root, "manifests", file)]);
  }
  // The configurations exist before the controller starts (an install applies them); --webhook-url, a
  // development setup that reaches the process directly, points them at replica 0 and removes them at the
  // end, which takes delete besides the component's rights.
  const port0 = freePort();
  const port1 = freePort();
  const url = `https://127.0.0.1:${port0}`;
  const { validating, mutating } = fooWebhookConfigurations({ url }, "kubeloop-system");
  await ok(["apply", "-f", "-"], [validating, mutating].map((o) => JSON.stringify(o)).join("\n"));
  await ok([
    "create",
    "clusterrole",
    "webhook-dev-unregister",
    "--verb=delete",
    "--resource=validatingwebhookconfigurations,mutatingwebhookconfigurations",
    "--resource-name=kubeloop-sample-controller",
  ]);
  await ok([
    "create",
    "clusterrolebinding",
    "webhook-dev-unregister",
    "--clusterrole=webhook-dev-unregister",
    "--serviceaccount=kubeloop-system:kubeloop-sample-controller",
  ]);
  await ok(["create", "namespace", "team-a"]);

  const saDir = await Deno.makeTempDir({ prefix: "kubeloop-sa-" });
  const home = await Deno.makeTempDir({ prefix: "kubeloop-home-" });
  const token =
    (await ok(["create", "token", "kubeloop-sample-controller", "-n", "kubeloop-system", "--duration=1h"]))
      .trim();
  registerSecret(token, "TokenRequest token (self-managed webhook e2e controller)");
  await Deno.writeTextFile(join(saDir, "token"), token);
  await Deno.copyFile(join(env.dir, "ca.crt"), join(saDir, "ca.crt"));
  await Deno.writeTextFile(join(saDir, "namespace"), "kubeloop-system");
  const server = new URL(env.server);
  const start = async (port: number, name: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...await startTaskFlags(),
        join(root, "main.ts"),
        `--health-probe-bind-address=127.0.0.1:${freePort()}`,
        "--metrics-bind-address=0",
        "--leader-elect",
        `--webhook-bind-address=127.0.0.1:${port}`,
        `--webhook-cert-secret=${SECRET}`,
        `--webhook-url=${url}`,
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
    return { child, output: captureOutput(child, name) };
  };
  const foo = (namespace: string, name: string, spec: Record<string, unknown>, version = "v1alpha1") =>
    JSON.stringify({
      apiVersion: `samplecontroller.k8s.io/${version}`,
      kind: "Foo",
      metadata: { name, namespace },
      spec,
    });
  const secretData = async () =>
    JSON.parse(await ok(["get", "secret", SECRET, "-n", "kubeloop-system", "-o", "json"])) as {
      type: string;
      data: Record<string, string>;
      metadata: { annotations: Record<string, string> };
    };

  const replicas = [await start(port0, "self-managed-0"), await start(port1, "self-managed-1")];
  try {
    await t.step("one Secret; the leader writes its CA into both configurations and the CRD", async () => {
      await eventually(
        async () => (await kubectl(["get", "secret", SECRET, "-n", "kubeloop-system"])).code === 0,
        "the Secret exists",
      );
      const secret = await secretData();
      assert.equal(secret.type, "kubernetes.io/tls");
      assert.equal(secret.metadata.annotations["kubeloop.dev/webhook-certificates"], "v1");
      const bundle = atob(secret.data["ca.crt"]!);
      const caBundles = async () => {
        const v = JSON.parse(
          await ok(["get", "validatingwebhookconfiguration", "kubeloop-sample-controller", "-o", "json"]),
        );
        const m = JSON.parse(
          await ok(["get", "mutatingwebhookconfiguration", "kubeloop-sample-controller", "-o", "json"]),
        );
        const crd = JSON.parse(await ok(["get", "crd", "foos.samplecontroller.k8s.io", "-o", "json"]));
        return [...v.webhooks, ...m.webhooks].map((w: { clientConfig: { caBundle?: string } }) =>
          w.clientConfig.caBundle
        )
          .concat(crd.spec.conversion.webhook.clientConfig.caBundle).map((
            b: string | undefined,
          ) => (b ? atob(b) : ""));
      };
      await eventually(
        async () => (await caBundles()).every((b) => b === bundle),
        "every caBundle holds the CA",
      );
    });

    await t.step(
      "both replicas serve the Secret's certificate; the API server checks, defaults and converts Foos",
      async () => {
        const served = der(atob((await secretData()).data["tls.crt"]!));
        await eventually(
          async () => (await servedOn(port0)) === served && (await servedOn(port1)) === served,
          "both serve it",
        );
        await eventually(async () => {
          const r = await kubectl(
            ["apply", "--dry-run=server", "-f", "-"],
            foo("team-a", "probe", { deploymentName: "No_Way" }),
          );
          return r.code !== 0 && r.stderr.includes("denied the request");
        }, "the validating webhook is called");
        await ok(["apply", "-f", "-"], foo("team-a", "web", { deploymentName: "web" }));
        const stored = JSON.parse(
          await ok(["get", "foos.v1alpha1.samplecontroller.k8s.io", "web", "-n", "team-a", "-o", "json"]),
        );
        assert.deepEqual(stored.spec, { deploymentName: "web", replicas: 1 });
        const asBeta = JSON.parse(
          await ok(["get", "foos.v1beta1.samplecontroller.k8s.io", "web", "-n", "team-a", "-o", "json"]),
        );
        assert.deepEqual(asBeta.spec, { deployment: { name: "web", replicas: 1 } });
      },
    );

    await t.step("the RBAC: that Secret and those three objects, nothing else", async () => {
      const can = async (...args: string[]) =>
        (await kubectl(["auth", "can-i", ...args, `--as=${SA}`])).stdout.trim();
      const ns = ["-n", "kubeloop-system"];
      assert.equal(await can("update", `secrets/${SECRET}`, ...ns), "yes");
      assert.equal(await can("watch", `secrets/${SECRET}`, ...ns), "yes");
      assert.equal(await can("create", "secrets", ...ns), "yes");
      assert.equal(await can("get", "secrets/other", ...ns), "no");
      assert.equal(await can("list", "secrets", ...ns), "no", "no list of every Secret");
      assert.equal(await can("delete", `secrets/${SECRET}`, ...ns), "no");
      assert.equal(await can("create", "secrets", "-n", "team-a"), "no", "create only in its namespace");
      assert.equal(await can("patch", "validatingwebhookconfigurations/kubeloop-sample-controller"), "yes");
      assert.equal(await can("patch", "validatingwebhookconfigurations/someone-elses"), "no");
      assert.equal(await can("patch", "customresourcedefinitions/foos.samplecontroller.k8s.io"), "yes");
      assert.equal(await can("patch", "customresourcedefinitions/bars.example.com"), "no");
      // The watch the replicas run (list + watch with fieldSelector metadata.name) is allowed by name:
      // the Secret's own watch worked above; one without the selector is refused.
      const asController = [
        "--token",
        token,
        "--server",
        env.server,
        `--certificate-authority=${join(env.dir, "ca.crt")}`,
      ];
      const listAll = await new Deno.Command(env.kubectl, {
        args: ["get", "secrets", "-n", "kubeloop-system", ...asController, "--kubeconfig=/dev/null"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.notEqual(listAll.code, 0);
      assert.match(new TextDecoder().decode(listAll.stderr), /forbidden/);
    });

    await t.step(
      "stopped with SIGTERM, each replica exits 0 and the configurations are removed",
      async () => {
        for (const r of replicas) r.child.kill("SIGTERM");
        for (const r of replicas) {
          assert.equal((await r.child.status).code, 0);
          await r.output.done;
        }
        const text = replicas.map((r) => r.output.text()).join("\n");
        assert.ok(
          !text.includes('"level":"error"'),
          text.split("\n").filter((l) => l.includes('"level":"error"')).join("\n"),
        );
        assert.ok(!text.includes("PRIVATE KEY"), "no key material in any log line");
        assert.notEqual(
          (await kubectl(["get", "validatingwebhookconfiguration", "kubeloop-sample-controller"])).code,
          0,
        );
      },
    );
  } finally {
    for (const r of replicas) {
      try {
        r.child.kill("SIGKILL");
      } catch { /* exited already */ }
      await r.child.status;
      await r.output.done;
    }
    await Deno.remove(saDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

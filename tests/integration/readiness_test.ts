// An informer that cannot list/watch is named in /readyz (its reason withheld: the probe is unauthenticated)
// and shows why in one error line and in the readyz warning, against the real server: 403 for an identity
// without RBAC rules, 404 for a custom resource whose CRD is not installed.
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { type ResourceRef } from "../../lib/resources/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { Manager } from "../../lib/controller/mod.ts";
import { SECRETS } from "../../lib/resources/mod.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { adminClient, b64, kubeconfigDoc, writeKubeconfig } from "../_util/clients.ts";
import { eventually, mintClientCert, testEnv } from "../_util/testenv.ts";
import { freePort } from "../e2e/controller_process.ts";

const WIDGETS: ResourceRef = {
  group: "kubeloop.test",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

/**
 * Runs a Manager with one controller for `ref` until its readyz warning gives `status` as the reason; returns
 * the /readyz body then, the reasons logged, and the informer's error lines.
 */
async function readyzFailure(
  client: KubeClient,
  ref: ResourceRef,
  status: string,
): Promise<{ body: string; reasons: string[]; errors: string[] }> {
  const logger = new MemoryLogger();
  const port = freePort();
  const manager = new Manager(new SharedInformerFactory(client, { logger }), {
    metricsAddress: "0",
    healthAddress: `127.0.0.1:${port}`,
    logger,
  });
  manager.controller({ name: ref.plural, for: ref, reconcile: () => Promise.resolve() });
  const stop = new AbortController();
  const running = manager.run({ signal: stop.signal });
  const reasons = () =>
    logger.lines.filter((l) => l.msg === "The readyz check failed").flatMap((l) =>
      (l.fields["failures"] as { check: string; reason: string }[]).map((f) => `${f.check}: ${f.reason}`)
    );
  try {
    let last = "";
    const body = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      last = (await res?.text()) ?? "";
      return res?.status === 503 && reasons().some((r) => r.includes(status)) ? last : undefined;
    }, { timeoutMs: 20_000, message: `readyz did not report ${status}` }).catch((e: Error) => {
      throw new Error(`${e.message}; last answer: ${last}; logged: ${reasons().join("; ")}`);
    });
    const errors = logger.lines.filter((l) => l.level === "error").map((l) =>
      `${l.fields["resource"]}: ${l.msg}`
    );
    return { body, reasons: reasons(), errors };
  } finally {
    stop.abort();
    await running;
  }
}

Deno.test("readyz and one error line name the resource of an informer denied by RBAC (403)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { cert, key } = await mintClientCert({ cn: "kubeloop-no-rbac" });
    const ca = await Deno.readTextFile(`${testEnv.dir}/ca.crt`);
    const path = await writeKubeconfig(
      dir,
      "config",
      kubeconfigDoc({ "client-certificate-data": b64(cert), "client-key-data": b64(key) }, {
        "certificate-authority-data": b64(ca),
      }),
    );
    await using client = new KubeClient(await loadConfig({ kubeconfig: path, env: () => undefined }));
    const { body, reasons, errors } = await readyzFailure(client, SECRETS, "(403)");
    assert.equal(
      body,
      '[-]informer v1/secrets of controller "secrets" failed: reason withheld\nreadyz check failed\n',
    );
    assert.match(
      reasons.at(-1) ?? "",
      /^informer v1\/secrets of controller "secrets": Forbidden \(403\): secrets is forbidden: User "kubeloop-no-rbac" cannot list/,
    );
    assert.deepEqual(errors, [
      "v1/secrets: Cannot list/watch v1/secrets: Forbidden (403); the RBAC rules of this identity do not allow list and watch on it",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readyz and one error line name the resource of an informer whose CRD is not installed (404)", async () => {
  await using client = await adminClient();
  const { body, reasons, errors } = await readyzFailure(client, WIDGETS, "(404)");
  assert.equal(
    body,
    '[-]informer kubeloop.test/v1/widgets of controller "widgets" failed: reason withheld\nreadyz check failed\n',
  );
  assert.match(
    reasons.at(-1) ?? "",
    /^informer kubeloop\.test\/v1\/widgets of controller "widgets": NotFound \(404\)/,
  );
  assert.deepEqual(errors, [
    "kubeloop.test/v1/widgets: Cannot list/watch kubeloop.test/v1/widgets: NotFound (404); the resource does not " +
    "exist on this server: is its CustomResourceDefinition installed?",
  ]);
});

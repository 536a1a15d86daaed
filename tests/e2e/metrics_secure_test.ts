/**
 * Secure metrics of the reference controller, run as the shipped manifests run it (in-cluster, shipped RBAC,
 * --metrics-secure by default) against the real API server: its TokenReview and SubjectAccessReview decide
 * who may scrape. The exposition a permitted scraper gets still passes the metrics format checker.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { createNamespace, eventually } from "../_util/testenv.ts";
import { installSampleControllerPrerequisites, metricsScraperToken } from "../_util/sample_controller.ts";
import { sampleSum } from "../integration/_metrics.ts";
import { checkMetrics } from "../_util/metrics_check.ts";
import { selfSignedCertificate } from "../../lib/x509/self_signed.ts";
import { servedCertificate, startController } from "./controller_process.ts";

async function waitReady(healthUrl: string, logs: () => string): Promise<void> {
  await eventually(async () => {
    const res = await fetch(`${healthUrl}/readyz`).catch(() => undefined);
    await res?.body?.cancel();
    return res?.ok ? true : undefined;
  }, { timeoutMs: 30_000, message: `not ready; logs:\n${logs().slice(-4000)}` });
}

Deno.test("attack: scraping the controller's /metrics needs a token RBAC allows: none 401, forged 401, unbound 403, reader 200", async () => {
  await installSampleControllerPrerequisites();
  await using ns = await createNamespace("metrics-secure");
  const controller = await startController([`--namespace=${ns.name}`]);
  try {
    // Health probes stay plain HTTP on their own port.
    await waitReady(controller.healthUrl, controller.logs);
    const port = Number(new URL(controller.metricsUrl).port);

    const anonymous = await controller.fetchMetrics(undefined);
    assert.equal(anonymous.status, 401, anonymous.body);
    assert.doesNotMatch(anonymous.body, /controller_runtime/);
    assert.equal((await controller.fetchMetrics("forged.jwt.token")).status, 401);
    const intruder = await controller.fetchMetrics(await metricsScraperToken("intruder"));
    assert.equal(intruder.status, 403, intruder.body);
    assert.match(intruder.body, /system:serviceaccount:kubeloop-system:kubeloop-test-metrics-intruder/);
    assert.doesNotMatch(intruder.body, /controller_runtime/);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`), "no plain HTTP on the metrics port");

    const text = await controller.scrapeMetrics();
    assert.match(text, /^# TYPE controller_runtime_reconcile_total counter$/m);
    const checked = await checkMetrics(text);
    assert.equal(checked.code, 0, `the metrics checker failed:\n${checked.output}`);
    // The refusals are visible to whoever may scrape.
    const decisions = (d: string) => sampleSum(text, "kubeloop_metrics_authorization_total", { decision: d });
    assert.ok((decisions("unauthenticated") ?? 0) >= 2);
    assert.ok((decisions("forbidden") ?? 0) >= 1);
    // The reviews went through the API server as the controller's ServiceAccount.
    assert.ok(
      (sampleSum(text, "rest_client_requests_total", { method: "POST", code: "201" }) ?? 0) >= 2,
      "TokenReview and SubjectAccessReview were created",
    );

    // The default certificate is generated and self-signed, for the loopback addresses and the pod's name.
    const served = new X509Certificate(await servedCertificate("127.0.0.1", port));
    assert.equal(served.issuer, served.subject);
    assert.match(served.subjectAltName ?? "", /IP Address:127\.0\.0\.1/);
  } finally {
    const code = await controller.stop();
    assert.equal(code, 0, controller.logs().slice(-4000));
  }
});

Deno.test("with --metrics-cert-path the controller serves those files and follows them when they are replaced", async () => {
  await installSampleControllerPrerequisites();
  await using ns = await createNamespace("metrics-certs");
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-metrics-certs-" });
  const first = await selfSignedCertificate({ hosts: ["127.0.0.1", "localhost"] });
  const second = await selfSignedCertificate({ hosts: ["127.0.0.1", "localhost"] });
  const write = async (m: { cert: string; key: string }) => {
    // As a Secret volume does: new files, then an atomic rename into place.
    for (const [name, text] of [["tls.key", m.key], ["tls.crt", m.cert]] as const) {
      await Deno.writeTextFile(join(dir, `.${name}.tmp`), text);
      await Deno.rename(join(dir, `.${name}.tmp`), join(dir, name));
    }
  };
  await write(first);
  const controller = await startController([`--namespace=${ns.name}`, `--metrics-cert-path=${dir}`]);
  try {
    await waitReady(controller.healthUrl, controller.logs);
    const port = Number(new URL(controller.metricsUrl).port);
    assert.equal(await servedCertificate("127.0.0.1", port), first.cert);
    await controller.scrapeMetrics();
    await write(second);
    // The files are re-read every 10 s.
    await eventually(async () => (await servedCertificate("127.0.0.1", port)) === second.cert || undefined, {
      timeoutMs: 25_000,
      intervalMs: 500,
      message: `the new certificate was not served; logs:\n${controller.logs().slice(-4000)}`,
    });
    assert.match(await controller.scrapeMetrics(), /controller_runtime_reconcile_total/);
    assert.match(controller.logs(), /Reloaded the metrics certificate/);
  } finally {
    const code = await controller.stop();
    await Deno.remove(dir, { recursive: true });
    assert.equal(code, 0, controller.logs().slice(-4000));
  }
});

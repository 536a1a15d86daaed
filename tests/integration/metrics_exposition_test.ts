/**
 * The reference controller's /metrics, scraped from the real process (in-cluster, shipped RBAC), checked
 * with the metrics checker (tests/_util/metrics_check.ts) and watched while it reconciles Foos on the real
 * API server.
 */
import assert from "node:assert/strict";
import { startController } from "../e2e/controller_process.ts";
import { createNamespace, eventually, kubectlOk } from "../_util/testenv.ts";
import { sampleSum } from "./_metrics.ts";
import { checkMetrics } from "../_util/metrics_check.ts";
import { waitForOk } from "./_process.ts";
import { applyFoo, installSampleControllerPrerequisites } from "../_util/sample_controller.ts";

/** The names issue 5 requires, with controller-runtime's and client-go's meaning. */
const REQUIRED = [
  "controller_runtime_reconcile_total",
  "controller_runtime_reconcile_errors_total",
  "controller_runtime_reconcile_time_seconds",
  "controller_runtime_active_workers",
  "controller_runtime_max_concurrent_reconciles",
  "workqueue_depth",
  "workqueue_adds_total",
  "workqueue_queue_duration_seconds",
  "workqueue_work_duration_seconds",
  "workqueue_unfinished_work_seconds",
  "workqueue_longest_running_processor_seconds",
  "workqueue_retries_total",
  "rest_client_requests_total",
  "leader_election_master_status",
];

Deno.test("the reference controller's /metrics passes the metrics checker and its counters move as Foos are reconciled", async () => {
  await installSampleControllerPrerequisites();
  await using ns = await createNamespace("metrics");
  // The shipped Role lets the controller read and renew only the default Lease name.
  const leaseName = "kubeloop-sample-controller";
  const controller = await startController([`--namespace=${ns.name}`]);
  try {
    await waitForOk(`${controller.healthUrl}/readyz`, 30_000);
    const before = await eventually(async () => {
      const text = await controller.scrapeMetrics();
      return sampleSum(text, "leader_election_master_status", { name: leaseName }) === 1 ? text : undefined;
    }, { message: () => `the controller did not lead; logs:\n${controller.logs().slice(-4000)}` });
    const first = await checkMetrics(before);
    assert.equal(first.code, 0, `metrics-check failed:\n${first.output}`);
    for (const name of REQUIRED) assert.match(before, new RegExp(`^# TYPE ${name} `, "m"), name);

    const reconciles = (text: string) =>
      sampleSum(text, "controller_runtime_reconcile_total", { controller: "foo" });
    const adds = (text: string) => sampleSum(text, "workqueue_adds_total", { name: "foo" });
    const requests = (text: string) => sampleSum(text, "rest_client_requests_total");
    const reconcilesBefore = reconciles(before) ?? Number.NaN;
    const addsBefore = adds(before) ?? Number.NaN;
    const requestsBefore = requests(before) ?? Number.NaN;
    assert.ok(requestsBefore > 0, "list, watch and Lease requests were counted");

    for (const name of ["alpha", "beta", "gamma"]) await applyFoo(ns.name, name);
    const after = await eventually(async () => {
      const text = await controller.scrapeMetrics();
      return (reconciles(text) ?? 0) >= reconcilesBefore + 3 ? text : undefined;
    }, { message: () => `reconcile_total did not grow by 3; logs:\n${controller.logs().slice(-4000)}` });
    assert.ok((adds(after) ?? 0) >= addsBefore + 3, "workqueue_adds_total moved");
    assert.ok((requests(after) ?? 0) > requestsBefore, "rest_client_requests_total moved");
    // The Deployments as the server records them: written by the controller's field manager (a create, POST,
    // since none was cached yet).
    const applied = await eventually(async () => {
      const list = JSON.parse(
        await kubectlOk(["get", "deployments", "-n", ns.name, "-o", "json", "--show-managed-fields"]),
      ) as {
        items: { metadata: { name: string; managedFields?: { manager?: string; operation?: string }[] } }[];
      };
      const names = list.items.filter((d) =>
        d.metadata.managedFields?.some((f) =>
          f.manager === "kubeloop-sample-controller" && f.operation === "Update"
        )
      ).map((d) => d.metadata.name).sort();
      return names.length === 3 ? names : undefined;
    }, {
      message: () => `three Deployments created by the controller; logs:\n${controller.logs().slice(-4000)}`,
    });
    assert.deepEqual(applied, ["alpha", "beta", "gamma"]);
    assert.ok(
      (sampleSum(after, "rest_client_requests_total", { method: "POST" }) ?? 0) >= 3,
      "rest_client_requests_total counted the creates",
    );
    assert.ok(
      (sampleSum(after, "controller_runtime_reconcile_time_seconds_count", { controller: "foo" }) ?? 0) >= 3,
    );
    assert.ok((sampleSum(after, "rest_client_request_duration_seconds_count") ?? 0) > 0);
    const second = await checkMetrics(after);
    assert.equal(second.code, 0, `metrics-check failed:\n${second.output}`);
  } finally {
    const code = await controller.stop();
    assert.equal(code, 0, controller.logs().slice(-4000));
  }
});

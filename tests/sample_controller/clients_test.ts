import assert from "node:assert/strict";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import { LeaderElector } from "../../lib/leader/mod.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { noopLogger } from "../../lib/log/logger.ts";
import { sampleControllerClients } from "../../lib/sample_controller/clients.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import {
  json,
  type RecordedRequest,
  type ScriptedAnswer,
  ScriptedTransport,
  statusAnswer,
} from "../_util/scripted_transport.ts";

const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "ns",
  source: "test",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
};

/** An API server with one Lease (resourceVersion checks included); every other request gets a ConfigMap. */
function apiServer(): (req: RecordedRequest) => ScriptedAnswer {
  let lease: { metadata: Record<string, unknown>; spec?: unknown } | undefined;
  let rv = 0;
  const store = (body: string | undefined) => {
    lease = JSON.parse(body ?? "{}");
    lease!.metadata = { ...lease!.metadata, resourceVersion: String(++rv) };
    return json(200, lease);
  };
  return (req) => {
    if (!req.url.pathname.includes("/leases")) return json(200, { metadata: { name: "x" } });
    if (req.method === "GET") return lease ? json(200, lease) : statusAnswer(404, "NotFound");
    if (req.method === "POST") return store(req.body);
    const sent = JSON.parse(req.body ?? "{}") as { metadata: { resourceVersion?: string } };
    if (sent.metadata.resourceVersion !== lease?.metadata["resourceVersion"]) {
      return statusAnswer(409, "Conflict");
    }
    return store(req.body);
  };
}

async function leadsThroughBacklog(electorOn: "controlClient" | "client"): Promise<boolean[]> {
  const clock = new FakeClock();
  const transport = new ScriptedTransport(apiServer());
  // --kube-api-qps=1 --kube-api-burst=1; leader election only for the elector on its own client, since the
  // reconciles' client is fenced until the elector grants it.
  const flags = { kubeApiQps: 1, kubeApiBurst: 1, leaderElect: electorOn === "controlClient" };
  await using clients = sampleControllerClients(config, flags, {
    registry: new MetricsRegistry(),
    logger: noopLogger,
    transport,
    clock,
  });
  const elector = new LeaderElector(clients[electorOn], {
    leaseName: "demo",
    namespace: "ns",
    identity: "me",
    clock,
    random: () => 0,
    ...(clients.fence ? { fence: clients.fence } : {}),
  });
  const ctl = new AbortController();
  const done = elector.run({ signal: ctl.signal });
  await clock.advance(2_000); // GET + POST: with burst 1 the second waits a second
  assert.ok(elector.isLeader, "acquired while the controller was idle");
  // Then the controller gets busy: 100 requests queued on the reconciles' limiter, 100 s of backlog.
  const backlog = Array.from({ length: 100 }, () => clients.client.get(CONFIG_MAPS, "x"));
  const leading: boolean[] = [];
  for (let second = 0; second < 30; second++) {
    await clock.advance(1_000);
    leading.push(elector.isLeader && (clients.fence?.valid ?? true));
  }
  ctl.abort();
  await clock.advance(200_000);
  await done;
  await Promise.all(backlog);
  return leading;
}

Deno.test("renewals proceed on the control client while the reconciles' limiter is exhausted", async () => {
  const leading = await leadsThroughBacklog("controlClient");
  assert.deepEqual(leading, Array(30).fill(true), "led, with a valid fence, for all 30 s");
});

Deno.test("the same backlog starves an elector that shares the reconciles' client (why it has its own)", async () => {
  const leading = await leadsThroughBacklog("client");
  const lostAfter = leading.indexOf(false);
  assert.ok(lostAfter >= 7 && lostAfter <= 10, `lost at the renew deadline: ${leading}`);
  assert.ok(leading.slice(lostAfter).every((l) => !l));
});

/**
 * Self-managed webhook certificates against the real kube-apiserver of the shared control plane. Three
 * replicas in this process share one Secret; a validating configuration and a CRD's conversion point by
 * `url:` at replica 0 (the API server calls one URL), and the test itself calls every replica's TLS port to
 * see which certificate each serves. Lifetimes are seconds, so that in half a minute the leader renews the
 * serving certificate several times and rotates the CA once, while admissions and conversions flow
 * without a pause; leadership moves while the new CA is staged, and a replica restarts once it is switched.
 */
import assert from "node:assert/strict";
import * as nodeTls from "node:tls";
import {
  allow,
  conversionWebhook,
  crdConversion,
  deny,
  serveWebhooks,
  spoke,
  validatingWebhook,
  webhookConfigurations,
  type WebhookServer,
} from "../../lib/webhook/mod.ts";
import {
  type SelfManagedCertificates,
  selfManagedCertificates,
} from "../../lib/webhook_certs/self_managed_certificates.ts";
import { PHASE_ANNOTATION } from "../../lib/webhook_certs/secret_format.ts";
import { LeaseFence } from "../../lib/leader/lease_fence.ts";
import type { KubeClient } from "../../lib/client/mod.ts";
import {
  CONFIG_MAPS,
  type ConfigMap,
  CUSTOM_RESOURCE_DEFINITIONS,
  type KubeObject,
  type ResourceRef,
  SECRETS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "../../lib/resources/mod.ts";
import type { Secret } from "../../lib/resources/core_v1.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { print } from "../_util/print.ts";
import { createNamespace, eventually, kubectl, kubectlOk } from "../_util/testenv.ts";

const run = crypto.randomUUID().slice(0, 8);
const GROUP = `r${run}.certs.kubeloop.test`;
const CRD = `blobs.${GROUP}`;
const CONFIG = `kubeloop-certs-${run}`;
const LABEL = "kubeloop-certs-test";
const SECRET = "webhook-certs";
// Seconds instead of months. A CA is renewed 24 s after it is made (2/3 of 36 s), a serving certificate
// every 12 s (2/3 of 18 s); the previous CA is trusted 4 s after the switch (1 s check + 2 s propagation).
const POLICY = {
  caValidityMs: 36_000,
  servingValidityMs: 18_000,
  checkPeriodMs: 1_000,
  propagationMs: 2_000,
  overlapMs: 4_000,
  retryMs: 200,
  backdateMs: 0,
};
/** The bound on a replica's switch: a check period plus propagation, and 3 s for a loaded machine. */
const SWITCH_BOUND_MS = POLICY.checkPeriodMs + POLICY.propagationMs + 3_000;
/**
 * How far an API server's view of a caBundle may lag in this test: half the propagation time the protocol
 * waits, so a correct rotation has a second to spare, and the naive one (a new CA and a certificate it signed
 * at once, the caBundle after) is distrusted for most of that second, not only until its caBundle write.
 */
const VIEW_LAG_MS = POLICY.propagationMs / 2;

interface Blob extends KubeObject {
  spec?: Record<string, unknown>;
}
const BLOBS_V2: ResourceRef<Blob> = {
  group: GROUP,
  version: "v2",
  plural: "blobs",
  kind: "Blob",
  namespaced: true,
};

const validation = validatingWebhook({
  name: `configmaps.${run}.certs.kubeloop.test`,
  resource: CONFIG_MAPS,
  namespaceSelector: { matchLabels: { [LABEL]: run } },
  validate: (request) => request.object?.data?.["forbidden"] ? deny("forbidden") : allow(),
});
const conversion = conversionWebhook<Blob>({
  crd: CRD,
  hub: "v1",
  spokes: [spoke<Blob, Blob>("v2", { toHub: (b) => b, fromHub: (b) => b })],
});

interface Replica {
  readonly stop: AbortController;
  readonly fence: LeaseFence;
  readonly certs: SelfManagedCertificates;
  readonly server: WebhookServer;
  readonly client: KubeClient;
}

async function startReplica(namespace: string, leading: boolean, logger: MemoryLogger): Promise<Replica> {
  const stop = new AbortController();
  const fence = new LeaseFence();
  if (leading) fence.grant("test-lease", Number.POSITIVE_INFINITY);
  const client = await adminClient();
  const certs = await selfManagedCertificates({
    client,
    namespace,
    secretName: SECRET,
    hosts: ["127.0.0.1", `hooks.${namespace}.svc`],
    targets: { validating: [CONFIG], crds: [CRD] },
    fence,
    policy: POLICY,
    signal: stop.signal,
    logger,
  });
  const server = serveWebhooks({
    address: "127.0.0.1:0",
    certificates: certs,
    webhooks: [validation],
    conversions: [conversion],
    signal: stop.signal,
    logger,
  });
  return { stop, fence, certs, server, client };
}

async function stopReplica(r: Replica): Promise<void> {
  r.stop.abort();
  await Promise.all([r.server.finished, r.certs.finished]);
  await r.client[Symbol.asyncDispose]();
}

/**
 * The DER (base64) of the certificate a replica presents in a new TLS handshake. A connection refused or
 * reset is tried again: lib/webhook replaces its listener when the certificate changes, and the port is free
 * again about 3 ms later.
 */
async function servedBy(server: WebhookServer): Promise<string> {
  for (let attempt = 0;; attempt++) {
    try {
      return await handshakeWith(server.port);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 20 || (code !== "ECONNREFUSED" && code !== "ECONNRESET")) throw error;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

function handshakeWith(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = nodeTls.connect({
      host: "127.0.0.1",
      port,
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    }, () => {
      const raw = socket.getPeerCertificate(false).raw;
      socket.destroy();
      resolve(btoa(String.fromCharCode(...raw)));
    });
    socket.on("error", (error) => (socket.destroy(), reject(error)));
  });
}

/** The DER (base64) of the first PEM certificate in `pem`. */
function derOf(pem: string): string {
  const match = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  return match ? match[1]!.replace(/\s+/g, "") : "";
}

async function installTargets(url: string, ownNamespace: string): Promise<void> {
  await kubectlOk(["apply", "-f", "-"], {
    stdin: JSON.stringify({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: CRD },
      spec: {
        group: GROUP,
        scope: "Namespaced",
        names: { kind: "Blob", plural: "blobs", singular: "blob", listKind: "BlobList" },
        // No caBundle: the leader writes it.
        conversion: crdConversion(conversion, { target: { url } }),
        versions: ["v1", "v2"].map((name) => ({
          name,
          served: true,
          storage: name === "v1",
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          },
        })),
      },
    }),
  });
  await kubectlOk(["wait", "--for=condition=Established", `crd/${CRD}`, "--timeout=30s"]);
  const { validating } = webhookConfigurations({
    name: CONFIG,
    webhooks: [validation],
    target: { url },
    namespace: ownNamespace,
  });
  await kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify(validating) });
}

Deno.test("self-managed certificates rotate under admission traffic: no failed request, every replica switches", async () => {
  await using own = await createNamespace("certs-own");
  await using traffic = await createNamespace("certs-traffic");
  await kubectlOk(["label", "namespace", traffic.name, `${LABEL}=${run}`]);
  const logger = new MemoryLogger();
  // Three replicas start at once on an empty namespace: they race to create the Secret.
  const replicas = await Promise.all([true, false, false].map((l) => startReplica(own.name, l, logger)));
  const admin = await adminClient();
  // The traffic and the checkers, stopped however the test ends.
  const stopTraffic = new AbortController();
  const background: Promise<unknown>[] = [];
  try {
    await installTargets(replicas[0]!.server.url, own.name);
    const secretNow = () => admin.get<Secret>(SECRETS, SECRET, { namespace: own.name });
    const tlsCrt = async () => derOf(atob((await secretNow()).data!["tls.crt"]!));
    // Every replica serves the one chain in the Secret.
    const first = await tlsCrt();
    for (const r of replicas) assert.equal(await servedBy(r.server), first);
    // The API server calls the webhook once the leader has published the CA (a denial proves the call).
    await eventually(async () => {
      const r = await kubectl([
        "create",
        "configmap",
        "probe",
        "-n",
        traffic.name,
        "--from-literal=forbidden=1",
      ]);
      return r.code !== 0 && r.stderr.includes("denied the request") ? true : undefined;
    }, { message: "the API server never called the webhook with the published CA", timeoutMs: 30_000 });
    await admin.create<Blob>({ ...BLOBS_V2, version: "v1" }, {
      apiVersion: `${GROUP}/v1`,
      kind: "Blob",
      metadata: { name: "stored-as-v1", namespace: traffic.name },
      spec: { a: 1 },
    });

    // Admissions (ConfigMap creates) and conversions (v2 reads of a v1 object) without a pause.
    const outcomes = { admitted: 0, converted: 0, failures: [] as string[] };
    let n = 0;
    const flow = async () => {
      while (!stopTraffic.signal.aborted) {
        const i = n++;
        try {
          await admin.create<ConfigMap>(CONFIG_MAPS, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `c${i}`, namespace: traffic.name },
            data: { i: String(i) },
          });
          outcomes.admitted++;
          const blob = await admin.get(BLOBS_V2, "stored-as-v1", { namespace: traffic.name });
          assert.equal(blob.apiVersion, `${GROUP}/v2`);
          outcomes.converted++;
        } catch (error) {
          outcomes.failures.push(`${new Date().toISOString()} ${String(error)}`);
        }
      }
    };
    background.push(flow(), flow());
    // The API server reuses its connections, so its calls alone rarely show a certificate its caBundle
    // does not trust: a new connection would. This client makes a new TLS handshake with every replica in
    // turn, trusting only the CAs that every caBundle the configuration held in the last VIEW_LAG_MS had
    // (read every 25 ms): any API server whose view lags by up to that long must trust what is served.
    // lib/webhook replaces its listener when the certificate changes (Deno 2.9.6: the port is free again
    // about 3 ms later), so a connection arriving then is refused or reset: counted apart, and bounded,
    // since it is the server's, not a certificate the client does not trust.
    const handshakes = { ok: 0, failures: [] as string[], refused: 0 };
    const bundles: { readonly at: number; readonly cas: readonly string[] }[] = [];
    const restarting = new Set<number>();
    const readBundleOnce = async () => {
      const config = await admin.get(VALIDATING_WEBHOOK_CONFIGURATIONS, CONFIG);
      const pem = atob(config.webhooks![0]!.clientConfig.caBundle ?? "");
      const cas = (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [])
        .map((ca) => `${ca}\n`);
      const now = Date.now();
      bundles.push({ at: now, cas });
      // The newest read from before the window stays: it was still what the configuration held at its start.
      while (bundles.length > 1 && bundles[1]!.at <= now - VIEW_LAG_MS) bundles.shift();
    };
    const trustedByEveryView = () =>
      bundles.map((b) => b.cas).reduce((all, cas) => all.filter((ca) => cas.includes(ca)));
    await readBundleOnce();
    const readBundle = async () => {
      while (!stopTraffic.signal.aborted) {
        await new Promise((r) => setTimeout(r, 25));
        await readBundleOnce();
      }
    };
    const coldHandshakes = async () => {
      for (let i = 0; !stopTraffic.signal.aborted; i++) {
        const index = i % replicas.length;
        if (restarting.has(index)) continue;
        const { port } = replicas[index]!.server;
        const caCerts = [...trustedByEveryView()];
        if (caCerts.length === 0) {
          // Whatever the replica serves, some view of the last VIEW_LAG_MS distrusts it.
          handshakes.failures.push(`${new Date().toISOString()} no CA in every caBundle of the last second`);
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        try {
          const conn = await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts });
          try {
            await conn.handshake();
            handshakes.ok++;
          } finally {
            conn.close();
          }
        } catch (error) {
          if (restarting.has(index)) continue;
          if (
            error instanceof Deno.errors.ConnectionRefused || error instanceof Deno.errors.ConnectionReset
          ) {
            handshakes.refused++;
          } else {
            handshakes.failures.push(`${new Date().toISOString()} replica ${index}: ${String(error)}`);
          }
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    background.push(readBundle(), coldHandshakes());

    // Watch the Secret: each new serving certificate must be served by every replica within the bound.
    const latencies: number[] = [];
    const phases = new Set<string>();
    const signers = new Set<string>();
    let restarted = false;
    let moved = false;
    let seen = first;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const secret = await secretNow();
      const phase = secret.metadata.annotations?.[PHASE_ANNOTATION] ?? "";
      phases.add(phase);
      signers.add(atob(secret.data!["signer.crt"]!));
      if (phase === "staged" && !moved) {
        // Leadership moves in the middle of the rotation: the new leader finishes it.
        moved = true;
        replicas[0]!.fence.revoke();
        replicas[1]!.fence.grant("test-lease", Number.POSITIVE_INFINITY);
      }
      if (phase === "switched" && !restarted) {
        restarted = true;
        restarting.add(2);
        await stopReplica(replicas[2]!);
        replicas[2] = await startReplica(own.name, false, logger);
        restarting.delete(2);
        assert.equal(await servedBy(replicas[2].server), await tlsCrt(), "the restarted replica rejoins");
      }
      const current = derOf(atob(secret.data!["tls.crt"]!));
      if (current !== seen) {
        seen = current;
        const since = Date.now();
        for (const r of replicas) {
          while ((await servedBy(r.server)) !== current && Date.now() - since < 2 * SWITCH_BOUND_MS) {
            await new Promise((r) => setTimeout(r, 20));
          }
        }
        latencies.push(Date.now() - since);
      }
      if (signers.size >= 2 && phase === "stable" && latencies.length >= 3 && restarted) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    stopTraffic.abort();
    await Promise.all(background);

    assert.ok(latencies.every((ms) => ms <= SWITCH_BOUND_MS), `switch latencies ${latencies} ms`);
    assert.deepEqual(outcomes.failures, [], "no admission or conversion failed");
    assert.deepEqual(handshakes.failures, [], "every new handshake trusted the published caBundle");
    assert.ok(handshakes.ok > 300, `handshakes made (${handshakes.ok})`);
    const swaps = (latencies.length + 1) * replicas.length;
    assert.ok(handshakes.refused <= 3 * swaps, `${handshakes.refused} refused for ${swaps} listener swaps`);
    assert.ok(outcomes.admitted > 100, `admissions flowed (${outcomes.admitted})`);
    assert.ok(phases.has("staged") && phases.has("switched"), `a CA rotation was seen (${[...phases]})`);
    assert.ok(signers.size >= 2, "the CA changed");
    // The caBundles hold exactly the Secret's trust bundle.
    const secret = await secretNow();
    const bundle = atob(secret.data!["ca.crt"]!);
    const config = await admin.get(VALIDATING_WEBHOOK_CONFIGURATIONS, CONFIG);
    const crd = await admin.get(CUSTOM_RESOURCE_DEFINITIONS, CRD);
    assert.equal(atob(config.webhooks![0]!.clientConfig.caBundle!), bundle);
    assert.equal(atob(crd.spec.conversion!.webhook!.clientConfig!.caBundle!), bundle);
    assert.deepEqual(logger.lines.filter((l) => l.level === "error"), []);
    print(
      `admitted ${outcomes.admitted}, converted ${outcomes.converted}, handshakes ${handshakes.ok} ` +
        `(${handshakes.refused} refused during a listener swap), ` +
        `serving certificates ` +
        `${latencies.length + 1}, CAs ${signers.size}, switch latencies (ms) ${latencies.join(", ")}`,
    );
  } finally {
    stopTraffic.abort();
    await Promise.allSettled(background);
    await Promise.all(replicas.map(stopReplica));
    await kubectl(["delete", "validatingwebhookconfiguration", CONFIG, "--ignore-not-found"]);
    await kubectl(["delete", "crd", CRD, "--ignore-not-found", "--wait=false"]);
    await admin[Symbol.asyncDispose]();
  }
});

/**
 * Serves the ConfigMap policy (policy.ts) until SIGINT/SIGTERM. In a cluster, give it the certificate a
 * Secret or cert-manager mounts and register the configurations with your manifests:
 *
 *   deno run --allow-net --allow-read examples/webhook/main.ts --cert-dir=/certs
 *
 * Against a development control plane that can reach this process (`deno task testenv`), let it use a
 * generated certificate and register (and, on exit, remove) the configurations itself:
 *
 *   deno run --allow-net --allow-read --allow-env=HOME,KUBECONFIG --ignore-env=LOG_TOKENS,LOG_STREAM \
 *     examples/webhook/main.ts --url=https://127.0.0.1:9443
 */
import { parseArgs } from "node:util";
import {
  certificateFiles,
  createLogger,
  generatedCertificate,
  installSignalHandlers,
  KubeClient,
  loadConfig,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  serveWebhooks,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  webhookConfigurations,
} from "../../lib/mod.ts";
import { markReviewed, requireTeam } from "./policy.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    address: { type: "string", default: ":9443" },
    "cert-dir": { type: "string" },
    url: { type: "string" },
  },
});
const shutdown = new AbortController();
using _signals = installSignalHandlers(shutdown);
const { signal } = shutdown;
const logger = createLogger();
const certificates = flags["cert-dir"]
  ? await certificateFiles({
    certFile: `${flags["cert-dir"]}/tls.crt`,
    keyFile: `${flags["cert-dir"]}/tls.key`,
    signal,
  })
  : await generatedCertificate({ hosts: [new URL(flags.url ?? "https://localhost").hostname], signal });
const webhooks = [markReviewed, requireTeam];
const server = serveWebhooks({ address: flags.address, certificates, webhooks, signal, logger });

if (flags.url) {
  await using client = new KubeClient(await loadConfig({ logger }), { logger });
  const name = "configmap-policy";
  const { validating, mutating } = webhookConfigurations({
    name,
    webhooks,
    target: { url: flags.url },
    caBundle: certificates.current().cert, // a self-signed certificate is its own CA
    namespace: "kube-system", // out of a cluster there is no namespace of our own to exclude
  });
  const apply = { type: "apply", fieldManager: name, force: true } as const;
  await client.patch(VALIDATING_WEBHOOK_CONFIGURATIONS, name, validating, apply);
  await client.patch(MUTATING_WEBHOOK_CONFIGURATIONS, name, mutating, apply);
  logger.info("Registered the webhooks", { url: flags.url });
  await server.finished;
  await client.delete(VALIDATING_WEBHOOK_CONFIGURATIONS, name);
  await client.delete(MUTATING_WEBHOOK_CONFIGURATIONS, name);
} else {
  await server.finished;
}

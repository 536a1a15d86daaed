/**
 * kubeloop's side of bench/webhook/run.ts: the reference controller's Foo validation webhook
 * (lib/sample_controller/foo_webhooks.ts) served by serveWebhooks with certificate files and metrics, as
 * the controller serves it. Prints "ready" once listening; stops on SIGTERM.
 *
 *   deno run --allow-net=127.0.0.1 --allow-read bench/webhook/kubeloop_webhook.ts --port=9443 --cert-dir=DIR \
 *     [--log-level=debug]
 */
import { parseArgs } from "node:util";
import { certificateFiles } from "../../lib/observe/certificate_files.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { fooValidation } from "../../lib/sample_controller/foo_webhooks.ts";
import { serveWebhooks, webhookMetricsFor } from "../../lib/webhook/mod.ts";
import { createLogger, type LogLevel } from "../../lib/log/create_logger.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { port: { type: "string" }, "cert-dir": { type: "string" }, "log-level": { type: "string" } },
});
const stop = new AbortController();
Deno.addSignalListener("SIGTERM", () => stop.abort());
const dir = values["cert-dir"] ?? ".";
const certificates = await certificateFiles({
  certFile: `${dir}/tls.crt`,
  keyFile: `${dir}/tls.key`,
  signal: stop.signal,
});
const server = serveWebhooks({
  address: `127.0.0.1:${values.port ?? "9443"}`,
  certificates,
  webhooks: [fooValidation],
  signal: stop.signal,
  metrics: webhookMetricsFor(new MetricsRegistry()),
  // Refusals and failures only (to stderr); --log-level=debug also names each refused connection.
  logger: createLogger({ level: (values["log-level"] ?? "warn") as LogLevel }),
});
Deno.stdout.writeSync(new TextEncoder().encode("ready\n"));
await server.finished;
Deno.exit(0);

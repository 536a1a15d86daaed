/**
 * The options of the reference controller's webhooks, shared by the ways it gets certificates.
 * @module
 */
import type { KubeClient } from "../client/mod.ts";
import type { LeaseFence } from "../leader/mod.ts";
import type { Logger } from "../log/logger.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";
import type { ControllerFlags } from "./controller_flags.ts";

/** The running webhooks (an object, not a bare promise, which `await` would wait for). */
export interface FooWebhooks {
  /** Resolves once the server stopped (and, with `--webhook-url`, the configurations were removed). */
  readonly finished: Promise<void>;
}

/** Options of {@linkcode serveFooWebhooks}. */
export interface FooWebhookOptions {
  /**
   * Registers and removes the configurations in `--webhook-url` mode (needs rights to write them); with
   * `--webhook-cert-secret`, reads, watches and creates the Secret and, on the leader, updates it and
   * patches the caBundles (unfenced: the leader's writes check `fence` themselves).
   */
  client: KubeClient;
  /** Receives the webhook metrics. */
  registry: MetricsRegistry;
  /** Parent logger. */
  logger: Logger;
  /** The namespace no webhook intercepts (the controller's own). */
  namespace: string;
  /** Where the self-managed Secret lives: the controller's own namespace (the Lease's). */
  secretNamespace: string;
  /**
   * The Lease's write fence: only its holder rotates self-managed certificates.
   * @default {none: this replica always leads}
   */
  fence?: LeaseFence;
  /**
   * Told when self-managed webhooks, which start in the background, cannot start or fail; the controller
   * then stops.
   * @default {nothing}
   */
  onFailure?: (error: unknown) => void;
  /** Stops the server (and, in `--webhook-url` mode, removes the configurations). */
  signal: AbortSignal;
}

/** The flags that choose the webhook certificates. */
export type WebhookFlags = Pick<
  ControllerFlags,
  | "webhookBindAddress"
  | "webhookCertPath"
  | "webhookCertName"
  | "webhookCertKey"
  | "webhookCertSecret"
  | "webhookService"
  | "webhookUrl"
>;

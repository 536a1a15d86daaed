/**
 * What an admission handler gets besides the request: dry-run, a deadline, a logger, warnings, and side
 * effects that respect the webhook's declared `sideEffects`.
 * @module
 */
import type { Logger } from "../log/logger.ts";

/** How a webhook declares its side effects; the only two values admissionregistration.k8s.io/v1 accepts. */
export type SideEffects = "None" | "NoneOnDryRun";

/** Thrown by {@linkcode AdmissionContext.sideEffect} in a webhook declared `sideEffects: "None"`. */
export class SideEffectError extends Error {
  /** The webhook that tried. */
  readonly webhook: string;
  /** `webhook` is the name of the webhook whose handler tried a side effect. */
  constructor(webhook: string) {
    super(
      `Webhook "${webhook}" declares sideEffects "None" but its handler tried a side effect; declare ` +
        `"NoneOnDryRun" and use context.sideEffect() so dry-run requests skip it`,
    );
    this.name = "SideEffectError";
    this.webhook = webhook;
  }
}

/** The second argument of every admission handler. */
export interface AdmissionContext {
  /** True when the request persists nothing (`--dry-run=server`): skip side effects. */
  readonly dryRun: boolean;
  /** Aborted when the webhook's `timeoutSeconds` passed (the API server has stopped waiting by then). */
  readonly signal: AbortSignal;
  /** Lines about this request (webhook, uid, operation, namespace and name are already attached). */
  readonly logger: Logger;
  /** Adds a warning the client sees ("Warning: …" in kubectl); the request still proceeds. */
  warn(message: string): void;
  /**
   * Runs `effect` unless the request is a dry run, in which case it resolves to `undefined` without
   * running it. Only for webhooks declared `sideEffects: "NoneOnDryRun"`; in one declared "None" it
   * rejects with {@linkcode SideEffectError}, because the API server also calls such webhooks on dry runs,
   * trusting the declaration.
   */
  sideEffect<R>(effect: () => R | Promise<R>): Promise<R | undefined>;
}

/** Builds the context of one request; `warnings` collects what the handler warns. */
export function admissionContext(options: {
  webhook: string;
  sideEffects: SideEffects;
  dryRun: boolean;
  signal: AbortSignal;
  logger: Logger;
  warnings: string[];
}): AdmissionContext {
  const { webhook, sideEffects, dryRun, signal, logger, warnings } = options;
  return {
    dryRun,
    signal,
    logger,
    warn(message) {
      warnings.push(message);
    },
    async sideEffect(effect) {
      if (sideEffects === "None") throw new SideEffectError(webhook);
      if (dryRun) {
        logger.debug("Skipped a side effect: the request is a dry run");
        return undefined;
      }
      return await effect();
    },
  };
}

/**
 * One admission request through its handler: the context, the deadline, the verdict or desired object
 * turned into a response (with the JSON Patch), and a throwing or overrunning handler answered by the
 * failure policy.
 * @module
 */
import type { KubeObject } from "../resources/object.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import type { Logger } from "../log/logger.ts";
import type { AdmissionRequest, AdmissionResponse } from "./admission_review.ts";
import { type AdmissionContext, admissionContext, type SideEffects } from "./admission_context.ts";
import { diffJson, type JsonValue } from "./json_patch.ts";
import { type AdmissionVerdict, Denied } from "./verdict.ts";
import { encodeBase64 } from "./_base64.ts";

/** Options of one review. */
export interface ReviewOptions {
  /** Lines about the request; a child with the webhook, uid, operation, namespace and name is made. */
  logger: Logger;
  /**
   * Time source of the handler's deadline.
   * @default {systemClock}
   */
  clock?: Clock;
}

/** What the review needs of a webhook's settings. */
export interface ReviewSettings {
  readonly name: string;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly sideEffects: SideEffects;
  readonly timeoutSeconds: number;
}

/** The handler of a webhook, by type. */
export type AdmissionHandler =
  | {
    kind: "validate";
    validate: (
      request: AdmissionRequest,
      context: AdmissionContext,
    ) => AdmissionVerdict | Promise<AdmissionVerdict>;
  }
  | {
    kind: "mutate";
    mutate: (
      object: KubeObject,
      request: AdmissionRequest,
      context: AdmissionContext,
    ) => KubeObject | Denied | Promise<KubeObject | Denied>;
  };

/** Rejects a handler that did not answer in time. */
class HandlerTimeout extends Error {
  constructor(seconds: number) {
    super(`The handler did not answer within the webhook's timeoutSeconds (${seconds} s)`);
    this.name = "HandlerTimeout";
  }
}

/** Answers `request` with `handler`; never rejects. */
export async function reviewAdmission(
  settings: ReviewSettings,
  request: AdmissionRequest,
  options: ReviewOptions,
  handler: AdmissionHandler,
): Promise<AdmissionResponse> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger.child({
    webhook: settings.name,
    uid: request.uid,
    operation: request.operation,
    ...(request.namespace ? { namespace: request.namespace } : {}),
    ...(request.name ? { name: request.name } : {}),
  });
  const warnings: string[] = [];
  const deadline = new AbortController();
  const context = admissionContext({
    webhook: settings.name,
    sideEffects: settings.sideEffects,
    dryRun: request.dryRun === true,
    signal: deadline.signal,
    logger,
    warnings,
  });
  let timer: { cancel(): void } | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimer(() => {
      const error = new HandlerTimeout(settings.timeoutSeconds);
      deadline.abort(error);
      reject(error);
    }, settings.timeoutSeconds * 1000);
  });
  const answering = answer(request, handler, context);
  // After a timeout the handler may still fail; that failure has been answered already.
  answering.catch(() => {});
  try {
    const response = await Promise.race([answering, timeout]);
    if (warnings.length > 0) response.warnings = [...(response.warnings ?? []), ...warnings];
    return { ...response, uid: request.uid };
  } catch (error) {
    return failed(settings, request.uid, error, logger, warnings);
  } finally {
    timer?.cancel();
  }
}

async function answer(
  request: AdmissionRequest,
  handler: AdmissionHandler,
  context: AdmissionContext,
): Promise<AdmissionResponse> {
  if (handler.kind === "validate") return fromVerdict(request.uid, await handler.validate(request, context));
  // DELETE carries no object: there is nothing to mutate.
  if (request.object === undefined) return { uid: request.uid, allowed: true };
  const result = await handler.mutate(structuredClone(request.object), request, context);
  if (result instanceof Denied) return fromVerdict(request.uid, result);
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    throw new TypeError(
      `The mutating handler returned ${Array.isArray(result) ? "an array" : typeof result}, not an object`,
    );
  }
  // Through JSON, as the API server will see it: undefined members vanish, dates become strings.
  const desired = JSON.parse(JSON.stringify(result)) as JsonValue;
  const ops = diffJson(request.object as unknown as JsonValue, desired);
  if (ops.length === 0) return { uid: request.uid, allowed: true };
  return {
    uid: request.uid,
    allowed: true,
    patchType: "JSONPatch",
    patch: encodeBase64(JSON.stringify(ops)),
  };
}

function fromVerdict(uid: string, verdict: AdmissionVerdict): AdmissionResponse {
  if (verdict instanceof Denied) {
    return {
      uid,
      allowed: false,
      status: { status: "Failure", message: verdict.message, reason: verdict.reason, code: verdict.code },
    };
  }
  if (verdict?.allowed !== true) {
    throw new TypeError("The validating handler returned neither allow() nor deny(…)");
  }
  return { uid, allowed: true };
}

/** The answer when the handler threw or overran: by the failure policy, and logged. */
function failed(
  settings: ReviewSettings,
  uid: string,
  error: unknown,
  logger: Logger,
  warnings: string[],
): AdmissionResponse {
  const timedOut = error instanceof HandlerTimeout;
  logger.error(timedOut ? "The admission handler timed out" : "The admission handler failed", {
    error,
    failurePolicy: settings.failurePolicy,
  });
  const what = timedOut ? "timed out" : "failed";
  if (settings.failurePolicy === "Ignore") {
    return {
      uid,
      allowed: true,
      warnings: [
        ...warnings,
        `webhook "${settings.name}" ${what}; its failurePolicy is Ignore, so the request was not checked`,
      ],
    };
  }
  return {
    uid,
    allowed: false,
    status: {
      status: "Failure",
      message:
        `webhook "${settings.name}" ${what} (see its log, uid ${uid}); failurePolicy Fail refuses the request`,
      reason: "InternalError",
      code: 500,
    },
  };
}

import type { Logger } from "../log/logger.ts";

/** One failed part of a health check: its name is shown to the caller, its reason only logged. */
export interface CheckFailure {
  /** What failed, e.g. `informer v1/secrets of controller "secrets"`; shown in the 503 body. */
  readonly check: string;
  /** Why; logged, never shown (it may hold user names, resource names, the API server's own words). */
  readonly reason: string;
}

/** The result of a health check. */
export interface CheckResult {
  /** Healthy or ready. */
  readonly ok: boolean;
  /**
   * The checks that failed, when `ok` is false.
   * @default {none named}
   */
  readonly failures?: readonly CheckFailure[];
}

/** A health check: true (or `{ ok: true }`) when healthy or ready; a throw counts as a failure. */
export type Check = () => boolean | CheckResult | Promise<boolean | CheckResult>;

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/**
 * The handler of `/healthz` or `/readyz` (`name`): 200 "ok", or 503 naming each failed check with its reason
 * withheld, as kube-apiserver answers (`[-]<check> failed: reason withheld`, then `<name> check failed`).
 * The probes are unauthenticated, so the reasons (an API server message names users and resources) go to
 * `logger` only, and only when they differ from the last ones logged: a caller polling a failing probe
 * cannot flood the log.
 */
export function probeHandler(name: string, check: Check, logger: Logger): () => Promise<Response> {
  let lastLogged = "";
  const report = (failures: readonly CheckFailure[]) => {
    const key = JSON.stringify(failures);
    if (key === lastLogged) return;
    lastLogged = key;
    logger.warn(`The ${name} check failed`, {
      failures: failures.map((f) => ({ check: f.check, reason: f.reason })),
    });
  };
  return async () => {
    let failures: readonly CheckFailure[];
    try {
      const result = await check();
      const ok = typeof result === "boolean" ? result : result.ok;
      if (ok) {
        lastLogged = "";
        return new Response("ok\n", { headers: TEXT });
      }
      failures = typeof result === "boolean" ? [] : result.failures ?? [];
    } catch (error) {
      failures = [{
        check: name,
        reason: `the check threw: ${error instanceof Error ? error.message : error}`,
      }];
    }
    report(failures);
    const lines = failures.map((f) => `[-]${oneLine(f.check)} failed: reason withheld\n`).join("");
    return new Response(`${lines}${name} check failed\n`, { status: 503, headers: TEXT });
  };
}

/** A check name as one line of the body. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}

/**
 * The rotation machine's decisions (rotation_state.ts calls them from `step`): what a read Secret means, what
 * the leader does once it knows whether the caBundles match, and what a generated CA or certificate becomes.
 * @module
 */
import { assertNever } from "../_internal/assert_never.ts";
import type {
  Moment,
  Purpose,
  RotationConfig,
  RotationInput,
  RotationNotice,
  RotationPhase,
  RotationTransition,
} from "./rotation_types.ts";
import {
  type Held,
  renewAt,
  type SecretView,
  type ServingCertificate,
  type StoredRotation,
  trustBundle,
} from "./stored_rotation.ts";

/** Turns a phase (and what to log) into a transition, keeping or resetting the failure count. */
export type Ok = (phase: RotationPhase, notice?: RotationNotice) => RotationTransition;

/** What a read of the Secret means: generate, replace, or go on from what it holds. */
export function onRead(secret: SecretView, config: RotationConfig, at: Moment, ok: Ok): RotationTransition {
  const later: RotationPhase = { kind: "waiting", until: at.now + config.policy.checkPeriodMs };
  switch (secret.kind) {
    case "absent":
      return ok({ kind: "generating", purpose: { kind: "bootstrap" } }, {
        level: "info",
        message: "No certificate Secret yet; generating a CA and a serving certificate",
      });
    case "foreign":
      return ok(later, {
        level: "error",
        message: `The Secret is not a kubeloop certificate Secret (${secret.reason}); not touching it`,
      });
    case "malformed":
      if (!at.leading) {
        return ok(later, {
          level: "warn",
          message: `The certificate Secret is unusable (${secret.reason}); the leader replaces it`,
        });
      }
      return ok(
        { kind: "generating", purpose: { kind: "replace", resourceVersion: secret.resourceVersion } },
        {
          level: "warn",
          message: `The certificate Secret is unusable (${secret.reason}); replacing its CA and certificate`,
        },
      );
    case "held":
      return ok(afterWrite({ stored: secret.stored, resourceVersion: secret.resourceVersion }, config, at));
    default:
      return assertNever(secret, "secret view");
  }
}

/** After reading or writing the Secret: the leader checks the caBundles; the others wait. */
export function afterWrite(held: Held, config: RotationConfig, at: Moment): RotationPhase {
  return at.leading
    ? { kind: "verifying", held }
    : { kind: "waiting", until: at.now + config.policy.checkPeriodMs };
}

/** The leader's decision, once it knows whether the caBundles hold the Secret's trust bundle. */
export function decide(held: Held, match: boolean, config: RotationConfig, at: Moment): RotationPhase {
  const { policy } = config;
  const { stored, resourceVersion } = held;
  const check = at.now + policy.checkPeriodMs;
  const wait = (until: number): RotationPhase => ({ kind: "waiting", until: Math.min(until, check) });
  const update = (next: StoredRotation): RotationPhase => ({
    kind: "updating",
    stored: next,
    resourceVersion,
  });
  if (!at.leading) return wait(check);
  if (at.now >= stored.signer.notAfter) {
    return { kind: "generating", purpose: { kind: "replace", resourceVersion } };
  }
  if (!match) {
    // Published CAs must be confirmed again before a switch relies on them.
    if (stored.phase === "staged" && stored.publishedAt !== undefined) {
      const { publishedAt: _dropped, ...rest } = stored;
      return update(rest);
    }
    return { kind: "publishing", held };
  }
  const serving = stored.serving;
  const reissue: RotationPhase = { kind: "generating", purpose: { kind: "serving", held } };
  // Unusable now: missing, not signed by the signer, expired. Wrong: for other names than configured.
  const unusable = serving === undefined || serving.issuer !== stored.signer.cert ||
    at.now >= serving.notAfter;
  const wrong = unusable || !sameHosts(serving.hosts, config.hosts);
  switch (stored.phase) {
    case "stable":
      if (wrong) return reissue;
      // A CA rotation ends with a fresh serving certificate: it goes first when both are due.
      if (at.now >= renewAt(stored.signer, policy)) {
        return { kind: "generating", purpose: { kind: "nextCa", held } };
      }
      if (at.now >= renewAt(serving, policy)) return reissue;
      return wait(Math.min(renewAt(stored.signer, policy), renewAt(serving, policy)));
    case "staged":
      if (at.now >= stored.next.notAfter) {
        return update({ phase: "stable", signer: stored.signer, ...servingOf(stored) });
      }
      // The switch (minutes away) issues one for the right names; meanwhile only an unusable one is replaced.
      if (unusable) return reissue;
      if (stored.publishedAt === undefined) return update({ ...stored, publishedAt: at.now });
      if (at.now < stored.publishedAt + policy.propagationMs) {
        return wait(stored.publishedAt + policy.propagationMs);
      }
      return { kind: "generating", purpose: { kind: "switch", held } };
    case "switched":
      if (wrong || at.now >= renewAt(serving, policy)) return reissue;
      if (at.now < stored.since + policy.overlapMs) return wait(stored.since + policy.overlapMs);
      return update({ phase: "stable", signer: stored.signer, ...servingOf(stored) });
    default:
      return assertNever(stored, "stored phase");
  }
}

function sameHosts(have: readonly string[], want: readonly string[]): boolean {
  const set = new Set(want);
  return new Set(have).size === set.size && have.every((h) => set.has(h));
}

function servingOf(stored: StoredRotation): { serving?: ServingCertificate } {
  return stored.serving ? { serving: stored.serving } : {};
}

/** What a generated CA or serving certificate becomes; undefined for an input the purpose cannot take. */
export function onGenerated(
  purpose: Purpose,
  input: RotationInput,
  config: RotationConfig,
  at: Moment,
  ok: Ok,
): RotationTransition | undefined {
  if (input.kind === "caGenerated") {
    switch (purpose.kind) {
      case "bootstrap":
        return ok({ kind: "generating", purpose: { kind: "bootstrap", ca: input.ca } });
      case "replace":
        return ok({ kind: "generating", purpose: { ...purpose, ca: input.ca } });
      case "nextCa": {
        const { stored, resourceVersion } = purpose.held;
        const staged: StoredRotation = {
          phase: "staged",
          signer: stored.signer,
          next: input.ca,
          ...servingOf(stored),
        };
        return ok({ kind: "updating", stored: staged, resourceVersion }, {
          level: "info",
          message:
            "The CA is due for renewal; adding a new CA to the caBundles before anything is signed by it",
        });
      }
      default:
        return undefined;
    }
  }
  if (input.kind !== "servingIssued") return undefined;
  const serving = input.serving;
  switch (purpose.kind) {
    case "bootstrap":
      if (!purpose.ca) return undefined;
      return ok({ kind: "creating", stored: { phase: "stable", signer: purpose.ca, serving } });
    case "replace":
      if (!purpose.ca) return undefined;
      return ok({
        kind: "updating",
        stored: { phase: "stable", signer: purpose.ca, serving },
        resourceVersion: purpose.resourceVersion,
      });
    case "serving":
      return ok({
        kind: "updating",
        stored: { ...purpose.held.stored, serving },
        resourceVersion: purpose.held.resourceVersion,
      }, { level: "info", message: "Issuing a new serving certificate from the current CA" });
    case "switch": {
      const { stored, resourceVersion } = purpose.held;
      if (stored.phase !== "staged") return undefined;
      const switched: StoredRotation = {
        phase: "switched",
        signer: stored.next,
        previous: stored.signer.cert,
        serving,
        since: at.now,
      };
      return ok({ kind: "updating", stored: switched, resourceVersion }, {
        level: "info",
        message:
          `Every caBundle trusts the new CA; serving a certificate it signed (the previous CA stays ${config.policy.overlapMs} ms)`,
      });
    }
    default:
      return undefined;
  }
}

/** The line to log when the caBundles do not hold the trust bundle yet. */
export function matchNotice(match: boolean, held: Held): RotationNotice | undefined {
  if (match) return undefined;
  return { level: "info", message: `Publishing ${trustBundle(held.stored).length} CA(s) in the caBundles` };
}

/**
 * The self-managed webhook certificates' protocol as data, in one file: the phases of one replica's driver,
 * the I/O each phase asks for ({@linkcode nextAction}), the results fed back ({@linkcode RotationInput}) and
 * one pure transition function ({@linkcode step}). The Secret holds the persistent part
 * (`stored_rotation.ts`), so a restarted replica starts from {@linkcode INITIAL_ROTATION_STATE} and reads
 * where the rotation is. The driver (`rotation_driver.ts`) does all I/O, key generation and timing;
 * tests/webhook_certs/rotation_state_test.ts walks every transition.
 *
 * A CA rotation, as the leader runs it (each arrow one write of the Secret or of the caBundles):
 * stable(A) → staged(A signs, B next) → caBundles [A, B], read back → staged + publishedAt →
 * (propagation) → switched(B signs, A previous, serving from B) → (overlap) → stable(B) → caBundles [B].
 * The serving certificate changes only once the API server trusts its CA, and a CA leaves the caBundles
 * only after every replica had time to serve the certificate of its successor.
 * @module
 */
import { assertNever } from "../_internal/assert_never.ts";
import type { RotationPolicy } from "./rotation_policy.ts";
import {
  type Held,
  type KeyedCertificate,
  renewAt,
  type SecretView,
  type ServingCertificate,
  type StoredRotation,
  trustBundle,
} from "./stored_rotation.ts";

/** What stays fixed for the machine: its policy and the names the serving certificate must cover. */
export interface RotationConfig {
  /** Lifetimes and periods. */
  readonly policy: RotationPolicy;
  /** DNS names and IP addresses of the serving certificate. */
  readonly hosts: readonly string[];
}

/** Why key material is being generated, with what was generated so far. */
export type Purpose =
  | { readonly kind: "bootstrap"; readonly ca?: KeyedCertificate }
  | { readonly kind: "replace"; readonly resourceVersion: string; readonly ca?: KeyedCertificate }
  | { readonly kind: "nextCa"; readonly held: Held }
  | { readonly kind: "serving"; readonly held: Held }
  | { readonly kind: "switch"; readonly held: Held };

/** Where one replica's driver is. */
export type RotationPhase =
  | { readonly kind: "reading" }
  /** `afterPublish`: the caBundles were just written, so a mismatch now is a failure, not work to do. */
  | { readonly kind: "verifying"; readonly held: Held; readonly afterPublish?: boolean }
  | { readonly kind: "publishing"; readonly held: Held }
  | { readonly kind: "generating"; readonly purpose: Purpose }
  | { readonly kind: "creating"; readonly stored: StoredRotation }
  | { readonly kind: "updating"; readonly stored: StoredRotation; readonly resourceVersion: string }
  | { readonly kind: "waiting"; readonly until: number };

/** The whole state: the phase, and failed requests in a row (for the retry delay). */
export interface RotationState {
  /** Where the driver is. */
  readonly phase: RotationPhase;
  /** Failures since the last success. */
  readonly failures: number;
}

/** The I/O the driver must perform next. */
export type RotationAction =
  | { readonly kind: "read" }
  | { readonly kind: "generateCa" }
  | { readonly kind: "issueServing"; readonly signer: KeyedCertificate }
  | { readonly kind: "create"; readonly stored: StoredRotation }
  | { readonly kind: "update"; readonly stored: StoredRotation; readonly resourceVersion: string }
  /** Read every target's caBundle and say whether each holds exactly `bundle` (PEM certificates). */
  | { readonly kind: "readBundles"; readonly bundle: readonly string[] }
  | { readonly kind: "publishBundles"; readonly bundle: readonly string[] }
  /** Sleep until `until`, or until the Secret changes. */
  | { readonly kind: "wait"; readonly until: number };

/** The result of that I/O. */
export type RotationInput =
  | { readonly kind: "read"; readonly secret: SecretView }
  | { readonly kind: "caGenerated"; readonly ca: KeyedCertificate }
  | { readonly kind: "servingIssued"; readonly serving: ServingCertificate }
  | { readonly kind: "created"; readonly resourceVersion: string }
  /** The create lost to another replica's. */
  | { readonly kind: "alreadyExists" }
  | { readonly kind: "updated"; readonly resourceVersion: string }
  /** The update's resourceVersion was stale (409), or the Secret is gone (404). */
  | { readonly kind: "conflict" }
  | { readonly kind: "bundlesRead"; readonly match: boolean }
  | { readonly kind: "published" }
  /** Any request or the generation failed (a write refused by the Lease fence too). */
  | { readonly kind: "failed"; readonly error: unknown }
  | { readonly kind: "woke" };

/** When the step happens: the time, and whether this replica may write (it holds the Lease). */
export interface Moment {
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** True on the leader (or without leader election). */
  readonly leading: boolean;
}

/** Something worth a log line; never key material. */
export interface RotationNotice {
  /** Its level. */
  readonly level: "info" | "warn" | "error";
  /** The message. */
  readonly message: string;
  /** The failure, for an error field. */
  readonly error?: unknown;
}

/** The outcome of one {@linkcode step}. */
export interface RotationTransition {
  /** The next state. */
  readonly state: RotationState;
  /** What to log. */
  readonly notice?: RotationNotice;
}

/** The state a driver starts in, also after a restart: everything else is read from the Secret. */
export const INITIAL_ROTATION_STATE: RotationState = Object.freeze<RotationState>({
  phase: { kind: "reading" },
  failures: 0,
});

/** The I/O the state asks for. Pure. */
export function nextAction(state: RotationState): RotationAction {
  const p = state.phase;
  switch (p.kind) {
    case "reading":
      return { kind: "read" };
    case "verifying":
      return { kind: "readBundles", bundle: trustBundle(p.held.stored) };
    case "publishing":
      return { kind: "publishBundles", bundle: trustBundle(p.held.stored) };
    case "generating":
      return generationOf(p.purpose);
    case "creating":
      return { kind: "create", stored: p.stored };
    case "updating":
      return { kind: "update", stored: p.stored, resourceVersion: p.resourceVersion };
    case "waiting":
      return { kind: "wait", until: p.until };
    default:
      return assertNever(p, "rotation phase");
  }
}

function generationOf(purpose: Purpose): RotationAction {
  switch (purpose.kind) {
    case "bootstrap":
    case "replace":
      return purpose.ca ? { kind: "issueServing", signer: purpose.ca } : { kind: "generateCa" };
    case "nextCa":
      return { kind: "generateCa" };
    case "serving":
      return { kind: "issueServing", signer: purpose.held.stored.signer };
    case "switch": {
      const stored = purpose.held.stored;
      if (stored.phase !== "staged") throw new TypeError("Rotation bug: a switch from a Secret not staged");
      return { kind: "issueServing", signer: stored.next };
    }
    default:
      return assertNever(purpose, "generation purpose");
  }
}

/**
 * The transition function, and its only entry point. Pure: time and leadership come in `at`, so every
 * transition is tested directly. Any replica creates a missing Secret (a create cannot overwrite: a
 * loser reads the winner's); every other write is the leader's.
 */
export function step(
  state: RotationState,
  input: RotationInput,
  config: RotationConfig,
  at: Moment,
): RotationTransition {
  const p = state.phase;
  // The retry delay grows until a Secret write succeeds, the caBundles read back right, or the machine has
  // nothing left to do: a read that works between two failed writes does not reset it.
  const progress = input.kind === "created" || input.kind === "updated" ||
    (input.kind === "bundlesRead" && input.match);
  const ok = (phase: RotationPhase, notice?: RotationNotice): RotationTransition => ({
    state: { phase, failures: progress || phase.kind === "waiting" ? 0 : state.failures },
    ...(notice ? { notice } : {}),
  });
  if (p.kind === "verifying" && p.afterPublish && input.kind === "bundlesRead" && !input.match) {
    // Written but not read back (a writer racing ours, a webhook rewriting them): back off, never loop.
    input = { kind: "failed", error: new Error("The caBundles do not read back what was written") };
  }
  if (input.kind === "failed") {
    const failures = state.failures + 1;
    const delay = Math.min(
      config.policy.retryMs * 2 ** Math.min(failures - 1, 30),
      config.policy.checkPeriodMs,
    );
    return {
      state: { phase: { kind: "waiting", until: at.now + delay }, failures },
      notice: {
        level: "warn",
        message: `${FAILED_STEP[p.kind]} failed; retrying in ${delay} ms`,
        error: input.error,
      },
    };
  }
  switch (p.kind) {
    case "reading":
      return input.kind === "read"
        ? onRead(input.secret, config, at, ok)
        : unexpected(state, input, config, at);
    case "verifying":
      return input.kind === "bundlesRead"
        ? ok(decide(p.held, input.match, config, at), matchNotice(input.match, p.held))
        : unexpected(state, input, config, at);
    case "publishing":
      return input.kind === "published"
        ? ok({ kind: "verifying", held: p.held, afterPublish: true })
        : unexpected(state, input, config, at);
    case "generating":
      return onGenerated(p.purpose, input, config, at, ok) ?? unexpected(state, input, config, at);
    case "creating":
      if (input.kind === "created") {
        return ok(afterWrite({ stored: p.stored, resourceVersion: input.resourceVersion }, config, at));
      }
      if (input.kind === "alreadyExists") {
        return ok({ kind: "reading" }, {
          level: "info",
          message: "Another replica created the Secret first; using its certificates",
        });
      }
      return unexpected(state, input, config, at);
    case "updating":
      if (input.kind === "updated") {
        return ok(afterWrite({ stored: p.stored, resourceVersion: input.resourceVersion }, config, at));
      }
      if (input.kind === "conflict") {
        return ok({ kind: "reading" }, {
          level: "info",
          message: "The Secret changed meanwhile; reading it again",
        });
      }
      return unexpected(state, input, config, at);
    case "waiting":
      return input.kind === "woke" ? ok({ kind: "reading" }) : unexpected(state, input, config, at);
    default:
      return assertNever(p, "rotation phase");
  }
}

type Ok = (phase: RotationPhase, notice?: RotationNotice) => RotationTransition;

function onRead(secret: SecretView, config: RotationConfig, at: Moment, ok: Ok): RotationTransition {
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
function afterWrite(held: Held, config: RotationConfig, at: Moment): RotationPhase {
  return at.leading
    ? { kind: "verifying", held }
    : { kind: "waiting", until: at.now + config.policy.checkPeriodMs };
}

/** The leader's decision, once it knows whether the caBundles hold the Secret's trust bundle. */
function decide(held: Held, match: boolean, config: RotationConfig, at: Moment): RotationPhase {
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

function onGenerated(
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

function matchNotice(match: boolean, held: Held): RotationNotice | undefined {
  if (match) return undefined;
  return { level: "info", message: `Publishing ${trustBundle(held.stored).length} CA(s) in the caBundles` };
}

const FAILED_STEP: Readonly<Record<RotationPhase["kind"], string>> = {
  reading: "Reading the certificate Secret",
  verifying: "Reading the caBundles",
  publishing: "Writing the caBundles",
  generating: "Generating a certificate",
  creating: "Creating the certificate Secret",
  updating: "Updating the certificate Secret",
  waiting: "Waiting",
};

/** An input the phase cannot receive: a driver bug, reported and recovered from by reading again. */
function unexpected(
  state: RotationState,
  input: RotationInput,
  config: RotationConfig,
  at: Moment,
): RotationTransition {
  return {
    state: { phase: { kind: "waiting", until: at.now + config.policy.retryMs }, failures: state.failures },
    notice: { level: "error", message: `Rotation bug: input "${input.kind}" in phase "${state.phase.kind}"` },
  };
}

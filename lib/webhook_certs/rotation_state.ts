/**
 * The self-managed webhook certificates' protocol as data: the phases of one replica's driver, the I/O each
 * phase asks for ({@linkcode nextAction}), the results fed back ({@linkcode RotationInput}) and one pure
 * transition function ({@linkcode step}); the types are in `rotation_types.ts`, the decisions `step` makes in
 * `_rotation_decisions.ts`. The Secret holds the persistent part
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
import { afterWrite, decide, matchNotice, onGenerated, onRead } from "./_rotation_decisions.ts";
import type {
  Moment,
  Purpose,
  RotationAction,
  RotationConfig,
  RotationInput,
  RotationNotice,
  RotationPhase,
  RotationState,
  RotationTransition,
} from "./rotation_types.ts";
import { trustBundle } from "./stored_rotation.ts";

export {
  INITIAL_ROTATION_STATE,
  type Moment,
  type Purpose,
  type RotationAction,
  type RotationConfig,
  type RotationInput,
  type RotationNotice,
  type RotationPhase,
  type RotationState,
  type RotationTransition,
} from "./rotation_types.ts";

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

/**
 * The vocabulary of the rotation machine (rotation_state.ts): the phases of one replica's driver, the I/O
 * each asks for, the results fed back, and what a step returns.
 * @module
 */
import type { RotationPolicy } from "./rotation_policy.ts";
import type {
  Held,
  KeyedCertificate,
  SecretView,
  ServingCertificate,
  StoredRotation,
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

/** The outcome of one step of the machine (`step` in rotation_state.ts). */
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

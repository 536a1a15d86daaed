/**
 * The lifetimes and periods of self-managed webhook certificates, with the defaults and the checks that
 * keep a rotation safe.
 * @module
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Lifetimes and periods. The defaults: a CA for a year and serving certificates for 90 days, each renewed
 * at two thirds of its life (the CA then still has four months, a serving certificate a month); every
 * replica reads the Secret at least once a minute; 10 s for a write to reach every watcher; the previous
 * CA trusted for 5 minutes after the switch.
 */
export interface RotationPolicy {
  /**
   * Validity of a generated CA.
   * @default {365 days}
   */
  readonly caValidityMs: number;
  /**
   * Validity of a serving certificate (shortened to its CA's end).
   * @default {90 days}
   */
  readonly servingValidityMs: number;
  /**
   * A certificate is renewed once this fraction of its validity has passed.
   * @default {2 / 3}
   */
  readonly renewFraction: number;
  /**
   * Every replica reads the Secret at least this often, besides watching it; the leader re-checks the
   * caBundles as often (and rewrites one someone changed).
   * @default {60_000}
   */
  readonly checkPeriodMs: number;
  /**
   * Time allowed for a write to reach every watcher: the API servers' webhook and CRD clients after a
   * caBundle change, the replicas' Secret watches after a Secret change.
   * @default {10_000}
   */
  readonly propagationMs: number;
  /**
   * How long the previous CA stays in the caBundles after the switch to the new one. At least
   * `checkPeriodMs + propagationMs`: the longest a replica takes to serve the new certificate.
   * @default {300_000}
   */
  readonly overlapMs: number;
  /**
   * First retry after a failed request; doubled per failure in a row, up to `checkPeriodMs`.
   * @default {1_000}
   */
  readonly retryMs: number;
  /**
   * How long before its issuance a certificate's validity starts, for API servers whose clocks are a
   * little behind; may be 0.
   * @default {3_600_000}
   */
  readonly backdateMs: number;
}

/** The defaults of {@linkcode RotationPolicy}. */
export const DEFAULT_ROTATION_POLICY: RotationPolicy = Object.freeze({
  caValidityMs: 365 * DAY,
  servingValidityMs: 90 * DAY,
  renewFraction: 2 / 3,
  checkPeriodMs: MINUTE,
  propagationMs: 10_000,
  overlapMs: 5 * MINUTE,
  retryMs: 1_000,
  backdateMs: 3_600_000,
});

/**
 * The policy with `options` over the defaults.
 * @throws {RangeError} for a value that is not a positive finite number, a `renewFraction` outside (0, 1),
 *   an overlap shorter than `checkPeriodMs + propagationMs` (a replica could still serve a certificate of
 *   the CA being dropped), or lifetimes whose last third cannot hold a rotation (a CA: propagation, overlap
 *   and two check periods; a serving certificate: a check period and propagation).
 */
export function rotationPolicy(options: Partial<RotationPolicy> = {}): RotationPolicy {
  const policy: RotationPolicy = { ...DEFAULT_ROTATION_POLICY, ...options };
  for (const [name, value] of Object.entries(policy)) {
    if (
      typeof value !== "number" || !Number.isFinite(value) || value < 0 ||
      (value === 0 && name !== "backdateMs")
    ) {
      throw new RangeError(`Rotation policy: ${name} must be a positive number, not ${value}`);
    }
  }
  const { caValidityMs, servingValidityMs, renewFraction, checkPeriodMs, propagationMs, overlapMs } = policy;
  if (renewFraction >= 1) throw new RangeError("Rotation policy: renewFraction must be below 1");
  if (overlapMs < checkPeriodMs + propagationMs) {
    throw new RangeError(
      `Rotation policy: overlapMs (${overlapMs}) must be at least checkPeriodMs + propagationMs ` +
        `(${checkPeriodMs + propagationMs}), the longest a replica may serve the previous certificate`,
    );
  }
  const caRotation = propagationMs + overlapMs + 2 * checkPeriodMs;
  if (caValidityMs * (1 - renewFraction) <= caRotation) {
    throw new RangeError(
      `Rotation policy: a CA renewed at ${renewFraction} of ${caValidityMs} ms expires before its rotation ` +
        `(${caRotation} ms) can end`,
    );
  }
  if (servingValidityMs * (1 - renewFraction) <= checkPeriodMs + propagationMs) {
    throw new RangeError(
      `Rotation policy: a serving certificate renewed at ${renewFraction} of ${servingValidityMs} ms expires ` +
        "before every replica is sure to serve its successor",
    );
  }
  return Object.freeze(policy);
}

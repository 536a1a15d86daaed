/**
 * A simulated world for the pure rotation machine: a Secret with a resourceVersion, the caBundles of the
 * API server's objects, fake certificates (names instead of PEM) and a log of every write with its time, so
 * tests can run replicas through years of rotations in milliseconds and check the protocol's promises.
 * @module
 */
import {
  INITIAL_ROTATION_STATE,
  nextAction,
  type RotationAction,
  type RotationConfig,
  type RotationInput,
  type RotationNotice,
  type RotationState,
  step,
} from "../../lib/webhook_certs/rotation_state.ts";
import type {
  KeyedCertificate,
  SecretView,
  ServingCertificate,
  StoredRotation,
} from "../../lib/webhook_certs/stored_rotation.ts";
import { rotationPolicy } from "../../lib/webhook_certs/rotation_policy.ts";

export const DAY = 86_400_000;
export const T0 = Date.UTC(2027, 0, 1);
export const HOSTS = ["hooks.system.svc", "hooks.system.svc.cluster.local"];
export const CONFIG: RotationConfig = { policy: rotationPolicy(), hosts: HOSTS };

let serial = 0;

/** A fake CA valid from an hour before `now` for `validityMs`. */
export function fakeCa(now: number, validityMs = CONFIG.policy.caValidityMs): KeyedCertificate {
  const id = `CA-${++serial}`;
  return { cert: id, key: `${id}-key`, notBefore: now - 3_600_000, notAfter: now + validityMs };
}

/** A fake serving certificate issued by `signer`. */
export function fakeServing(
  signer: KeyedCertificate,
  now: number,
  hosts: readonly string[] = HOSTS,
  validityMs = CONFIG.policy.servingValidityMs,
): ServingCertificate {
  const id = `serving-${++serial}`;
  return {
    cert: id,
    key: `${id}-key`,
    notBefore: now - 3_600_000,
    notAfter: Math.min(now + validityMs, signer.notAfter),
    hosts,
    issuer: signer.cert,
  };
}

/** One write, as the world saw it. */
export type Write =
  | { readonly at: number; readonly kind: "secret"; readonly stored: StoredRotation }
  | { readonly at: number; readonly kind: "bundles"; readonly bundle: readonly string[] };

/** The Secret and the caBundles, shared by the replicas of a test. */
export class World {
  secret: { stored: StoredRotation; resourceVersion: string } | undefined;
  /** The raw view returned by reads instead of `secret` (foreign or malformed Secrets). */
  override: SecretView | undefined;
  bundles: readonly string[] = [];
  now = T0;
  readonly writes: Write[] = [];
  /** Publishes answer success but change nothing (a writer racing ours, say). */
  ignorePublishes = false;
  /** Actions of each kind that fail before succeeding again. */
  readonly faults = new Map<RotationAction["kind"], number>();
  #rv = 0;

  /** Performs `action` for a replica; a `wait` moves the clock to its end. */
  perform(action: RotationAction, hosts: readonly string[] = HOSTS): RotationInput {
    const fault = this.faults.get(action.kind) ?? 0;
    if (fault > 0) {
      this.faults.set(action.kind, fault - 1);
      return { kind: "failed", error: new Error(`injected ${action.kind} failure`) };
    }
    switch (action.kind) {
      case "read":
        if (this.override) return { kind: "read", secret: this.override };
        return { kind: "read", secret: this.secret ? { kind: "held", ...this.secret } : { kind: "absent" } };
      case "generateCa":
        return { kind: "caGenerated", ca: fakeCa(this.now) };
      case "issueServing":
        return { kind: "servingIssued", serving: fakeServing(action.signer, this.now, hosts) };
      case "create":
        if (this.secret || this.override) return { kind: "alreadyExists" };
        this.#write(action.stored);
        return { kind: "created", resourceVersion: this.secret!.resourceVersion };
      case "update":
        if (this.override?.kind === "malformed" && action.resourceVersion === this.override.resourceVersion) {
          this.override = undefined;
        } else if (this.secret?.resourceVersion !== action.resourceVersion) {
          return { kind: "conflict" };
        }
        this.#write(action.stored);
        return { kind: "updated", resourceVersion: this.secret!.resourceVersion };
      case "readBundles":
        return { kind: "bundlesRead", match: same(this.bundles, action.bundle) };
      case "publishBundles":
        if (this.ignorePublishes) return { kind: "published" };
        this.bundles = [...action.bundle];
        this.writes.push({ at: this.now, kind: "bundles", bundle: this.bundles });
        return { kind: "published" };
      case "wait":
        this.now = Math.max(this.now, action.until);
        return { kind: "woke" };
    }
  }

  #write(stored: StoredRotation): void {
    this.secret = { stored, resourceVersion: String(++this.#rv) };
    this.writes.push({ at: this.now, kind: "secret", stored });
  }
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** One replica: its machine state, and the notices it logged. */
export class Replica {
  state: RotationState = INITIAL_ROTATION_STATE;
  readonly notices: RotationNotice[] = [];
  readonly actions: RotationAction[] = [];
  constructor(readonly world: World, public leading = true, readonly config: RotationConfig = CONFIG) {}

  /** The next action, performed, and fed back. */
  turn(): RotationAction {
    const action = nextAction(this.state);
    this.actions.push(action);
    this.feed(this.world.perform(action, this.config.hosts));
    return action;
  }

  /** Feeds one input at the world's time. */
  feed(input: RotationInput): void {
    const t = step(this.state, input, this.config, { now: this.world.now, leading: this.leading });
    this.state = t.state;
    if (t.notice) this.notices.push(t.notice);
  }

  /** Turns until the machine asks to wait (not performing that wait); throws after `max` turns. */
  untilWait(max = 50): RotationAction & { kind: "wait" } {
    for (let i = 0; i < max; i++) {
      const action = nextAction(this.state);
      if (action.kind === "wait") return action;
      this.turn();
    }
    throw new Error(`no wait after ${max} turns; last phase ${this.state.phase.kind}`);
  }

  /** A restart: everything not in the Secret is lost. */
  restart(): void {
    this.state = INITIAL_ROTATION_STATE;
  }
}

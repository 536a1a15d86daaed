/**
 * The driver of the rotation machine (`rotation_state.ts`): it performs each action the machine asks for
 * (Secret reads and writes, key generation, caBundle reads and patches, waits), feeds the result back, and
 * logs the machine's notices. Every decision is the machine's.
 * @module
 */
import { ApiError } from "../client/api_error.ts";
import type { KubeClient } from "../client/kube_client.ts";
import type { LeaseFence } from "../leader/lease_fence.ts";
import type { Logger } from "../log/logger.ts";
import { SECRETS } from "../resources/refs.ts";
import type { Secret } from "../resources/core_v1.ts";
import type { Clock } from "../time/clock.ts";
import { parseCertificate, pemCertificates } from "../x509/certificate.ts";
import { issueCertificate } from "../x509/issue_certificate.ts";
import { type CaBundleTargets, publishBundles, readBundles } from "./ca_bundle_targets.ts";
import {
  INITIAL_ROTATION_STATE,
  nextAction,
  type RotationAction,
  type RotationConfig,
  type RotationInput,
  type RotationState,
  step,
} from "./rotation_state.ts";
import { decodeSecret, encodeSecret } from "./secret_format.ts";
import type { SecretCertificateSource } from "./secret_source.ts";
import type { KeyedCertificate } from "./stored_rotation.ts";

/** What the driver needs. */
export interface DriverOptions {
  /** Reads and writes the Secret and the caBundle targets. */
  readonly client: Pick<KubeClient, "get" | "create" | "replace" | "patch">;
  /** The Secret's namespace and name. */
  readonly namespace: string;
  /** The Secret's name. */
  readonly secretName: string;
  /** Labels of the Secret. */
  readonly labels: Readonly<Record<string, string>>;
  /** The objects that get the CA. */
  readonly targets: CaBundleTargets;
  /** Policy and hosts. */
  readonly config: RotationConfig;
  /** Common name of generated CAs (a time stamp is appended, so each CA has its own name). */
  readonly commonName: string;
  /** Leading while valid; checked right before every write but the create. Undefined: always leading. */
  readonly fence: LeaseFence | undefined;
  /** Gets every Secret the driver reads or writes. */
  readonly source: SecretCertificateSource;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Runs the machine until `signal` aborts. `wakeUp` is replaced with a function that ends the current
 * wait early (called on every watch event of the Secret).
 */
export async function driveRotation(
  options: DriverOptions,
  signal: AbortSignal,
  wake: { wakeUp: () => void },
): Promise<void> {
  const { config, clock, logger } = options;
  let state: RotationState = INITIAL_ROTATION_STATE;
  while (!signal.aborted) {
    const action = nextAction(state);
    let input: RotationInput;
    try {
      input = await perform(action, options, signal, wake);
    } catch (error) {
      if (signal.aborted) return;
      input = { kind: "failed", error };
    }
    if (signal.aborted) return;
    const leading = options.fence === undefined || options.fence.valid;
    const t = step(state, input, config, { now: clock.now(), leading });
    state = t.state;
    if (t.notice) {
      const { level, message, error } = t.notice;
      logger[level](message, error === undefined ? {} : { error: errorText(error) });
    }
  }
}

async function perform(
  action: RotationAction,
  o: DriverOptions,
  signal: AbortSignal,
  wake: { wakeUp: () => void },
): Promise<RotationInput> {
  const now = () => new Date(o.clock.now());
  const meta = { name: o.secretName, namespace: o.namespace, labels: { ...o.labels } };
  switch (action.kind) {
    case "read": {
      const token = o.source.readToken();
      let secret: Secret | undefined;
      try {
        secret = await o.client.get(SECRETS, o.secretName, { namespace: o.namespace, signal });
      } catch (error) {
        if (!(error instanceof ApiError && error.isNotFound)) throw error;
      }
      o.source.offerRead(secret, token);
      return { kind: "read", secret: await decodeSecret(secret) };
    }
    case "generateCa": {
      const stamp = Math.floor(o.clock.now() / 1000);
      const material = await issueCertificate({
        commonName: `${o.commonName}@${stamp}`,
        ca: true,
        validityMs: o.config.policy.caValidityMs,
        now: now(),
        backdateMs: o.config.policy.backdateMs,
      });
      return { kind: "caGenerated", ca: keyed(material) };
    }
    case "issueServing": {
      const material = await issueCertificate({
        commonName: o.config.hosts[0]!,
        ca: false,
        hosts: o.config.hosts,
        validityMs: o.config.policy.servingValidityMs,
        now: now(),
        backdateMs: o.config.policy.backdateMs,
        issuer: action.signer,
      });
      const serving = { ...keyed(material), hosts: o.config.hosts, issuer: action.signer.cert };
      return { kind: "servingIssued", serving };
    }
    case "create": {
      const token = o.source.readToken();
      try {
        const created = await o.client.create(SECRETS, encodeSecret(action.stored, meta), { signal });
        o.source.offerRead(created, token);
        return { kind: "created", resourceVersion: created.metadata.resourceVersion ?? "" };
      } catch (error) {
        if (error instanceof ApiError && error.code === 409) return { kind: "alreadyExists" };
        throw error;
      }
    }
    case "update": {
      o.fence?.check();
      const token = o.source.readToken();
      const secret = encodeSecret(action.stored, { ...meta, resourceVersion: action.resourceVersion });
      try {
        const updated = await o.client.replace(SECRETS, secret, { signal });
        o.source.offerRead(updated, token);
        return { kind: "updated", resourceVersion: updated.metadata.resourceVersion ?? "" };
      } catch (error) {
        if (error instanceof ApiError && (error.isConflict || error.isNotFound)) return { kind: "conflict" };
        throw error;
      }
    }
    case "readBundles": {
      const { match, missing } = await readBundles(o.client, o.targets, action.bundle, signal);
      if (missing.length > 0) o.logger.debug("caBundle targets not found; skipped", { missing });
      return { kind: "bundlesRead", match };
    }
    case "publishBundles":
      o.fence?.check();
      await publishBundles(o.client, o.targets, action.bundle, signal);
      return { kind: "published" };
    case "wait":
      await waitUntil(action.until, o.clock, signal, wake);
      return { kind: "woke" };
    default:
      throw new TypeError(`Unknown rotation action ${(action as { kind: string }).kind}`);
  }
}

/** Sleeps until `until` on `clock`, in steps of at most a day (longer timers fire at once). */
function waitUntil(
  until: number,
  clock: Clock,
  signal: AbortSignal,
  wake: { wakeUp: () => void },
): Promise<void> {
  return new Promise((resolve) => {
    let timer = { cancel: () => {} };
    const done = () => {
      timer.cancel();
      signal.removeEventListener("abort", done);
      wake.wakeUp = () => {};
      resolve();
    };
    const arm = () => {
      const left = until - clock.now();
      if (left <= 0) return done();
      timer = clock.setTimer(arm, Math.min(left, 86_400_000));
    };
    wake.wakeUp = done;
    signal.addEventListener("abort", done, { once: true });
    if (signal.aborted) done();
    else arm();
  });
}

function keyed(material: { cert: string; key: string }): KeyedCertificate {
  const parsed = parseCertificate(pemCertificates(material.cert)[0]!);
  return { cert: material.cert, key: material.key, notBefore: parsed.notBefore, notAfter: parsed.notAfter };
}

/** A failure as a log field: its name and message (ours and the API's never quote key material). */
function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * What the self-managed certificate Secret holds, as the rotation machine reads it (`secret_format.ts`
 * maps it to and from the Secret's fields): the persistent part of the protocol in `rotation_state.ts`.
 * @module
 */
import { assertNever } from "../_internal/assert_never.ts";
import type { RotationPolicy } from "./rotation_policy.ts";

/** A certificate and its private key (PEM), with the dates read from the certificate. */
export interface KeyedCertificate {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM private key. */
  readonly key: string;
  /** notBefore, ms since the epoch. */
  readonly notBefore: number;
  /** notAfter, ms since the epoch. */
  readonly notAfter: number;
}

/** The serving certificate: its names, and which stored CA's signature it carries. */
export interface ServingCertificate extends KeyedCertificate {
  /** Its subjectAltNames (DNS names and IP addresses). */
  readonly hosts: readonly string[];
  /** The PEM certificate of the stored CA whose signature it carries; "" when none does. */
  readonly issuer: string;
}

/** What the Secret holds: the persistent part of the machine. A missing or broken serving certificate is absent. */
export type StoredRotation =
  /** One CA; it signs the serving certificate and is the whole caBundle. */
  | { readonly phase: "stable"; readonly signer: KeyedCertificate; readonly serving?: ServingCertificate }
  /** A new CA `next` is added to the caBundles; `signer` still signs. `publishedAt`: when they carried both. */
  | {
    readonly phase: "staged";
    readonly signer: KeyedCertificate;
    readonly next: KeyedCertificate;
    readonly serving?: ServingCertificate;
    readonly publishedAt?: number;
  }
  /** The new CA signs since `since`; `previous` (PEM) stays in the caBundles until the overlap ends. */
  | {
    readonly phase: "switched";
    readonly signer: KeyedCertificate;
    readonly previous: string;
    readonly serving?: ServingCertificate;
    readonly since: number;
  };

/** The Secret as read. */
export type SecretView =
  | { readonly kind: "absent" }
  /** A Secret of that name that is not ours (no marker annotation): never written to. */
  | { readonly kind: "foreign"; readonly reason: string }
  /** Ours, but its CA is unusable: the leader replaces it. `reason` names the field, never its value. */
  | { readonly kind: "malformed"; readonly reason: string; readonly resourceVersion: string }
  | { readonly kind: "held"; readonly stored: StoredRotation; readonly resourceVersion: string };

/** The stored state and the resourceVersion it was read or written at (the next write's precondition). */
export interface Held {
  /** The Secret's content. */
  readonly stored: StoredRotation;
  /** Its resourceVersion. */
  readonly resourceVersion: string;
}

/** The PEM certificates the caBundles must hold, older CA first. */
export function trustBundle(stored: StoredRotation): string[] {
  switch (stored.phase) {
    case "stable":
      return [stored.signer.cert];
    case "staged":
      return [stored.signer.cert, stored.next.cert];
    case "switched":
      return [stored.previous, stored.signer.cert];
    default:
      return assertNever(stored, "stored phase");
  }
}

/** When `cert` is due for renewal. */
export function renewAt(cert: KeyedCertificate, policy: RotationPolicy): number {
  return cert.notBefore + Math.floor((cert.notAfter - cert.notBefore) * policy.renewFraction);
}

import { type Certificate, parseCertificate, pemCertificates } from "../x509/certificate.ts";
import { type Clock, systemClock, type Timer } from "../time/clock.ts";
import { selfSignedCertificate, type SelfSignedOptions, type TlsMaterial } from "../x509/self_signed.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import {
  EncryptedKeyError,
  importPrivateKeyPem,
  importPublicKey,
  isKeyOf,
  type PrivateKey,
} from "../x509/private_key.ts";

const DAY_MS = 86_400_000;

/** Where a TLS server gets its certificate, and learns that it changed. */
export interface CertificateSource {
  /** The certificate and key to serve now. */
  current(): TlsMaterial;
  /** Calls `listener` with every later certificate; returns the function that unsubscribes. */
  subscribe(listener: (material: TlsMaterial) => void): () => void;
}

/** Thrown when certificate material cannot be used; `source` names the file(s) or "generated". */
export class CertificateError extends Error {
  /** What the material came from. */
  readonly source: string;
  /** `source` names the files (or "generated") the material came from. */
  constructor(message: string, source: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CertificateError";
    this.source = source;
  }
}

/**
 * Checks that `material` parses (a PEM certificate chain and a PEM private key: PKCS#8, or PKCS#1 RSA, or
 * SEC1 EC; RSA, ECDSA P-256/P-384/P-521 or Ed25519; not encrypted) and that the key belongs to the leaf
 * certificate; resolves to the leaf's expiry (ms since the epoch). Rejects with {@linkcode CertificateError}
 * naming `source`, never quoting the key.
 */
export async function checkTlsMaterial(material: TlsMaterial, source: string): Promise<number> {
  let leaf: Certificate;
  let publicKey: CryptoKey | undefined;
  try {
    const [first] = pemCertificates(material.cert);
    if (first === undefined) throw new SyntaxError("no PEM certificate");
    leaf = parseCertificate(first);
    publicKey = await importPublicKey(leaf.spki);
  } catch (cause) {
    throw new CertificateError(`${source}: the certificate is not a PEM X.509 certificate`, source, {
      cause,
    });
  }
  let key: PrivateKey;
  try {
    key = await importPrivateKeyPem(material.key);
  } catch (cause) {
    const why = cause instanceof EncryptedKeyError
      ? " (it is encrypted; the server needs it unencrypted)"
      : "";
    throw new CertificateError(`${source}: the private key is not a PEM private key${why}`, source, {
      cause,
    });
  }
  // undefined: the certificate's key is of an algorithm no key we accept can have.
  if (publicKey === undefined || !(await isKeyOf(key, publicKey))) {
    throw new CertificateError(`${source}: the private key does not belong to the certificate`, source);
  }
  return leaf.notAfter;
}

/** A source that never changes. */
export function staticCertificate(material: TlsMaterial): CertificateSource {
  return { current: () => material, subscribe: () => () => {} };
}

/** Options of {@linkcode generatedCertificate}. */
export interface GeneratedCertificateOptions extends Omit<SelfSignedOptions, "now"> {
  /** Stops the renewal timer. */
  signal: AbortSignal;
  /**
   * Renewal and failure lines.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Time source of validity and renewal.
   * @default {systemClock}
   */
  clock?: Clock;
}

/**
 * A self-signed certificate (see {@linkcode selfSignedCertificate}) that renews itself when two thirds of its
 * validity have passed, so a long-running process never serves an expired one. Scrapers either skip
 * verification or pin the certificate; for a certificate they can verify, give the server files instead.
 */
export async function generatedCertificate(options: GeneratedCertificateOptions): Promise<CertificateSource> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const validityMs = options.validityMs ?? 365 * 86_400_000;
  const make = () => selfSignedCertificate({ hosts: options.hosts, validityMs, now: new Date(clock.now()) });
  let material = await make();
  let renewAt = clock.now() + Math.floor(validityMs * 2 / 3);
  const listeners = new Set<(m: TlsMaterial) => void>();
  let timer: Timer | undefined;
  const schedule = () => {
    // In steps of at most a day: timers cannot wait longer than 2^31 - 1 ms (24.8 days) and fire at
    // once beyond it.
    timer = clock.setTimer(async () => {
      if (clock.now() >= renewAt) {
        try {
          material = await make();
          renewAt = clock.now() + Math.floor(validityMs * 2 / 3);
          logger.info("Renewed the self-signed metrics certificate", { validityMs });
          for (const listener of listeners) listener(material);
        } catch (error) {
          logger.error("Cannot renew the self-signed metrics certificate", { error });
        }
      }
      if (!options.signal.aborted) schedule();
    }, Math.max(1_000, Math.min(renewAt - clock.now(), DAY_MS)));
  };
  if (!options.signal.aborted) {
    schedule();
    options.signal.addEventListener("abort", () => timer?.cancel(), { once: true });
  }
  return { current: () => material, subscribe: subscriber(listeners) };
}

/** The `subscribe` of a source that keeps its listeners in `listeners`. */
export function subscriber(
  listeners: Set<(m: TlsMaterial) => void>,
): (listener: (m: TlsMaterial) => void) => () => void {
  return (listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
}

/**
 * The serving certificate every replica takes from the Secret, leader or not: a `CertificateSource` fed by
 * the Secret's watch events and by the periodic reads of the rotation driver.
 * @module
 */
import type { CertificateSource } from "../observe/certificate_source.ts";
import type { Logger } from "../log/logger.ts";
import type { Secret } from "../resources/core_v1.ts";
import type { TlsMaterial } from "../x509/issue_certificate.ts";
import { decodeSecret } from "./secret_format.ts";

/**
 * Follows the serving certificate stored in the Secret. Secrets are decoded (keys checked) one at a time,
 * in the order they were offered. Watch events apply in the order they arrive; a read (a GET, or a
 * write's answer) applies only when no watch event arrived while it was in flight, so a slow read can never
 * put back an older certificate than the watch delivered (and the watch then delivers what that read saw).
 * A Secret without a usable serving certificate changes nothing: the last good one stays.
 */
export class SecretCertificateSource implements CertificateSource {
  #material: TlsMaterial | undefined;
  #listeners = new Set<(m: TlsMaterial) => void>();
  #events = 0;
  #first: PromiseWithResolvers<void> = Promise.withResolvers();
  #queue: Promise<void> = Promise.resolve();
  #logger: Logger;

  /** `logger` gets a line for each certificate taken up, and for each Secret that cannot be read. */
  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * The certificate to serve now.
   * @throws {Error} before the first one is known (await {@linkcode ready}).
   */
  current(): TlsMaterial {
    if (this.#material === undefined) throw new Error("No webhook certificate read from the Secret yet");
    return this.#material;
  }

  /** Calls `listener` with every later certificate; returns the function that unsubscribes. */
  subscribe(listener: (material: TlsMaterial) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Resolves once a certificate is known; rejects with `signal.reason` if it aborts first. */
  async ready(signal: AbortSignal): Promise<void> {
    if (this.#material !== undefined) return;
    signal.throwIfAborted();
    const aborted = Promise.withResolvers<never>();
    const onAbort = () => aborted.reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.race([this.#first.promise, aborted.promise]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** True once a certificate is known. */
  get hasCertificate(): boolean {
    return this.#material !== undefined;
  }

  /** A watch event: the Secret as it is now (undefined: deleted). */
  offerEvent(secret: Secret | undefined): void {
    this.#events++;
    this.#enqueue(secret, undefined);
  }

  /** Call before sending a read; pass the token to {@linkcode offerRead} with its answer. */
  readToken(): number {
    return this.#events;
  }

  /** A read's answer; ignored when a watch event arrived since `token` was taken. */
  offerRead(secret: Secret | undefined, token: number): void {
    this.#enqueue(secret, token);
  }

  /** Resolves once every Secret offered so far has been decoded and applied. */
  settled(): Promise<void> {
    return this.#queue;
  }

  #enqueue(secret: Secret | undefined, token: number | undefined): void {
    this.#queue = this.#queue.then(async () => {
      if (token !== undefined && token !== this.#events) return;
      const view = await decodeSecret(secret).catch((error: unknown) => {
        this.#logger.error("Cannot decode the certificate Secret", { error: String(error) });
        return undefined;
      });
      if (token !== undefined && token !== this.#events) return;
      if (view?.kind !== "held" || view.stored.serving === undefined) return;
      const { cert, key } = view.stored.serving;
      if (this.#material?.cert === cert && this.#material.key === key) return;
      const first = this.#material === undefined;
      this.#material = { cert, key };
      this.#logger.info("Serving the webhook certificate from the Secret", {
        notAfter: new Date(view.stored.serving.notAfter).toISOString(),
        resourceVersion: view.resourceVersion,
      });
      if (first) this.#first.resolve();
      else for (const listener of this.#listeners) listener(this.#material);
    });
  }
}

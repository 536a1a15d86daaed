import type { Credentials } from "../config/types.ts";
import { HttpClient } from "../http/mod.ts";
import type { TlsOptions, Transport } from "../http/types.ts";
import type { Logger } from "../log/logger.ts";

/** Hands out the transport for the credentials of one request. */
export interface TransportSource {
  /** The transport to send a request with `credentials` on. */
  forCredentials(credentials: Credentials): Transport;
  /** Closes what this source owns. */
  close(): void;
}

/** A caller's own transport: used for every request and never closed here. */
export function borrowedTransport(transport: Transport): TransportSource {
  return { forCredentials: () => transport, close: () => {} };
}

/**
 * The HttpClient a KubeClient owns, one per TLS identity. A client certificate is part of the TLS
 * handshake, so a certificate an exec plugin hands out needs connections of its own. Only the
 * identity in use is kept: when the certificate changes, the previous client is closed (its idle
 * connections at once; requests and watches in flight finish, then close their connections).
 */
export class OwnedTransports implements TransportSource {
  readonly #tls: TlsOptions;
  readonly #logger: Logger;
  readonly #maxBodyBytes: number | undefined;
  #current:
    | { readonly cert: string | undefined; readonly key: string | undefined; client: HttpClient }
    | undefined;

  /**
   * `tls` is the cluster's TLS settings; a certificate in the credentials overrides its cert and key.
   * `maxBodyBytes` is passed to each HttpClient (its default when undefined).
   */
  constructor(tls: TlsOptions, logger: Logger, maxBodyBytes?: number) {
    this.#tls = tls;
    this.#logger = logger;
    this.#maxBodyBytes = maxBodyBytes;
  }

  forCredentials(credentials: Credentials): Transport {
    const { cert, key } = credentials.cert && credentials.key
      ? credentials
      : { cert: undefined, key: undefined };
    const current = this.#current;
    if (current !== undefined && current.cert === cert && current.key === key) return current.client;
    current?.client.close();
    const tls: TlsOptions = cert && key ? { ...this.#tls, cert, key } : this.#tls;
    const client = new HttpClient({
      tls,
      logger: this.#logger,
      ...(this.#maxBodyBytes !== undefined && { maxBodyBytes: this.#maxBodyBytes }),
    });
    this.#current = { cert, key, client };
    return client;
  }

  close(): void {
    this.#current?.client.close();
    this.#current = undefined;
  }
}

import type { TlsOptions } from "../http/types.ts";

/** What a request needs to authenticate, as of now. */
export interface Credentials {
  /** Bearer token. */
  readonly token?: string;
  /** Client certificate (PEM), e.g. from an exec plugin; overrides the static TLS cert. */
  readonly cert?: string;
  /** Client key (PEM) belonging to `cert`. */
  readonly key?: string;
}

/**
 * Supplies credentials that may change over time (rotating token files, exec plugins).
 * The client calls `get()` before every request and `invalidate()` after a 401, so the
 * next `get()` re-reads the file or re-runs the plugin.
 */
export interface CredentialSource {
  /** The credentials to use for the next request; may read a file or run a plugin. */
  get(signal?: AbortSignal): Promise<Credentials>;
  /** Marks the current credentials as rejected, so the next `get()` fetches fresh ones. */
  invalidate(): void;
}

/** Everything needed to talk to one API server, resolved from kubeconfig or in-cluster files. */
export interface ClusterConfig {
  /** Base URL of the API server, e.g. https://127.0.0.1:6443 (may carry a path prefix). */
  readonly server: URL;
  /** CA bundle, static client certificate, server name and skip-verify, as configured. */
  readonly tls: TlsOptions;
  /** Token and/or client certificate, possibly rotating. */
  readonly credentials: CredentialSource;
  /** Default namespace: the context's namespace, the in-cluster namespace file, or "default". */
  readonly namespace: string;
  /** Where this came from, for messages: a kubeconfig path (and context) or "in-cluster". */
  readonly source: string;
  /**
   * True when built from the pod's own service account (in-cluster config, also with a `master`
   * override); false for kubeconfigs and a bare `master`. Decides defaults such as the leader
   * election namespace, so callers need not parse `source`.
   */
  readonly inCluster: boolean;
  /**
   * Ask the API server for uncompressed responses (kubeconfig `disable-compression`, client-go's
   * `DisableCompression`): requests carry `Accept-Encoding: identity` instead of `gzip`. Spares the
   * server's compression and the client's decompression CPU, but a list crosses the network
   * several times larger (24 MB instead of 3 MB for 10,000 small ConfigMaps), so it pays off only
   * where the network is fast (README, "HTTP").
   * In-cluster configs leave it unset; spread a config to set it: `{ ...config, disableCompression: true }`.
   * @default {false}
   */
  readonly disableCompression?: boolean;
}

import type { Clock } from "../time/clock.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import type { TlsOptions } from "../http/types.ts";
import { ConfigError } from "./config_error.ts";
import { type ExecClusterInfo, ExecCredentialSource } from "./exec_credential.ts";
import type { ExecRunner } from "./exec_runner.ts";
import type { ClusterEntry, EntryOrigin, UserEntry } from "./kubeconfig_file.ts";
import type { MergedKubeconfig } from "./merge.ts";
import { staticCredentials } from "./static_credentials.ts";
import { TokenFileSource } from "./token_file.ts";
import type { ClusterConfig, CredentialSource } from "./types.ts";
import { defaultReadTextFile, encodeBase64Text, messageOf, type ReadTextFile } from "./_private.ts";

/** Options for {@linkcode resolveContext}. */
export interface ResolveContextOptions {
  /**
   * Context to use instead of `current-context`.
   * @default {the kubeconfig's current-context}
   */
  context?: string;
  /**
   * Server URL to use instead of the cluster's `server`.
   * @default {the cluster's server}
   */
  master?: string;
  /**
   * Reads CA, client certificate/key and token files.
   * @default {Deno.readTextFile}
   */
  readTextFile?: (path: string) => Promise<string>;
  /**
   * Times token-file re-reads and exec credential expiry.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Runs exec plugins.
   * @default {Deno.Command}
   */
  runCommand?: ExecRunner;
  /**
   * Receives warnings (e.g. failed token re-reads).
   * @default {a logger that drops everything}
   */
  logger?: Logger;
  /**
   * Aborts file reads.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

const AUTH_HINT: Record<string, string> = {
  "auth-provider": "use exec or a token",
  username: "use exec or a token",
  password: "use exec or a token",
};

function fieldError(
  entry: EntryOrigin,
  key: string,
  text: string,
  reason: ConfigError["reason"],
): ConfigError {
  const field = `${entry.field}.${key}`;
  return new ConfigError(`Cannot use kubeconfig "${entry.file}": field "${field}" ${text}`, {
    reason,
    file: entry.file,
    field,
  });
}

/**
 * Turns the selected context of merged kubeconfigs into a ClusterConfig: picks the context,
 * its cluster and user, reads the files they name and builds the credential source. Token
 * files are read once here so a bad path fails at startup; exec plugins run on first use.
 * @throws {ConfigError} naming the file and field at fault.
 */
export async function resolveContext(
  merged: MergedKubeconfig,
  options: ResolveContextOptions = {},
): Promise<ClusterConfig> {
  const files = merged.files.join(":");
  const name = options.context || merged.currentContext?.name;
  if (!name) {
    throw new ConfigError(
      `Cannot use kubeconfig "${files}": current-context is not set and no context was given`,
      {
        reason: "NoContext",
        file: files,
        field: "current-context",
      },
    );
  }
  const context = merged.contexts.get(name);
  if (!context) {
    const defined = [...merged.contexts.keys()].join(", ") || "none";
    throw new ConfigError(
      `Cannot use kubeconfig "${files}": context "${name}" is not defined (defined: ${defined})`,
      {
        reason: "NoContext",
        file: options.context ? files : merged.currentContext?.file ?? files,
        ...(options.context ? {} : { field: "current-context" }),
      },
    );
  }
  if (!context.cluster) throw fieldError(context, "cluster", "is required", "MissingField");
  const cluster = merged.clusters.get(context.cluster);
  if (!cluster) {
    throw fieldError(
      context,
      "cluster",
      `names cluster "${context.cluster}", which is not defined`,
      "UnknownReference",
    );
  }
  const user = context.user === undefined ? undefined : merged.users.get(context.user);
  if (context.user !== undefined && !user) {
    throw fieldError(
      context,
      "user",
      `names user "${context.user}", which is not defined`,
      "UnknownReference",
    );
  }
  const read = options.readTextFile ?? defaultReadTextFile;
  const rawServer = options.master || cluster.server;
  if (!rawServer) throw fieldError(cluster, "server", "is required", "MissingField");
  const server = parseServer(rawServer, options.master ? undefined : cluster);
  const tls = await clusterTls(cluster, read);
  const clusterInfo: ExecClusterInfo = {
    server: rawServer,
    ...(tls.caCerts?.[0] ? { "certificate-authority-data": encodeBase64Text(tls.caCerts[0]) } : {}),
    ...(cluster.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
    ...(cluster.tlsServerName ? { "tls-server-name": cluster.tlsServerName } : {}),
    ...(cluster.disableCompression ? { "disable-compression": true } : {}),
  };
  const { userTls, credentials } = user
    ? await userAuth(user, clusterInfo, read, options)
    : { userTls: {}, credentials: staticCredentials() };
  const master = options.master ? `, master ${options.master}` : "";
  if (server.protocol === "http:" && user && sendsCredentials(user)) {
    // client-go sends them without a word; one loud line names where the plain-HTTP server comes from.
    (options.logger ?? noopLogger).warn(
      `The credentials of user "${user.name}" will be sent in clear text: ${
        options.master ? "master" : `cluster "${cluster.name}"`
      } of context "${name}" is an http:// server; use https://`,
      {
        kubeconfig: context.file,
        context: name,
        ...(options.master ? { master: server.href } : { cluster: cluster.name, server: server.href }),
      },
    );
  }
  return {
    server,
    tls: { ...tls, ...userTls },
    credentials,
    namespace: context.namespace ?? "default",
    source: `${context.file} (context "${name}"${master})`,
    inCluster: false,
    ...(cluster.disableCompression ? { disableCompression: true } : {}),
  };
}

/** Whether a request as `user` carries a secret in its headers (a client certificate needs TLS to be sent). */
function sendsCredentials(user: UserEntry): boolean {
  return user.token !== undefined || user.tokenFile !== undefined || user.exec !== undefined;
}

// `scheme://user:pass@` or a scheme-less `user:pass@` before the host.
const USER_INFO = /^((?:[a-z][a-z0-9+.-]*:\/\/)?)[^/?#]*@/i;

/**
 * Parses a server URL from a cluster's `server` (errors name that field) or from the `master`
 * option (errors name "master"). A URL with a user name or password is refused: the server URL is
 * shown in logs and error messages, and client-go does not send such credentials either.
 * Internal to lib/config.
 */
export function parseServer(raw: string, cluster: ClusterEntry | undefined): URL {
  const shown = raw.replace(USER_INFO, "$1");
  const fail = (text: string, cause?: unknown) => {
    const error = cluster
      ? fieldError(cluster, "server", text, "InvalidField")
      : new ConfigError(`Cannot use master "${shown}": ${text}`, { reason: "InvalidField", field: "master" });
    if (cause !== undefined) error.cause = cause;
    return error;
  };
  if (USER_INFO.test(raw)) {
    // Neither the URL nor a parse error (which would quote it) goes into the error.
    throw fail("must not contain a user name or password; put credentials in the kubeconfig user");
  }
  let url: URL;
  try {
    // client-go treats a bare host:port as https.
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch (cause) {
    throw fail(`is not a URL: ${messageOf(cause)}`, cause);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw fail(`must be an http or https URL`);
  return url;
}

async function readNamed(entry: EntryOrigin, key: string, path: string, read: ReadTextFile): Promise<string> {
  try {
    return await read(path);
  } catch (cause) {
    const field = `${entry.field}.${key}`;
    throw new ConfigError(
      `Cannot use kubeconfig "${entry.file}": field "${field}" names "${path}", which cannot be read: ${
        messageOf(cause)
      }`,
      { reason: "Unreadable", file: entry.file, field, cause },
    );
  }
}

async function clusterTls(cluster: ClusterEntry, read: ReadTextFile): Promise<TlsOptions> {
  if (cluster.proxyUrl) {
    throw fieldError(cluster, "proxy-url", "is not supported; reach the API server directly", "Unsupported");
  }
  const hasCa = cluster.certificateAuthorityData !== undefined || cluster.certificateAuthority !== undefined;
  if (cluster.insecureSkipTlsVerify && hasCa) {
    throw fieldError(
      cluster,
      "insecure-skip-tls-verify",
      "cannot be combined with certificate-authority(-data); keep one",
      "InvalidField",
    );
  }
  // As in client-go, inline data wins over a file path.
  const ca = cluster.certificateAuthorityData ??
    (cluster.certificateAuthority === undefined
      ? undefined
      : await readNamed(cluster, "certificate-authority", cluster.certificateAuthority, read));
  return {
    ...(ca === undefined ? {} : { caCerts: [ca] }),
    ...(cluster.insecureSkipTlsVerify ? { insecureSkipVerify: true } : {}),
    ...(cluster.tlsServerName ? { serverName: cluster.tlsServerName } : {}),
  };
}

async function userAuth(
  user: UserEntry,
  clusterInfo: ExecClusterInfo,
  read: ReadTextFile,
  options: ResolveContextOptions,
): Promise<{ userTls: TlsOptions; credentials: CredentialSource }> {
  const unsupported = user.unsupported[0];
  if (unsupported !== undefined) {
    const hint = AUTH_HINT[unsupported] ?? "impersonation is not implemented";
    throw fieldError(user, unsupported, `is not supported; ${hint}`, "Unsupported");
  }
  const cert = user.clientCertificateData ??
    (user.clientCertificate && await readNamed(user, "client-certificate", user.clientCertificate, read));
  const key = user.clientKeyData ??
    (user.clientKey && await readNamed(user, "client-key", user.clientKey, read));
  if (cert && !key) {
    throw fieldError(user, "client-key", "is required with client-certificate", "MissingField");
  }
  if (key && !cert) {
    throw fieldError(user, "client-certificate", "is required with client-key", "MissingField");
  }
  const userTls: TlsOptions = cert && key ? { cert, key } : {};
  if (user.exec) {
    if (user.token !== undefined || user.tokenFile !== undefined) {
      throw fieldError(user, "exec", "cannot be combined with token or tokenFile; keep one", "InvalidField");
    }
    const credentials = new ExecCredentialSource(user.exec, {
      user: user.name,
      cluster: clusterInfo,
      origin: { file: user.file, field: `${user.field}.exec` },
      ...(options.runCommand ? { runCommand: options.runCommand } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return { userTls, credentials };
  }
  // client-go documents that `token` takes precedence over `tokenFile`.
  if (user.token !== undefined) return { userTls, credentials: staticCredentials({ token: user.token }) };
  if (user.tokenFile !== undefined) {
    const credentials = new TokenFileSource(user.tokenFile, {
      readTextFile: read,
      origin: { file: user.file, field: `${user.field}.tokenFile` },
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    await credentials.get(options.signal);
    return { userTls, credentials };
  }
  return { userTls, credentials: staticCredentials() };
}

import type { Clock } from "../time/clock.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { ConfigError } from "./config_error.ts";
import { TokenFileSource } from "./token_file.ts";
import { caBundleProblem } from "../x509/server_certificate.ts";
import type { ClusterConfig } from "./types.ts";
import {
  defaultEnv,
  defaultReadTextFile,
  type GetEnv,
  isNotFound,
  messageOf,
  type ReadTextFile,
} from "./_private.ts";

/** Where Kubernetes mounts a pod's service-account token, CA bundle and namespace. */
export const DEFAULT_IN_CLUSTER_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Options for {@linkcode inClusterConfig}. */
export interface InClusterOptions {
  /**
   * Directory holding `token`, `ca.crt` and `namespace`.
   * @default {"/var/run/secrets/kubernetes.io/serviceaccount"}
   */
  dir?: string;
  /**
   * Reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT.
   * @default {Deno.env.get}
   */
  env?: (name: string) => string | undefined;
  /**
   * Reads the mounted files.
   * @default {Deno.readTextFile}
   */
  readTextFile?: (path: string) => Promise<string>;
  /**
   * Times token re-reads.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Receives warnings (e.g. a token re-read that failed).
   * @default {a logger that drops everything}
   */
  logger?: Logger;
  /**
   * Aborts the initial token read.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

/** True when the environment says we run in a pod (both service variables are set). */
export function isInCluster(env: (name: string) => string | undefined = defaultEnv): boolean {
  return Boolean(env("KUBERNETES_SERVICE_HOST")) && Boolean(env("KUBERNETES_SERVICE_PORT"));
}

/**
 * The configuration of a pod's own service account: server from KUBERNETES_SERVICE_HOST/PORT
 * (IPv6 hosts bracketed), the mounted token (re-read as the kubelet rotates it), the mounted CA
 * bundle and namespace. The CA bundle is the only CA trusted; unlike client-go, a missing,
 * unreadable or certificate-less ca.crt is an error, never a silent fallback to the system roots
 * (which would trust any public certificate for the service's name with the pod's token). A missing
 * namespace file means "default". The token is read once here so a missing token fails now rather
 * than on the first request.
 * @throws {ConfigError} `InCluster` when the variables are missing or invalid or ca.crt holds no
 *   usable certificate, `Unreadable` for the token, ca.crt or namespace file.
 *
 * @example What a pod sees: two service variables and the mounted service-account files
 * ```ts
 * import assert from "node:assert/strict";
 * import { inClusterConfig, selfSignedCertificate } from "@kubeloop/kubeloop";
 *
 * const dir = await Deno.makeTempDir(); // in a pod: /var/run/secrets/kubernetes.io/serviceaccount
 * await Deno.writeTextFile(`${dir}/token`, "token-from-the-kubelet");
 * await Deno.writeTextFile(`${dir}/ca.crt`, (await selfSignedCertificate({ hosts: ["kubernetes"] })).cert);
 * await Deno.writeTextFile(`${dir}/namespace`, "shop");
 * const env = (name: string) =>
 *   ({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" })[name];
 * const config = await inClusterConfig({ dir, env }); // in a pod: inClusterConfig()
 * assert.equal(config.server.href, "https://10.96.0.1/");
 * assert.equal(config.namespace, "shop");
 * assert.equal((await config.credentials.get()).token, "token-from-the-kubelet");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function inClusterConfig(options: InClusterOptions = {}): Promise<ClusterConfig> {
  const env: GetEnv = options.env ?? defaultEnv;
  const read: ReadTextFile = options.readTextFile ?? defaultReadTextFile;
  const dir = options.dir ?? DEFAULT_IN_CLUSTER_DIR;
  const logger = options.logger ?? noopLogger;
  const host = env("KUBERNETES_SERVICE_HOST");
  const port = env("KUBERNETES_SERVICE_PORT");
  if (!host || !port) {
    throw new ConfigError(
      "Cannot load in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set",
      { reason: "InCluster" },
    );
  }
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  let server: URL;
  try {
    if (!/^\d{1,5}$/.test(port)) throw new TypeError(`port "${port}" is not a number`);
    server = new URL(`https://${bracketed}:${port}`);
  } catch (cause) {
    throw new ConfigError(
      `Cannot load in-cluster config: KUBERNETES_SERVICE_HOST="${host}" and KUBERNETES_SERVICE_PORT="${port}" do not form a URL`,
      { reason: "InCluster", cause },
    );
  }
  const credentials = new TokenFileSource(`${dir}/token`, {
    readTextFile: read,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await credentials.get(options.signal);
  const caCerts = [await readCaBundle(`${dir}/ca.crt`, read)];
  let namespace = "default";
  try {
    namespace = (await read(`${dir}/namespace`)).trim() || "default";
  } catch (cause) {
    if (!isNotFound(cause)) {
      throw new ConfigError(`Cannot read in-cluster namespace file "${dir}/namespace": ${messageOf(cause)}`, {
        reason: "Unreadable",
        file: `${dir}/namespace`,
        cause,
      });
    }
  }
  return {
    server,
    tls: { caCerts },
    credentials,
    namespace,
    source: "in-cluster",
    inCluster: true,
  };
}

/** Reads the CA bundle and checks it holds certificates, so a broken mount fails at start-up. */
async function readCaBundle(path: string, read: ReadTextFile): Promise<string> {
  let text: string;
  try {
    text = await read(path);
  } catch (cause) {
    throw new ConfigError(
      `Cannot read in-cluster CA bundle "${path}": ${
        messageOf(cause)
      }; refusing to fall back to the system roots`,
      { reason: "Unreadable", file: path, cause },
    );
  }
  const problem = caBundleProblem(text);
  if (problem !== undefined) {
    throw new ConfigError(`Cannot use in-cluster CA bundle "${path}": it ${problem}`, {
      reason: "InCluster",
      file: path,
    });
  }
  return text;
}

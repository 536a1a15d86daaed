import type { Clock } from "../time/clock.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { ConfigError } from "./config_error.ts";
import type { ExecRunner } from "./exec_runner.ts";
import { inClusterConfig, isInCluster } from "./in_cluster.ts";
import { type KubeconfigFile, parseKubeconfig } from "./kubeconfig_file.ts";
import { mergeKubeconfigs } from "./merge.ts";
import { parseServer, resolveContext } from "./resolve_context.ts";
import { staticCredentials } from "./static_credentials.ts";
import type { ClusterConfig } from "./types.ts";
import {
  defaultEnv,
  defaultReadTextFile,
  type GetEnv,
  isNotFound,
  messageOf,
  type ReadTextFile,
} from "./_private.ts";

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /**
   * An explicit kubeconfig path (`--kubeconfig`); it must exist, and $KUBECONFIG is then ignored.
   * @default {$KUBECONFIG, then ~/.kube/config, then in-cluster}
   */
  kubeconfig?: string;
  /**
   * Context to use instead of `current-context` (`--context`).
   * @default {the kubeconfig's current-context}
   */
  context?: string;
  /**
   * Server URL that replaces the selected cluster's `server` (`--master`).
   * @default {the cluster's server}
   */
  master?: string;
  /**
   * Directory of the service-account files.
   * @default {"/var/run/secrets/kubernetes.io/serviceaccount"}
   */
  inClusterDir?: string;
  /**
   * Reads KUBECONFIG, HOME and the in-cluster variables.
   * @default {Deno.env.get}
   */
  env?: (name: string) => string | undefined;
  /**
   * Reads kubeconfigs and the files they name.
   * @default {Deno.readTextFile}
   */
  readTextFile?: (path: string) => Promise<string>;
  /**
   * Home directory for ~/.kube/config.
   * @default {env("HOME")}
   */
  homeDir?: string;
  /**
   * Times token-file re-reads and exec credential expiry.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Runs exec credential plugins.
   * @default {a runner using Deno.Command}
   */
  runCommand?: ExecRunner;
  /**
   * Receives warnings.
   * @default {a logger that drops everything}
   */
  logger?: Logger;
  /**
   * Aborts file reads.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

/**
 * Finds and loads the cluster configuration by client-go's rules, first match wins:
 * 1. `kubeconfig` (must exist);
 * 2. $KUBECONFIG: a ':'-separated list, merged (first definition of a name wins, first
 *    current-context wins); missing files are skipped and empty entries ignored. When it is set,
 *    ~/.kube/config is not consulted, as in client-go;
 * 3. `<homeDir>/.kube/config` (skipped when missing, or when the program may not read it: Deno's
 *    `NotCapable`; a path given by option or $KUBECONFIG that it may not read is an `Unreadable` error);
 * 4. the in-cluster service account, when KUBERNETES_SERVICE_HOST/PORT are set.
 * Then `context` picks the context and `master` replaces the server URL (with the in-cluster service
 * account it must be https:, so the token never travels in clear). Kubeconfigs that exist
 * but define nothing count as absent. With nothing found but `master` given, the result talks to
 * `master` without credentials (as client-go does, with a warning). An `http://` server with a user whose
 * requests carry a secret (token, tokenFile, exec plugin) is used as client-go uses it, but not silently: one
 * warning through `logger` names the user, the context and the cluster entry (or `master`).
 * @throws {ConfigError} `NoConfig` listing what was tried, or the error of the step that failed.
 *
 * @example Connect the way kubectl does
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeClient, loadConfig } from "@kubeloop/kubeloop";
 *
 * // $KUBECONFIG, else ~/.kube/config, else the pod's service account; `context` picks another context.
 * const config = await loadConfig();
 * await using client = new KubeClient(config);
 * const version = await client.getPath<{ gitVersion: string }>("/version");
 * assert.match(version.gitVersion, /^v1\.\d+/);
 * ```
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ClusterConfig> {
  options.signal?.throwIfAborted();
  const env: GetEnv = options.env ?? defaultEnv;
  const read: ReadTextFile = options.readTextFile ?? defaultReadTextFile;
  const logger = options.logger ?? noopLogger;
  const resolveOptions = {
    readTextFile: read,
    logger,
    ...(options.context ? { context: options.context } : {}),
    ...(options.master ? { master: options.master } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.runCommand ? { runCommand: options.runCommand } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  if (options.kubeconfig) {
    const file = await readKubeconfig(options.kubeconfig, read);
    if (!file || file === "denied") {
      throw new ConfigError(`Cannot read kubeconfig "${options.kubeconfig}": the file does not exist`, {
        reason: "NotFound",
        file: options.kubeconfig,
      });
    }
    return await resolveContext(mergeKubeconfigs([file]), resolveOptions);
  }
  const tried: string[] = [];
  const list = [...new Set((env("KUBECONFIG") ?? "").split(":").filter((p) => p !== ""))];
  const paths = list.length > 0 ? list : homePath(options.homeDir ?? env("HOME"), tried);
  const files: KubeconfigFile[] = [];
  let denied = false;
  for (const path of paths) {
    // The home file is only a guess: a program whose read permission leaves it out (the shipped binary
    // may read only the service-account directory) treats it as missing. Paths the user named still fail.
    const file = await readKubeconfig(path, read, list.length === 0);
    if (file === "denied") denied = true;
    else if (file) files.push(file);
  }
  const usable = files.some((f) =>
    f.contexts.length + f.clusters.length + f.users.length > 0 || f.currentContext
  );
  if (usable || (files.length > 0 && options.context)) {
    return await resolveContext(mergeKubeconfigs(files), resolveOptions);
  }
  if (paths.length > 0) {
    const names = paths.map((p) => `"${p}"`).join(", ");
    const state = denied ? "not permitted to read" : files.length > 0 ? "empty or missing" : "missing";
    tried.push(list.length > 0 ? `$KUBECONFIG=${names} (${state})` : `${names} (${state})`);
  }
  if (isInCluster(env)) {
    const config = await inClusterConfig({
      env,
      readTextFile: read,
      logger,
      ...(options.inClusterDir ? { dir: options.inClusterDir } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!options.master) return config;
    const server = parseServer(options.master, undefined);
    if (server.protocol !== "https:") {
      throw new ConfigError(
        `Cannot use master "${server.href}" with the in-cluster service account: its token would be sent ` +
          "over plain HTTP; use an https:// URL",
        { reason: "InvalidField", field: "master" },
      );
    }
    return {
      ...config,
      server,
      source: `in-cluster (master ${options.master})`,
    };
  }
  tried.push("in-cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)");
  if (options.master) {
    // Parsed before it is logged: parseServer refuses (and never repeats) a URL with a password.
    const server = parseServer(options.master, undefined);
    logger.warn("no kubeconfig or in-cluster config found; using master without credentials", {
      master: options.master,
    });
    return {
      server,
      tls: {},
      credentials: staticCredentials(),
      namespace: "default",
      source: `master ${options.master}`,
      inCluster: false,
    };
  }
  throw new ConfigError(`No Kubernetes configuration found; tried ${tried.join(", ")}`, {
    reason: "NoConfig",
  });
}

function homePath(home: string | undefined, tried: string[]): string[] {
  if (home) return [`${home.replace(/\/+$/, "")}/.kube/config`];
  tried.push("~/.kube/config (HOME is not set)");
  return [];
}

/**
 * Reads and parses one kubeconfig; undefined when it does not exist, "denied" when `optional` and the
 * program's permissions do not cover it.
 */
async function readKubeconfig(
  path: string,
  read: ReadTextFile,
  optional = false,
): Promise<KubeconfigFile | "denied" | undefined> {
  let text: string;
  try {
    text = await read(path);
  } catch (cause) {
    if (isNotFound(cause)) return undefined;
    if (optional && cause instanceof Deno.errors.NotCapable) return "denied";
    throw new ConfigError(`Cannot read kubeconfig "${path}": ${messageOf(cause)}`, {
      reason: "Unreadable",
      file: path,
      cause,
    });
  }
  return await parseKubeconfig(text, path);
}

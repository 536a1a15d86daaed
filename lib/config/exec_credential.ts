import type { Clock } from "../time/clock.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { systemClock } from "../time/clock.ts";
import { ConfigError } from "./config_error.ts";
import type { ExecConfig } from "./exec_config.ts";
import type { Credentials, CredentialSource } from "./types.ts";
import { parseExecOutput } from "./exec_output.ts";
import { defaultExecRunner, type ExecRunner } from "./exec_runner.ts";
import { messageOf } from "./_private.ts";
import { SharedRun } from "./shared_run.ts";

/** The cluster description sent to plugins with `provideClusterInfo` (ExecCredential `spec.cluster`). */
export interface ExecClusterInfo {
  /** API server URL. */
  readonly server: string;
  /** Base64 PEM CA bundle. */
  readonly "certificate-authority-data"?: string;
  /** Set when TLS verification is disabled. */
  readonly "insecure-skip-tls-verify"?: boolean;
  /** Name to verify the server certificate against. */
  readonly "tls-server-name"?: string;
  /** Set when the kubeconfig asks for uncompressed responses. */
  readonly "disable-compression"?: boolean;
}

/** The exec API versions kubeloop speaks. */
export const EXEC_API_VERSIONS: readonly string[] = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
];

/** Options for {@linkcode ExecCredentialSource}. */
export interface ExecCredentialSourceOptions {
  /** The kubeconfig user name, for error messages. */
  user: string;
  /**
   * Sent to the plugin when the exec config sets `provideClusterInfo`.
   * @default {no cluster information}
   */
  cluster?: ExecClusterInfo;
  /**
   * Runs the plugin.
   * @default {a runner using Deno.Command}
   */
  runCommand?: ExecRunner;
  /**
   * Decides when credentials have expired.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * The kubeconfig file and field of the exec block, for error messages.
   * @default {no kubeconfig location in messages}
   */
  origin?: { readonly file: string; readonly field: string };
  /**
   * Receives the plugin's stderr at debug level only: it may hold tokens or personal data, so it is
   * never part of an error message.
   * @default {a logger that drops everything}
   */
  logger?: Logger;
}

/**
 * Credentials from a client-go exec plugin (client.authentication.k8s.io v1 or v1beta1).
 * The plugin runs on first use; its answer is reused until `status.expirationTimestamp`
 * (forever if it has none) or until `invalidate()`. Concurrent `get()` calls share one run; a
 * caller's signal rejects only that caller's `get()`, and the plugin is killed only once every
 * caller waiting for it has aborted. kubeloop never runs plugins interactively. What the plugin
 * writes to stderr is logged at debug level only, never put in an error message.
 */
export class ExecCredentialSource implements CredentialSource {
  #exec: ExecConfig;
  #options: ExecCredentialSourceOptions;
  #run: ExecRunner;
  #clock: Clock;
  #logger: Logger;
  #cached: { credentials: Credentials; expiresAt: number | undefined } | undefined;
  readonly #runs = new SharedRun<Credentials>((signal) => this.#execute(signal));

  /**
   * Validates the exec block; runs nothing yet.
   * @throws {ConfigError} `Unsupported` for an unknown apiVersion or `interactiveMode: Always`.
   */
  constructor(exec: ExecConfig, options: ExecCredentialSourceOptions) {
    const field = options.origin?.field ?? "exec";
    const where = options.origin
      ? `Cannot use kubeconfig "${options.origin.file}"`
      : "Cannot use exec plugin";
    const fail = (key: string, text: string) =>
      new ConfigError(`${where}: field "${field}.${key}" ${text}`, {
        reason: "Unsupported",
        field: `${field}.${key}`,
        ...(options.origin ? { file: options.origin.file } : {}),
      });
    if (!EXEC_API_VERSIONS.includes(exec.apiVersion)) {
      throw fail("apiVersion", `is "${exec.apiVersion}"; supported: ${EXEC_API_VERSIONS.join(", ")}`);
    }
    if (exec.interactiveMode === "Always") {
      throw fail(
        "interactiveMode",
        `is "Always", but kubeloop never runs plugins interactively; use "IfAvailable"`,
      );
    }
    this.#exec = exec;
    this.#options = options;
    this.#run = options.runCommand ?? defaultExecRunner;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
  }

  /** Cached credentials, or the plugin's fresh answer once they expired or were invalidated. */
  get(signal?: AbortSignal): Promise<Credentials> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const cached = this.#cached;
    if (cached && (cached.expiresAt === undefined || this.#clock.now() < cached.expiresAt)) {
      return Promise.resolve(cached.credentials);
    }
    return this.#runs.join(signal);
  }

  /** Drops the cached credentials, so the next `get()` runs the plugin again. */
  invalidate(): void {
    this.#cached = undefined;
  }

  /** The `KUBERNETES_EXEC_INFO` value sent to the plugin. */
  execInfo(): string {
    const spec = this.#exec.provideClusterInfo && this.#options.cluster
      ? { interactive: false, cluster: this.#options.cluster }
      : { interactive: false };
    return JSON.stringify({ apiVersion: this.#exec.apiVersion, kind: "ExecCredential", spec });
  }

  async #execute(signal: AbortSignal): Promise<Credentials> {
    const exec = this.#exec;
    const env: Record<string, string> = {};
    for (const { name, value } of exec.env) env[name] = value;
    env["KUBERNETES_EXEC_INFO"] = this.execInfo();
    const prefix =
      `Cannot get credentials for user "${this.#options.user}" from exec plugin "${exec.command}"`;
    const fail = (text: string, cause?: unknown) =>
      new ConfigError(`${prefix}: ${text}`, {
        reason: "ExecFailed",
        ...(this.#options.origin
          ? { file: this.#options.origin.file, field: this.#options.origin.field }
          : {}),
        ...(cause === undefined ? {} : { cause }),
      });
    let result;
    try {
      result = await this.#run(exec.command, { args: exec.args, env, signal });
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      const hint = exec.installHint ? `\n${exec.installHint}` : "";
      if (cause instanceof Deno.errors.NotFound) throw fail(`the command was not found${hint}`, cause);
      if (cause instanceof Deno.errors.NotCapable) {
        throw fail("running it needs Deno's --allow-run permission, which this program was not given", cause);
      }
      throw fail(`the command could not be started: ${messageOf(cause)}${hint}`, cause);
    }
    const stderr = result.stderr.trim();
    if (stderr !== "") {
      this.#logger.debug("exec plugin wrote to stderr", {
        user: this.#options.user,
        command: exec.command,
        code: result.code,
        stderr: stderr.length > 2000 ? `${stderr.slice(0, 2000)}...` : stderr,
      });
    }
    if (result.code !== 0) {
      const bytes = new TextEncoder().encode(stderr).length;
      throw fail(
        `exited with code ${result.code}` +
          (stderr
            ? ` (its stderr, ${bytes} bytes, is logged at debug level)`
            : " and printed nothing to stderr"),
      );
    }
    const output = parseExecOutput(result.stdout, exec.apiVersion, (text) => fail(text));
    this.#cached = output;
    return output.credentials;
  }
}

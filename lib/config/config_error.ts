/**
 * The step at which loading a configuration failed:
 * - `NotFound`: an explicitly named kubeconfig file does not exist.
 * - `Unreadable`: a file (kubeconfig, CA, key, token) exists but could not be read.
 * - `Parse`: a kubeconfig is not valid YAML/JSON.
 * - `InvalidField`: a field has the wrong type, is not base64, or conflicts with another.
 * - `MissingField`: a required field is absent.
 * - `Unsupported`: the selected entry uses a feature kubeloop does not implement.
 * - `NoContext`: no current-context is set, or the named context is not defined.
 * - `UnknownReference`: a context names a cluster or user that is not defined.
 * - `InCluster`: the in-cluster environment is incomplete.
 * - `ExecFailed`: an exec credential plugin failed or answered badly.
 * - `NoConfig`: no kubeconfig and no in-cluster environment were found.
 * - `Permission`: the process lacks a Deno permission a step needs; the message names it and the flag.
 */
export type ConfigErrorReason =
  | "NotFound"
  | "Unreadable"
  | "Parse"
  | "InvalidField"
  | "MissingField"
  | "Unsupported"
  | "NoContext"
  | "UnknownReference"
  | "InCluster"
  | "ExecFailed"
  | "NoConfig"
  | "Permission";

/** Options for {@linkcode ConfigError}. */
export interface ConfigErrorOptions {
  /** Why loading failed. */
  reason: ConfigErrorReason;
  /**
   * The file at fault (a kubeconfig, or a token/CA file), when there is one.
   * @default {none}
   */
  file?: string;
  /**
   * The field at fault, as a path such as `users[0].user.client-key-data`.
   * @default {none}
   */
  field?: string;
  /**
   * The underlying error.
   * @default {none}
   */
  cause?: unknown;
}

/**
 * Loading a cluster configuration failed. `reason` says at which step, `file` and `field`
 * point at the offending input so callers (and people) can fix it.
 */
export class ConfigError extends Error {
  /** Why loading failed. */
  readonly reason: ConfigErrorReason;
  /** The file at fault, when there is one. */
  readonly file: string | undefined;
  /** The field at fault, when there is one. */
  readonly field: string | undefined;

  /** `message` is complete (Deno style, naming file and field); `options` carry the same facts for code. */
  constructor(message: string, options: ConfigErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConfigError";
    this.reason = options.reason;
    this.file = options.file;
    this.field = options.field;
  }
}

import { ConfigError } from "./config_error.ts";
import { resolvePath } from "./_private.ts";
import {
  type At,
  child,
  invalid,
  listAt,
  type Mapping,
  mappingAt,
  optBool,
  optString,
  reqString,
} from "./_fields.ts";

/** A kubeconfig exec plugin's `interactiveMode`. */
export type InteractiveMode = "Never" | "IfAvailable" | "Always";

/** One `exec.env` entry. */
export interface ExecEnvVar {
  /** Variable name. */
  readonly name: string;
  /** Variable value. */
  readonly value: string;
}

/** A kubeconfig `users[].user.exec` block; `command` is already resolved against the kubeconfig's directory. */
export interface ExecConfig {
  /** ExecCredential API version, e.g. client.authentication.k8s.io/v1. */
  readonly apiVersion: string;
  /** Program to run: an absolute path, or a bare name looked up in $PATH. */
  readonly command: string;
  /** Arguments. */
  readonly args: readonly string[];
  /** Variables added to the inherited environment. */
  readonly env: readonly ExecEnvVar[];
  /** Whether to send the cluster in KUBERNETES_EXEC_INFO. */
  readonly provideClusterInfo: boolean;
  /** Whether the plugin may prompt; kubeloop never lets it, so "Always" is rejected. */
  readonly interactiveMode?: InteractiveMode;
  /** Shown when the command is not found. */
  readonly installHint?: string;
}

const INTERACTIVE_MODES: readonly InteractiveMode[] = ["Never", "IfAvailable", "Always"];

/** `{ [key]: value }` when value is defined, else `{}`. */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * Validates a `users[].user.exec` block. A command containing a slash is resolved against the
 * kubeconfig's directory (`dir`), like client-go; a bare name is left for $PATH lookup.
 */
export function parseExecConfig(body: Mapping, at: At, dir: string): ExecConfig {
  const apiVersion = reqString(body, "apiVersion", at);
  let command = reqString(body, "command", at);
  if (command.includes("/")) command = resolvePath(dir, command);
  const argsAt = child(at, "args");
  const args = listAt(body["args"], argsAt).map((arg, i) => {
    if (typeof arg !== "string") throw invalid(child(argsAt, i), "a string", arg);
    return arg;
  });
  const envAt = child(at, "env");
  const env = listAt(body["env"], envAt).map((item, i): ExecEnvVar => {
    const itemAt = child(envAt, i);
    const obj = mappingAt(item, itemAt);
    const value = obj["value"] ?? "";
    if (typeof value !== "string") throw invalid(child(itemAt, "value"), "a string", value);
    return { name: reqString(obj, "name", itemAt), value };
  });
  const mode = optString(body, "interactiveMode", at);
  if (mode !== undefined && !INTERACTIVE_MODES.includes(mode as InteractiveMode)) {
    const field = child(at, "interactiveMode").field;
    throw new ConfigError(
      `Cannot read kubeconfig "${at.file}": field "${field}" must be one of ${
        INTERACTIVE_MODES.join(", ")
      }, got "${mode}"`,
      { reason: "InvalidField", file: at.file, field },
    );
  }
  return {
    apiVersion,
    command,
    args,
    env,
    provideClusterInfo: optBool(body, "provideClusterInfo", at) ?? false,
    ...opt("interactiveMode", mode as InteractiveMode | undefined),
    ...opt("installHint", optString(body, "installHint", at)),
  };
}

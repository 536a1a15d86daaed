// Internal helpers shared by the config modules; not part of the public face.
import { ConfigError } from "./config_error.ts";

/** Reads a whole text file. */
export type ReadTextFile = (path: string) => Promise<string>;

/** Looks up an environment variable. */
export type GetEnv = (name: string) => string | undefined;

/** Reads files with Deno; the default for every `readTextFile` option. */
export function defaultReadTextFile(path: string): Promise<string> {
  return Deno.readTextFile(path);
}

/** Reads the process environment; the default for every `env` option. */
export function defaultEnv(name: string): string | undefined {
  return Deno.env.get(name);
}

/** True for errors that mean "the file does not exist". */
export function isNotFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

/** The message of an unknown thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The directory part of a slash-separated path ("." when there is none). */
export function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  if (i < 0) return ".";
  if (i === 0) return "/";
  return path.slice(0, i);
}

/** Resolves `path` against `dir` unless it is absolute, removing "." and ".." segments. */
export function resolvePath(dir: string, path: string): string {
  if (path.startsWith("/")) return normalize(path);
  return normalize(dir === "." ? path : `${dir}/${path}`);
}

function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (part === ".." && absolute) continue;
    else out.push(part);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}

/**
 * Decodes a base64 field into text (PEM or a token). Throws a ConfigError naming the field,
 * because a bad paste into a kubeconfig is the usual cause.
 */
export function decodeBase64Text(value: string, file: string, field: string): string {
  let binary: string;
  try {
    binary = atob(value);
  } catch (cause) {
    throw new ConfigError(`Cannot read kubeconfig "${file}": field "${field}" is not base64`, {
      reason: "InvalidField",
      file,
      field,
      cause,
    });
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new ConfigError(`Cannot read kubeconfig "${file}": field "${field}" does not decode to text`, {
      reason: "InvalidField",
      file,
      field,
      cause,
    });
  }
}

/** Encodes UTF-8 text as base64 (for KUBERNETES_EXEC_INFO). */
export function encodeBase64Text(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

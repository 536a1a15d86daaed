/**
 * Where a generated project gets kubeloop from. It always imports `@kubeloop/kubeloop` (and
 * `@kubeloop/kubeloop/testing`) mapped to a `jsr:` specifier, so its code is the same whether the package
 * comes from the registry or from a local checkout; a checkout is added as a deno.json `links` entry, which
 * makes Deno resolve that specifier to the folder (offline, with the folder's own exports).
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./args.ts";

/** The package a generated project imports. */
export interface PackageSource {
  /** The import map value of "@kubeloop/kubeloop": a jsr: specifier, usually with a version range. */
  readonly specifier: string;
  /** Absolute path of a local checkout that stands in for that package (deno.json "links"). */
  readonly link?: string;
}

/** The package name kubeloop publishes under, and the name in a checkout's deno.json. */
export const PACKAGE_NAME = "@kubeloop/kubeloop";

/** Options of {@linkcode resolvePackage}. */
export interface ResolvePackageOptions {
  /**
   * The deno.json of the kubeloop running the generator, read for the default version range.
   * @default {the deno.json two folders above this module (the package root, local or on JSR)}
   */
  readonly self?: URL;
}

/**
 * Resolves `--package`: undefined means this kubeloop's own version from the registry
 * (`jsr:@kubeloop/kubeloop@^<version>`); a `jsr:` specifier is used as given; anything else is the path
 * or `file:` URL of a kubeloop checkout (its root or its lib/ folder), linked in place of the registry's
 * package. Throws a UsageError naming `--package` when the value is none of these.
 */
export async function resolvePackage(
  value: string | undefined,
  options: ResolvePackageOptions = {},
): Promise<PackageSource> {
  if (value === undefined) {
    const self = options.self ?? new URL("../../deno.json", import.meta.url);
    const manifest = await readManifest(self);
    if (typeof manifest?.version !== "string") {
      throw new Error(`Cannot read kubeloop's version from ${self.href}`);
    }
    return { specifier: `jsr:${PACKAGE_NAME}@^${manifest.version}` };
  }
  if (value.startsWith("jsr:")) {
    if (!/^jsr:@[a-z0-9-]+\/[a-z0-9-]+(@[^/\s]+)?$/.test(value)) {
      throw new UsageError(`--package "${value}" is not a jsr: package specifier (jsr:@scope/name@range)`);
    }
    return { specifier: value };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) && !value.startsWith("file:")) {
    throw new UsageError(
      `--package "${value}": expected a jsr: specifier, or a path or file: URL of a checkout`,
    );
  }
  const path = resolve(value.startsWith("file:") ? fileURLToPath(value) : value);
  for (const root of [path, dirname(path)]) {
    const manifest = await readManifest(new URL(`file://${join(root, "deno.json")}`));
    if (manifest?.name === PACKAGE_NAME && typeof manifest.version === "string") {
      return { specifier: `jsr:${PACKAGE_NAME}@^${manifest.version}`, link: root };
    }
  }
  throw new UsageError(
    `--package "${value}" is not a kubeloop checkout: no deno.json naming ${PACKAGE_NAME} in it or above it`,
  );
}

/** The name and version of a deno.json, or undefined when there is none. */
async function readManifest(url: URL): Promise<{ name?: unknown; version?: unknown } | undefined> {
  let text: string;
  try {
    text = url.protocol === "file:" ? await Deno.readTextFile(url) : await (await fetchOk(url)).text();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

async function fetchOk(url: URL): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`Cannot fetch ${url.href}: ${response.status}`);
  }
  return response;
}

/**
 * The image's layers above the distroless files. `deno compile` cannot run here (it downloads denort), so
 * the binary is stood in for by what it is made of: the Deno runtime at the ENTRYPOINT path, and the files
 * the build stage copies (its WORKDIR) with the dependency cache the build stage's `deno install --frozen`
 * fills (the official Deno image's DENO_DIR, /deno-dir). The stand-in runs them with `deno run
 * --cached-only` and the compile task's flags, so nothing can be fetched at run time.
 */
import { join } from "node:path";
import { DEFAULT_IN_CLUSTER_DIR } from "../../../lib/config/mod.ts";
import { podCacheDir } from "./base_layer.ts";
import type { PodSpec } from "./pod_spec.ts";
import { REPO_ROOT } from "./pod_spec.ts";
import { run } from "./run.ts";

/** Where the stand-in keeps the dependency cache a compiled binary would carry inside itself. */
export const STAND_IN_DENO_DIR = "/deno-dir";

/** Files the container runtime bind-mounts over the image (created empty in the image as mount points). */
export const RUNTIME_FILES = ["/etc/hosts", "/etc/hostname", "/etc/resolv.conf"];

/**
 * The layer holding the Deno runtime (the running test's own `deno`, the version the project pins) at the
 * Dockerfile's ENTRYPOINT path; cached per runtime binary.
 */
export async function runtimeLayer(spec: PodSpec): Promise<string> {
  const deno = Deno.execPath();
  const info = await Deno.stat(deno);
  const entry = spec.image.entrypoint[0]!;
  const key = `${Deno.version.deno}-${info.size}-${info.mtime?.getTime() ?? 0}`;
  const dir = join(podCacheDir(), `runtime-${key}`);
  const target = join(dir, entry);
  try {
    await Deno.stat(target);
    return dir;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const building = `${dir}.partial-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(join(building, entry, ".."), { recursive: true });
  await Deno.copyFile(deno, join(building, entry));
  await Deno.chmod(join(building, entry), 0o755);
  await Deno.rename(building, dir).catch(async (error) => {
    await Deno.remove(building, { recursive: true });
    await Deno.stat(target).catch(() => Promise.reject(error));
  });
  return dir;
}

/** npm package names in deno.lock ("yaml@2.9.1" → "yaml"). */
async function lockedNpmPackages(): Promise<string[]> {
  const lock = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.lock"))) as {
    npm?: Record<string, unknown>;
  };
  return Object.keys(lock.npm ?? {}).map((k) => k.slice(0, k.lastIndexOf("@")));
}

/**
 * Builds the program layer in `dir`: the build stage's sources under its WORKDIR, a dependency cache filled
 * by `deno install --frozen` (seeded from this machine's cache, so warm runs need no registry), and the
 * mount points a container runtime creates (service-account directory, /etc/hosts and friends).
 */
export async function programLayer(spec: PodSpec, dir: string): Promise<void> {
  // The topmost layer's root folder becomes the pod's "/": it must be traversable, as in an image.
  await Deno.chmod(dir, 0o755);
  const workdir = join(dir, spec.image.buildWorkdir);
  await Deno.mkdir(workdir, { recursive: true });
  for (const source of spec.image.buildSources) {
    await run("cp", ["-a", join(REPO_ROOT, source), join(workdir, source)]);
  }
  const denoDir = join(dir, STAND_IN_DENO_DIR);
  const hostCache = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
  for (const name of await lockedNpmPackages()) {
    const from = join(hostCache, "npm", "registry.npmjs.org", name);
    const to = join(denoDir, "npm", "registry.npmjs.org", name);
    await Deno.mkdir(join(to, ".."), { recursive: true });
    await run("cp", ["-a", from, to]).catch(() => {/* not cached here: deno install downloads it */});
  }
  await run(Deno.execPath(), ["install", "--frozen", "--entrypoint", join(workdir, spec.compile.entry)], {
    cwd: workdir,
    env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1" },
  });
  await run("chmod", ["-R", "a+rX", denoDir]);
  await Deno.mkdir(join(dir, DEFAULT_IN_CLUSTER_DIR), { recursive: true });
  await Deno.mkdir(join(dir, "etc"), { recursive: true });
  for (const file of RUNTIME_FILES) await Deno.writeTextFile(join(dir, file), "");
}

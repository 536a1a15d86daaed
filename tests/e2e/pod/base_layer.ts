/**
 * The distroless cc-debian12 file set, rebuilt from Debian packages: `apt-get download` + `dpkg-deb -x`
 * into a cache folder outside the repository, one folder per set of package versions, reused while apt
 * offers the same versions.
 */
import { join } from "node:path";
import {
  DISTROLESS_CC_DEBIAN12,
  DISTROLESS_GROUP,
  DISTROLESS_NONROOT,
  DISTROLESS_NSSWITCH,
  DISTROLESS_OS_RELEASE,
  DISTROLESS_PASSWD,
  type DistrolessPackage,
} from "./distroless.ts";
import { run } from "./run.ts";

/** A package of the image with the version apt resolved here. */
export interface ResolvedPackage extends DistrolessPackage {
  /** The version apt offers (and the layer holds). */
  readonly version: string;
}

/** The assembled base layer. */
export interface BaseLayer {
  /** Root of the file tree. */
  readonly dir: string;
  /** Its packages, in image layer order. */
  readonly packages: readonly ResolvedPackage[];
  /** False when this call assembled it, true when a cached copy was reused. */
  readonly reused: boolean;
}

/** Changes whenever the way the layer is assembled changes, so old cached copies are not reused. */
const LAYOUT = "1";

/** The cache folder: $KUBELOOP_POD_CACHE, else ~/.cache/kubeloop-pod. */
export function podCacheDir(): string {
  const fromEnv = Deno.env.get("KUBELOOP_POD_CACHE");
  if (fromEnv) return fromEnv;
  const home = Deno.env.get("HOME");
  if (!home) {
    throw new Error("Set HOME or KUBELOOP_POD_CACHE: the pod rehearsal caches Debian packages there");
  }
  return join(home, ".cache", "kubeloop-pod");
}

/** Candidate versions by package name; missing names had no candidate. */
async function candidates(names: readonly string[]): Promise<Map<string, string>> {
  const out = await run("apt-cache", ["policy", ...names]);
  const found = new Map<string, string>();
  let current: string | undefined;
  for (const line of out.split("\n")) {
    const header = /^(\S+):$/.exec(line);
    if (header) current = header[1];
    const candidate = /^\s+Candidate:\s+(\S+)$/.exec(line);
    if (current && candidate && candidate[1] !== "(none)") found.set(current, candidate[1]!);
  }
  return found;
}

/** Resolves every package's version, running `apt-get update` once when apt knows none for some. */
async function resolve(progress: (line: string) => void): Promise<ResolvedPackage[]> {
  const names = DISTROLESS_CC_DEBIAN12.map((p) => p.name);
  let versions = await candidates(names);
  if (names.some((n) => !versions.has(n))) {
    progress("apt has no candidate for some packages; running apt-get update once");
    await run("apt-get", ["update", "-qq"]);
    versions = await candidates(names);
  }
  const missing = names.filter((n) => !versions.has(n));
  if (missing.length > 0) {
    throw new Error(
      `apt offers no version of ${missing.join(", ")}: the pod rehearsal needs Debian 12 sources`,
    );
  }
  return DISTROLESS_CC_DEBIAN12.map((p) => ({ ...p, version: versions.get(p.name)! }));
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Downloads the .deb files not yet in `debDir`; returns the file of each package. */
async function download(packages: readonly ResolvedPackage[], debDir: string): Promise<Map<string, string>> {
  await Deno.mkdir(debDir, { recursive: true });
  const fileOf = (p: ResolvedPackage) => `${p.name}_${p.version.replace(/^\d+:/, "")}_`;
  const present = [...Deno.readDirSync(debDir)].map((e) => e.name);
  const find = (p: ResolvedPackage) => present.find((f) => f.startsWith(fileOf(p)) && f.endsWith(".deb"));
  const wanted = packages.filter((p) => !find(p)).map((p) => `${p.name}=${p.version}`);
  if (wanted.length > 0) {
    // apt drops privileges to _apt for downloads unless told otherwise; the cache folder is root's.
    await run("apt-get", ["download", "-qq", "-o", "APT::Sandbox::User=root", ...wanted], { cwd: debDir });
    present.splice(0, present.length, ...[...Deno.readDirSync(debDir)].map((e) => e.name));
  }
  const files = new Map<string, string>();
  for (const p of packages) {
    const file = find(p);
    if (!file) throw new Error(`apt-get download left no .deb for ${p.name}=${p.version} in ${debDir}`);
    files.set(p.name, join(debDir, file));
  }
  return files;
}

/** Files distroless adds besides packages: users, groups, homes, /tmp, nsswitch, os-release. */
async function addImageFiles(dir: string): Promise<void> {
  await Deno.writeTextFile(join(dir, "etc/passwd"), DISTROLESS_PASSWD.join("\n") + "\n");
  await Deno.writeTextFile(join(dir, "etc/group"), DISTROLESS_GROUP.join("\n") + "\n");
  await Deno.writeTextFile(join(dir, "etc/nsswitch.conf"), DISTROLESS_NSSWITCH.join("\n") + "\n");
  await Deno.remove(join(dir, "etc/os-release"));
  await Deno.writeTextFile(join(dir, "etc/os-release"), DISTROLESS_OS_RELEASE.join("\n") + "\n");
  await Deno.mkdir(join(dir, "root"), { recursive: true });
  await Deno.chmod(join(dir, "root"), 0o700);
  const home = join(dir, DISTROLESS_NONROOT.home);
  await Deno.mkdir(home, { recursive: true });
  await Deno.chmod(home, 0o700);
  await Deno.chown(home, DISTROLESS_NONROOT.uid, DISTROLESS_NONROOT.gid);
  await Deno.mkdir(join(dir, "tmp"), { recursive: true });
  await Deno.chmod(join(dir, "tmp"), 0o1777);
}

/** Extracts the derived part of a package that distroless keeps only partly. */
async function addDerived(p: ResolvedPackage, deb: string, dir: string, scratch: string): Promise<void> {
  const unpacked = join(scratch, p.name);
  await Deno.mkdir(unpacked, { recursive: true });
  await run("dpkg-deb", ["-x", deb, unpacked]);
  if (p.use === "ca-bundle") {
    const certs: string[] = [];
    const walk = (d: string) => {
      for (const e of [...Deno.readDirSync(d)].sort((a, b) => a.name < b.name ? -1 : 1)) {
        if (e.isDirectory) walk(join(d, e.name));
        else certs.push(join(d, e.name));
      }
    };
    walk(join(unpacked, "usr/share/ca-certificates"));
    const bundle = (await Promise.all(certs.map((c) => Deno.readTextFile(c)))).join("");
    await Deno.mkdir(join(dir, "etc/ssl/certs"), { recursive: true });
    await Deno.writeTextFile(join(dir, "etc/ssl/certs/ca-certificates.crt"), bundle);
    await Deno.mkdir(join(dir, "usr/share/doc/ca-certificates"), { recursive: true });
    await Deno.copyFile(
      join(unpacked, "usr/share/doc/ca-certificates/copyright"),
      join(dir, "usr/share/doc/ca-certificates/copyright"),
    );
  } else if (p.use === "c-utf8-locale") {
    await Deno.mkdir(join(dir, "usr/lib/locale"), { recursive: true });
    await run("cp", ["-a", join(unpacked, "usr/lib/locale/C.utf8"), join(dir, "usr/lib/locale/")]);
  }
}

/**
 * The base layer for the packages apt offers now: reused from the cache when one with the same versions
 * exists, else downloaded and assembled there (a temporary folder renamed into place when complete).
 */
export async function baseLayer(progress: (line: string) => void): Promise<BaseLayer> {
  const cache = podCacheDir();
  const packages = await resolve(progress);
  const key = await sha256Hex([LAYOUT, ...packages.map((p) => `${p.name}=${p.version}:${p.use}`)].join("\n"));
  const dir = join(cache, `base-${key.slice(0, 16)}`);
  if (await exists(dir)) return { dir, packages, reused: true };
  progress(`assembling the base layer in ${dir}`);
  const debs = await download(packages, join(cache, "debs"));
  const building = `${dir}.partial-${crypto.randomUUID().slice(0, 8)}`;
  const scratch = `${building}.scratch`;
  try {
    await Deno.mkdir(building, { recursive: true });
    await Deno.chmod(building, 0o755);
    for (const p of packages) {
      const deb = debs.get(p.name)!;
      if (p.use === "whole") await run("dpkg-deb", ["-x", deb, building]);
      else await addDerived(p, deb, building, scratch);
      // distroless registers each package for scanners as /var/lib/dpkg/status.d/<name>.
      await Deno.mkdir(join(building, "var/lib/dpkg/status.d"), { recursive: true });
      await Deno.writeTextFile(
        join(building, "var/lib/dpkg/status.d", p.name),
        await run("dpkg-deb", ["-f", deb]),
      );
    }
    await addImageFiles(building);
    // Another run may have finished the same layer meanwhile: then its copy is as good as ours.
    await Deno.rename(building, dir).catch(async (error) => {
      if (!await exists(dir)) throw error;
    });
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    await Deno.remove(building, { recursive: true }).catch(() => {});
  }
  return { dir, packages, reused: false };
}

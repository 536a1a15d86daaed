/**
 * Builds a small Go program that a differential test asks for a reference verdict (Go's `crypto/x509`,
 * `net/http`, …). Each oracle is a module of its own under `tests/differential/<name>/`, standard library
 * only, so a cold build takes seconds and needs no download. The binary is cached like the control plane,
 * under `$KUBELOOP_TESTENV_CACHE` (default `~/.cache/kubeloop-testenv`), keyed by a hash of the module's
 * files and the Go version, and built at most once per process.
 */
import { join } from "node:path";

const built = new Map<string, Promise<string>>();

/** The path of the oracle binary built from `tests/differential/<name>/`. */
export function goOracle(name: string): Promise<string> {
  let path = built.get(name);
  if (path === undefined) {
    path = build(name);
    built.set(name, path);
  }
  return path;
}

async function build(name: string): Promise<string> {
  const dir = new URL(`../differential/${name}/`, import.meta.url).pathname;
  const goVersion = await run("go", ["env", "GOVERSION"], dir);
  const hash = await sourceHash(dir, goVersion);
  const root = Deno.env.get("KUBELOOP_TESTENV_CACHE") ??
    join(
      Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache"),
      "kubeloop-testenv",
    );
  const out = join(root, `oracle-${name}-${hash}`, name);
  try {
    await Deno.stat(out);
    return out;
  } catch {
    // Not built yet.
  }
  const tmp = `${out}.tmp.${Deno.pid}`;
  await Deno.mkdir(join(root, `oracle-${name}-${hash}`), { recursive: true });
  await run("go", ["build", "-trimpath", "-o", tmp, "."], dir, {
    GOWORK: "off",
    GOTOOLCHAIN: "local",
    CGO_ENABLED: "0",
    GOFLAGS: "-mod=mod",
  });
  await Deno.rename(tmp, out);
  return out;
}

async function sourceHash(dir: string, goVersion: string): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
  names.sort();
  const parts: Uint8Array[] = [new TextEncoder().encode(goVersion)];
  for (const name of names) {
    parts.push(new TextEncoder().encode(`\0${name}\0`), await Deno.readFile(join(dir, name)));
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `Cannot build the oracle in ${cwd}: ${cmd} ${args.join(" ")} exited ${out.code}:\n` +
        dec.decode(out.stderr),
    );
  }
  return dec.decode(out.stdout).trim();
}

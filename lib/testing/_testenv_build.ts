/**
 * Builds the local control plane from the Go sources the package carries (_testenv_sources.ts), wherever
 * the package was loaded from. The sources are written once into `<cache>/src-<hash of the sources>/`,
 * and their build.sh caches the binaries beside them keyed by the build's own inputs (go.mod, go.sum, the
 * Go version): a checkout, a copied folder and JSR's copy of the same release share one build.
 * @module
 */

/** The oldest Go that builds the pinned modules (their go.mod files say `go 1.26.0`). */
const MIN_GO: readonly [number, number] = [1, 26];

const NO_BINARIES =
  "or set KUBELOOP_TESTENV_BIN (or binDir) to a directory of binaries built by kubeloop's " +
  "tests/testenv/build.sh";

/** The cache folder: `$KUBELOOP_TESTENV_CACHE`, else `$XDG_CACHE_HOME` or `~/.cache` + `/kubeloop-testenv`. */
export function cacheDirFrom(env: (name: string) => string | undefined): string {
  const set = (name: string) => env(name) || undefined;
  const explicit = set("KUBELOOP_TESTENV_CACHE");
  if (explicit) return explicit;
  const base = set("XDG_CACHE_HOME") ?? (set("HOME") && `${set("HOME")}/.cache`);
  if (!base) {
    throw new Error(
      "Cannot choose where to build the control plane: set cacheDir, KUBELOOP_TESTENV_CACHE or HOME, " +
        NO_BINARIES,
    );
  }
  return `${base}/kubeloop-testenv`;
}

/** The first 16 hex digits of the SHA-256 of every path and content of `sources`, in path order. */
export async function sourcesKey(sources: Readonly<Record<string, string>>): Promise<string> {
  const text = Object.keys(sources).sort().map((path) => `${path}\0${sources[path]}\0`).join("");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
}

/**
 * Builds (or finds, when built before) the control plane binaries under `cacheDir`; resolves to the
 * folder holding them. Progress goes to `<cacheDir>/build-*.log`, kept when the build fails.
 */
export async function buildControlPlane(cacheDir: string): Promise<string> {
  await checkGo();
  const { TESTENV_SOURCES } = await import("./_testenv_sources.ts");
  await Deno.mkdir(cacheDir, { recursive: true });
  const src = await writeSources(`${cacheDir}/src-${await sourcesKey(TESTENV_SOURCES)}`, TESTENV_SOURCES);
  const log = await Deno.makeTempFile({ dir: cacheDir, prefix: "build-", suffix: ".log" });
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      args: [`${src}/build.sh`],
      env: { KUBELOOP_TESTENV_CACHE: cacheDir },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    await Deno.remove(log);
    throw new Error(`Cannot run bash to build the control plane: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const [stdout] = await Promise.all([new Response(child.stdout).text(), appendTo(log, child.stderr)]);
  const status = await child.status;
  if (!status.success) {
    const tail = (await Deno.readTextFile(log)).split("\n").slice(-41).join("\n").slice(-4000);
    throw new Error(
      `Cannot build the local control plane: ${src}/build.sh exited with ${status.code}. ` +
        `Its log is ${log}; the end of it:\n${tail}`,
    );
  }
  await Deno.remove(log);
  const bin = stdout.trim().split("\n").at(-1);
  if (!bin) throw new Error(`${src}/build.sh printed no binary directory`);
  return bin;
}

/**
 * Appends `stream` to the file at `path` as each chunk arrives, so the log shows a long build's progress
 * while it runs (`stream.pipeTo(file.writable)` wrote nothing until the stream ended, in Deno 2.9.6).
 */
async function appendTo(path: string, stream: ReadableStream<Uint8Array>): Promise<void> {
  using file = await Deno.open(path, { append: true });
  for await (const chunk of stream) {
    for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
  }
}

/** Fails with what to install when `go` is missing or older than {@linkcode MIN_GO}. */
async function checkGo(): Promise<void> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("go", {
      args: ["env", "GOVERSION"],
      env: { GOTOOLCHAIN: "local" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error(
      `startTestEnv builds the control plane with Go, and there is no "go" on PATH: install Go ≥ ` +
        `${MIN_GO.join(".")} (https://go.dev/dl/), ${NO_BINARIES}`,
      { cause: error },
    );
  }
  const version = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    throw new Error(`"go env GOVERSION" failed: ${new TextDecoder().decode(out.stderr).trim().slice(-2000)}`);
  }
  const m = /^go(\d+)\.(\d+)/.exec(version);
  // A development toolchain ("devel go1.27-…") is let through: its build says what it lacks, if anything.
  if (m && Number(m[1]) * 1000 + Number(m[2]) < MIN_GO[0] * 1000 + MIN_GO[1]) {
    throw new Error(
      `startTestEnv builds the control plane with Go ≥ ${MIN_GO.join(".")}, and the "go" on PATH is ` +
        `${version}: install a newer Go (https://go.dev/dl/), ${NO_BINARIES}`,
    );
  }
}

/**
 * Writes `sources` into `dir` unless a complete copy is there. The copy is written aside and renamed into
 * place whole, so `dir` never holds half a tree, and a concurrent writer's copy is as good as ours.
 */
async function writeSources(dir: string, sources: Readonly<Record<string, string>>): Promise<string> {
  const complete = () => Deno.stat(`${dir}/.complete`).then(() => true, () => false);
  if (await complete()) return dir;
  const tmp = `${dir}.tmp.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}`;
  try {
    for (const [path, text] of Object.entries(sources)) {
      const at = `${tmp}/${path}`;
      await Deno.mkdir(at.slice(0, at.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(at, text);
    }
    await Deno.writeTextFile(`${tmp}/.complete`, "");
    await Deno.rename(tmp, dir);
  } catch (error) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {}); // the error that matters is `error`
    if (await complete()) return dir;
    throw new Error(`Cannot write the control plane sources into "${dir}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  return dir;
}

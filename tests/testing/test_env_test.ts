/**
 * What startTestEnv says when it cannot build the control plane from the sources it carries: no Go, a Go
 * too old, a failed build. Each case is a user's program in a folder of its own, run with only PATH, HOME
 * and a fresh cache folder in its environment (no KUBELOOP_TESTENV_BIN), and a PATH whose `go` the test
 * controls. None of them reaches a real build, so they need neither Go nor the network.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { TESTENV_SOURCES } from "../../lib/testing/_testenv_sources.ts";
import { sourcesKey } from "../../lib/testing/_testenv_build.ts";
import { createUserProject } from "../_util/user_project.ts";

const PROGRAM = `
import { startTestEnv } from "{{LIB}}testing/mod.ts";
try {
  const env = await startTestEnv({ controllerManager: false });
  await env.stop();
  console.log(JSON.stringify({ started: env.binDir }));
} catch (error) {
  console.log(JSON.stringify({ message: (error as Error).message }));
}
`;

/** The variables of this process named, those that are set (Deno's cache; the coverage run's folder). */
function passThrough(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => {
    const value = Deno.env.get(name);
    return value ? [[name, value]] : [];
  }));
}

/**
 * Runs PROGRAM with a PATH of `tools` (fake programs; then /usr/bin and /bin when `systemPath`) and a fresh
 * cache folder; returns what it printed, and the cache folder (the caller removes it).
 */
async function startWith(
  tools: Record<string, string>,
  systemPath: boolean,
): Promise<{ message?: string; started?: string; cache: string }> {
  await using project = await createUserProject({ "main.ts": PROGRAM });
  const bin = join(project.dir, "fake-bin");
  await Deno.mkdir(bin);
  for (const [name, script] of Object.entries(tools)) {
    await Deno.writeTextFile(join(bin, name), script, { mode: 0o755 });
  }
  const cache = await Deno.makeTempDir({ prefix: "kubeloop-cache-" });
  const run = await project.deno(["run", "-A", "main.ts"], {
    clearEnv: true,
    env: {
      HOME: Deno.env.get("HOME") ?? "/nonexistent",
      ...passThrough("DENO_DIR", "DENO_COVERAGE_DIR"),
      PATH: systemPath ? `${bin}:/usr/bin:/bin` : bin,
      KUBELOOP_TESTENV_CACHE: cache,
    },
  });
  assert.equal(run.code, 0, run.stderr);
  return { ...JSON.parse(run.stdout), cache };
}

Deno.test("with no go on PATH, startTestEnv says Go is needed (and the alternative), before writing anything", async () => {
  const { message, cache } = await startWith({}, false);
  try {
    assert.equal(
      message,
      'startTestEnv builds the control plane with Go, and there is no "go" on PATH: install Go ≥ 1.26 ' +
        "(https://go.dev/dl/), or set KUBELOOP_TESTENV_BIN (or binDir) to a directory of binaries built by " +
        "kubeloop's tests/testenv/build.sh",
    );
    assert.deepEqual([...Deno.readDirSync(cache)], [], "nothing written to the cache");
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("with a Go older than 1.26, startTestEnv names the version it found and the one it needs", async () => {
  const { message, cache } = await startWith({ go: "#!/bin/sh\necho go1.22.5\n" }, false);
  try {
    assert.match(
      message ?? "",
      /^startTestEnv builds the control plane with Go ≥ 1\.26, and the "go" on PATH is go1\.22\.5: install a newer Go/,
    );
    assert.deepEqual([...Deno.readDirSync(cache)], [], "nothing written to the cache");
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("a failed build is an error with the end of the build log and where the whole log is", async () => {
  const failingGo = `#!/bin/sh
if [ "$1 $2" = "env GOVERSION" ]; then echo go1.26.0; exit 0; fi
echo "go: simulated failure: proxy.golang.org is unreachable" >&2
exit 1
`;
  const { message, started, cache } = await startWith({ go: failingGo }, true);
  try {
    assert.equal(started, undefined);
    const src = join(cache, `src-${await sourcesKey(TESTENV_SOURCES)}`);
    const m =
      /^Cannot build the local control plane: (.+)\/build\.sh exited with 1\. Its log is (\S+); the end of it:\n/
        .exec(message ?? "");
    assert.ok(m, message);
    assert.equal(m[1], src, "built from the sources written into the cache");
    assert.match(message ?? "", /go: simulated failure: proxy\.golang\.org is unreachable/);
    assert.ok(m[2]!.startsWith(join(cache, "build-")), m[2]);
    assert.match(await Deno.readTextFile(m[2]!), /simulated failure/, "the log is kept");
    // The sources in the cache are the package's, byte for byte, ready for the next attempt.
    for (const [path, text] of Object.entries(TESTENV_SOURCES)) {
      assert.equal(await Deno.readTextFile(join(src, path)), text, path);
    }
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

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
 * Runs PROGRAM with a PATH of `tools` (fake programs; then /usr/bin and /bin when `systemPath`), a fresh
 * cache folder and `env`; `during` runs while the program does. Returns what the program printed, and the
 * cache folder (the caller removes it).
 */
async function startWith(
  tools: Record<string, string>,
  options: { systemPath?: boolean; env?: Record<string, string>; during?: (cache: string) => Promise<void> } =
    {},
): Promise<{ message?: string; started?: string; cache: string }> {
  await using project = await createUserProject({ "main.ts": PROGRAM });
  const bin = join(project.dir, "fake-bin");
  await Deno.mkdir(bin);
  for (const [name, script] of Object.entries(tools)) {
    await Deno.writeTextFile(join(bin, name), script, { mode: 0o755 });
  }
  const cache = await Deno.makeTempDir({ prefix: "kubeloop-cache-" });
  const child = project.spawn(["run", "-A", "main.ts"], {
    clearEnv: true,
    env: {
      HOME: Deno.env.get("HOME") ?? "/nonexistent",
      ...passThrough("DENO_DIR", "DENO_COVERAGE_DIR"),
      PATH: options.systemPath ? `${bin}:/usr/bin:/bin` : bin,
      KUBELOOP_TESTENV_CACHE: cache,
      ...options.env,
    },
  });
  // The program is waited for even when `during` fails, so no process outlives the test.
  const [during, out] = await Promise.allSettled([options.during?.(cache), child.output()]);
  if (during.status === "rejected") throw during.reason;
  if (out.status === "rejected") throw out.reason;
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.equal(out.value.code, 0, text(out.value.stderr));
  return { ...JSON.parse(text(out.value.stdout)), cache };
}

Deno.test("with no go on PATH, startTestEnv says Go is needed (and the alternative), before writing anything", async () => {
  const { message, cache } = await startWith({});
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
  const { message, cache } = await startWith({ go: "#!/bin/sh\necho go1.22.5\n" });
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
  const { message, started, cache } = await startWith({ go: failingGo }, { systemPath: true });
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

Deno.test("a long build's progress is in its log while it runs, and a failed step's own log is named", async () => {
  // A Go that answers build.sh's questions, then hangs in `go build` until the test has read the log.
  const slowGo = `#!/bin/sh
case "$1 $2" in
  "env GOVERSION") echo go1.26.0 ;;
  "list -m") echo v1.37.2 ;;
  "build -v")
    echo kubeloop.invalid/metricscheck >&2
    while [ ! -e "$RELEASE" ]; do sleep 0.1; done
    echo "go: simulated compile error" >&2
    exit 1 ;;
  *) exit 1 ;;
esac
`;
  const release = await Deno.makeTempFile({ prefix: "kubeloop-release-" });
  await Deno.remove(release);
  let seen = "";
  const { message, cache } = await startWith({ go: slowGo }, {
    systemPath: true,
    env: { RELEASE: release },
    during: async (cache) => {
      try {
        for (let i = 0; i < 300 && !seen.includes("testenv: building metrics-check"); i++) {
          await new Promise((r) => setTimeout(r, 100));
          for (const entry of Deno.readDirSync(cache)) {
            if (entry.name.startsWith("build-")) seen = await Deno.readTextFile(join(cache, entry.name));
          }
        }
      } finally {
        await Deno.writeTextFile(release, "");
      }
    },
  });
  try {
    assert.match(seen, /^testenv: building into .*metrics-check-/m, "progress while the build ran");
    assert.match(seen, /^testenv: building metrics-check \(go build -v/m);
    assert.match(
      message ?? "",
      /testenv: building metrics-check failed \(exit 1\); the end of its log \(\S+\/\.metrics-check\.log\):\nkubeloop\.invalid\/metricscheck\ngo: simulated compile error/,
    );
  } finally {
    await Deno.remove(cache, { recursive: true });
    await Deno.remove(release);
  }
});

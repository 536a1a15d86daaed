import { buildControlPlane, cacheDirFrom } from "./_testenv_build.ts";

/** Options of {@linkcode startTestEnv}. */
export interface TestEnvOptions {
  /**
   * Directory holding the `testenv`, `kube-apiserver`, `kube-controller-manager` and `kubectl` binaries.
   * @default {$KUBELOOP_TESTENV_BIN, else the binaries built (once) in cacheDir from the Go sources this package carries}
   */
  readonly binDir?: string;
  /**
   * Where the control plane is built and cached when no binDir is given: its Go sources go to
   * `src-<hash>/`, the binaries to folders keyed by their inputs, shared by every copy of the package.
   * @default {$KUBELOOP_TESTENV_CACHE, else $XDG_CACHE_HOME/kubeloop-testenv, else ~/.cache/kubeloop-testenv}
   */
  readonly cacheDir?: string;
  /**
   * Also run kube-controller-manager (garbage collector, namespace, service-account and
   * clusterrole-aggregation controllers), so owned objects are collected, namespaces deleted and the
   * aggregated ClusterRoles (admin, edit, view) filled as in a real cluster.
   * @default {true}
   */
  readonly controllerManager?: boolean;
  /**
   * Reads KUBELOOP_TESTENV_BIN, and for the default cacheDir KUBELOOP_TESTENV_CACHE, XDG_CACHE_HOME and HOME.
   * @default {Deno.env.get}
   */
  readonly env?: (name: string) => string | undefined;
}

/** A running local control plane; stop it (or dispose it) when done. */
export interface TestEnv extends AsyncDisposable {
  /** The API server URL, `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** Path of an admin kubeconfig (client certificate in `system:masters`), for `loadConfig({ kubeconfig })`. */
  readonly kubeconfig: string;
  /** The state directory (PKI, component logs); removed by `stop()`. */
  readonly dir: string;
  /** The binaries in use. */
  readonly binDir: string;
  /** A kubectl of the same version. */
  readonly kubectl: string;
  /** Stops etcd, kube-apiserver and kube-controller-manager and removes the state directory. */
  stop(): Promise<void>;
}

/**
 * Starts a real Kubernetes control plane on 127.0.0.1 — etcd (embedded), kube-apiserver and, by default,
 * kube-controller-manager — built from the Kubernetes Go modules, and resolves once the API server is ready
 * (a few seconds). For integration tests of a controller: `await using env = await startTestEnv()`, then
 * `loadConfig({ kubeconfig: env.kubeconfig })`.
 *
 * Needs: Linux or macOS, `--allow-run --allow-read --allow-write --allow-env` (or `-A`), and the binaries:
 * either `KUBELOOP_TESTENV_BIN` (or `binDir`) names a directory built by kubeloop's `tests/testenv/build.sh`,
 * or startTestEnv builds them itself from the Go sources this package carries (however it was loaded: a
 * checkout, a copied folder, JSR), with `bash` and Go ≥ 1.26 on PATH and the Go module proxy reachable. The
 * first build takes 15–20 minutes on 2 cores (its progress goes to `<cacheDir>/build-*.log`); later
 * starts find the binaries in `cacheDir` and take seconds. A missing or old Go, or a failed build, is an
 * error saying so (with the end of the build log and its path). `KUBELOOP_K8S_VERSION=1.34` in the
 * environment builds and starts the oldest supported Kubernetes release instead of the newest.
 * Nothing listens beyond 127.0.0.1. The processes stop with `stop()`, and also when this process exits.
 *
 * @example An integration test against a real kube-apiserver
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeClient, loadConfig, NAMESPACES } from "@kubeloop/kubeloop";
 * import { startTestEnv } from "@kubeloop/kubeloop/testing";
 *
 * await using env = await startTestEnv({ controllerManager: false }); // stopped when `env` leaves scope
 * await using client = new KubeClient(await loadConfig({ kubeconfig: env.kubeconfig }));
 * const namespaces = await client.list(NAMESPACES);
 * assert.ok(namespaces.items.some((ns) => ns.metadata.name === "default"));
 * ```
 */
export async function startTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const env = options.env ?? ((name) => Deno.env.get(name));
  const fromEnv = env("KUBELOOP_TESTENV_BIN");
  const binDir = options.binDir ?? fromEnv ?? await buildControlPlane(options.cacheDir ?? cacheDirFrom(env));
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(`${binDir}/testenv`, {
      args: [
        "-print=json",
        "-exit-on-stdin-eof",
        "-log-file=/dev/null",
        `-bin=${binDir}`,
        `-controller-manager=${options.controllerManager ?? true}`,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    const from = options.binDir !== undefined
      ? "binDir"
      : fromEnv !== undefined
      ? "KUBELOOP_TESTENV_BIN"
      : "the build in cacheDir";
    throw new Error(
      `Cannot run "${binDir}/testenv" (from ${from}): ${(error as Error).message}. ` +
        "The directory must hold the binaries built by kubeloop's tests/testenv/build.sh",
      { cause: error },
    );
  }
  const stderr = collectTail(child.stderr);
  const line = await firstLine(child.stdout);
  if (!line.startsWith("{")) {
    await child.stdin.close().catch(() => {});
    await child.status;
    throw new Error(`The local control plane did not start:\n${await stderr}`);
  }
  const info = JSON.parse(line) as { server: string; kubeconfig: string; dir: string };
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      // testenv stops everything and removes its state directory when its standard input closes.
      await child.stdin.close().catch(() => {});
      await child.status;
      await stderr;
    })();
  return {
    server: info.server,
    kubeconfig: info.kubeconfig,
    dir: info.dir,
    binDir,
    kubectl: `${binDir}/kubectl`,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Reads until the first newline; the rest of the stream is drained in the background. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  return text.split("\n")[0]?.trim() ?? "";
}

/** Reads `stream` to its end, keeping the last 4000 characters (start-up errors). */
async function collectTail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let tail = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) tail = (tail + chunk).slice(-4000);
  return tail;
}

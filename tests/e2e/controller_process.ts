import { join } from "node:path";
import { connect } from "node:tls";
import { kubectlOk, testEnv } from "../_util/testenv.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { metricsScraperToken } from "../_util/sample_controller.ts";
import { freePort, startTaskFlags } from "../_util/start_task.ts";

const root = new URL("../../", import.meta.url).pathname;

export { freePort, startTaskFlags, taskFlags } from "../_util/start_task.ts";

/** The controller running as a subprocess "in-cluster": service env + a service-account directory. */
export interface ControllerProcess extends AsyncDisposable {
  readonly healthUrl: string;
  /** `https://127.0.0.1:<port>/metrics` (secure metrics, the default). */
  readonly metricsUrl: string;
  /** GET /metrics with `token` (none: no Authorization header), trusting the certificate the port serves. */
  fetchMetrics(token: string | undefined): Promise<{ status: number; body: string }>;
  /** The exposition, scraped as a ServiceAccount bound to the metrics-reader ClusterRole; throws unless 200. */
  scrapeMetrics(): Promise<string>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number>;
  /** Everything the process logged so far. */
  logs(): string;
  /** The process id (to sample its memory). */
  readonly pid: number;
  /** The exit code once the process exited by itself or was stopped; undefined while it runs. */
  exitCode(): number | undefined;
}

/** Options of {@linkcode startController}. */
export interface ControllerProcessOptions {
  /** Where the controller connects (KUBERNETES_SERVICE_HOST/PORT). @default the test kube-apiserver */
  readonly apiServer?: { readonly hostname: string; readonly port: number };
  /**
   * Permission and V8 flags of `deno run`, or a function of the service-account and home directories
   * that returns them. @default the start task's ({@linkcode startTaskFlags})
   */
  readonly denoFlags?: readonly string[] | ((dirs: { saDir: string; home: string }) => readonly string[]);
  /** A module run before main.ts in the same process, with the same permissions (`--preload`). */
  readonly preload?: string;
  /** Environment variables added to the in-cluster ones. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A TokenRequest token of the controller's service account (kubeloop-system/kubeloop-sample-controller). */
export async function controllerAccountToken(duration = "1h"): Promise<string> {
  return (await kubectlOk([
    "create",
    "token",
    "kubeloop-sample-controller",
    "-n",
    "kubeloop-system",
    `--duration=${duration}`,
  ])).trim();
}

/**
 * Issues a TokenRequest token for the manifests' ServiceAccount and starts main.ts with exactly the start
 * task's permissions, in in-cluster mode: KUBERNETES_SERVICE_HOST/PORT point at the test apiserver and
 * KUBELOOP_SERVICE_ACCOUNT_DIR at a directory holding token, ca.crt and namespace.
 */
export async function startController(
  extraArgs: string[] = [],
  options: ControllerProcessOptions = {},
): Promise<ControllerProcess> {
  const token = await controllerAccountToken();
  const saDir = await Deno.makeTempDir({ prefix: "kubeloop-sa-" });
  const home = await Deno.makeTempDir({ prefix: "kubeloop-home-" });
  await Deno.writeTextFile(join(saDir, "token"), token);
  await Deno.copyFile(join(testEnv.dir, "ca.crt"), join(saDir, "ca.crt"));
  await Deno.writeTextFile(join(saDir, "namespace"), "kubeloop-system");
  const server = options.apiServer
    ? { hostname: options.apiServer.hostname, port: String(options.apiServer.port) }
    : new URL(testEnv.server);
  const healthPort = freePort();
  const metricsPort = freePort();
  const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...(typeof options.denoFlags === "function"
        ? options.denoFlags({ saDir, home })
        : options.denoFlags ?? await startTaskFlags()),
      ...(options.preload ? [`--preload=${options.preload}`] : []),
      join(root, "main.ts"),
      "--leader-elect",
      `--health-probe-bind-address=127.0.0.1:${healthPort}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      "--log-level=debug",
      ...extraArgs,
    ],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      DENO_DIR: denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      // `deno task coverage`: the process's coverage counts too.
      ...(Deno.env.get("DENO_COVERAGE_DIR") ? { DENO_COVERAGE_DIR: Deno.env.get("DENO_COVERAGE_DIR")! } : {}),
      KUBERNETES_SERVICE_HOST: server.hostname,
      KUBERNETES_SERVICE_PORT: server.port,
      KUBELOOP_SERVICE_ACCOUNT_DIR: saDir,
      ...options.env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const captured = captureOutput(child, "controller");
  let exitCode: number | undefined;
  void child.status.then((s) => exitCode = s.code);
  let exited: Promise<number> | undefined;
  const stop = () => {
    if (!exited) {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      exited = child.status.then(async (s) => {
        await captured.done;
        await Deno.remove(saDir, { recursive: true });
        await Deno.remove(home, { recursive: true });
        return s.code;
      });
    }
    return exited;
  };
  // With --metrics-secure=false the endpoint is plain, open HTTP (what tests that scrape while the API
  // server is down need: a secure scrape is authorized through it).
  const plain = extraArgs.includes("--metrics-secure=false");
  const metricsUrl = `${plain ? "http" : "https"}://127.0.0.1:${metricsPort}/metrics`;
  const fetchMetrics = async (token: string | undefined) => {
    const client = plain
      ? Deno.createHttpClient({})
      : Deno.createHttpClient({ caCerts: [await servedCertificate("127.0.0.1", metricsPort)] });
    try {
      const res = await fetch(metricsUrl, {
        client,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: await res.text() };
    } finally {
      client.close();
    }
  };
  let readerToken: Promise<string> | undefined;
  return {
    healthUrl: `http://127.0.0.1:${healthPort}`,
    metricsUrl,
    fetchMetrics,
    async scrapeMetrics() {
      if (!plain) readerToken ??= metricsScraperToken("reader");
      const { status, body } = await fetchMetrics(plain ? undefined : await readerToken);
      if (status !== 200) throw new Error(`GET ${metricsUrl} answered ${status}: ${body}`);
      return body;
    },
    stop,
    logs: () => captured.text(),
    pid: child.pid,
    exitCode: () => exitCode,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/**
 * The certificate a TLS server presents (PEM), read from a handshake that does not verify it, so a test can
 * then pin it and verify everything else (name, signature) with a strict client.
 */
export function servedCertificate(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false, servername: "localhost" }, () => {
      const der = new Uint8Array(socket.getPeerCertificate(true).raw);
      socket.destroy();
      let binary = "";
      for (const byte of der) binary += String.fromCharCode(byte);
      const lines = btoa(binary).match(/.{1,64}/g) ?? [];
      resolve(`-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`);
    });
    socket.on("error", (error: Error) => {
      socket.destroy();
      reject(error);
    });
  });
}

/**
 * The programs bench/controller/run.ts measures, from their spec strings:
 *
 * - `kubeloop`: main.ts of this tree, run by `deno run` with exactly the permission and V8 flags of
 *   deno.json's "start" task (the shipped binary's flags);
 * - `kubeloop@DIR`: main.ts and deno.json of another tree, e.g. an older commit unpacked with
 *   `git archive` (to measure a code lever against its baseline in the same run);
 * - `…+FLAG,FLAG`: the same with `--v8-flags=` replaced by these V8 flags (`+` alone: none);
 * - `go`: our Go stand-in for sample-controller (bench/peers/client_go/sample_controller).
 */
import { join } from "node:path";

/** How to start one program and how it reports that its caches synced. */
export interface Program {
  /** The spec string, shown in the tables. */
  readonly name: string;
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  /** "readyz": poll the health server; "stdout": wait for a "ready" line. */
  readonly ready: { kind: "readyz"; url: string } | { kind: "stdout" };
}

/** Where the in-cluster credentials of each program live. */
export interface Credentials {
  readonly server: URL;
  /** Directory with token, ca.crt and namespace, for kubeloop's in-cluster mode. */
  readonly kubeloopServiceAccountDir: string;
  /** Token file and CA file of the Go stand-in's service account. */
  readonly goTokenFile: string;
  readonly caFile: string;
}

const repo = new URL("../../", import.meta.url).pathname;

/** The permission and V8 flags of a deno.json's "start" task. */
export async function startTaskFlags(denoJson: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(denoJson)) as { tasks: Record<string, string> };
  const words = (config.tasks["start"] ?? "").split(/\s+/);
  return words.filter((w) =>
    w.startsWith("--allow-") || w.startsWith("--ignore-env") || w.startsWith("--deny-") ||
    w.startsWith("--v8-flags")
  );
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Turns a spec string into a Program. */
export async function program(spec: string, creds: Credentials, goBinary: string): Promise<Program> {
  if (spec === "go") {
    return {
      name: spec,
      command: goBinary,
      args: [`-server=${creds.server.href}`, `-token-file=${creds.goTokenFile}`, `-ca-file=${creds.caFile}`],
      env: {},
      ready: { kind: "stdout" },
    };
  }
  const match = spec.match(/^kubeloop(?:@([^+]+))?(?:\+(.*))?$/);
  if (!match) {
    throw new Error(`Unknown program "${spec}": use kubeloop, kubeloop@DIR, kubeloop+V8FLAGS or go`);
  }
  const dir = match[1] ?? repo;
  let flags = await startTaskFlags(join(dir, "deno.json"));
  if (match[2] !== undefined) {
    flags = flags.filter((f) => !f.startsWith("--v8-flags"));
    if (match[2] !== "") flags.push(`--v8-flags=${match[2]}`);
  }
  const health = freePort();
  const metrics = freePort();
  const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
  return {
    name: spec,
    command: Deno.execPath(),
    args: [
      "run",
      `--config=${join(dir, "deno.json")}`,
      "--cached-only",
      ...flags,
      join(dir, "main.ts"),
      `--health-probe-bind-address=127.0.0.1:${health}`,
      `--metrics-bind-address=127.0.0.1:${metrics}`,
    ],
    env: {
      DENO_DIR: denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      HOME: "/nonexistent",
      KUBERNETES_SERVICE_HOST: creds.server.hostname,
      KUBERNETES_SERVICE_PORT: creds.server.port,
      KUBELOOP_SERVICE_ACCOUNT_DIR: creds.kubeloopServiceAccountDir,
    },
    ready: { kind: "readyz", url: `http://127.0.0.1:${health}/readyz` },
  };
}

/**
 * Replicas of the reference controller sharing Foos over a control plane of their own (with the API
 * server's audit log of every write), for the scale-out tests and the bench. Imports nothing that starts
 * the suite's shared control plane.
 * @module
 */
import { join } from "node:path";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import type { Deployment } from "../../lib/resources/apps_v1.ts";
import { DEPLOYMENTS, NAMESPACES } from "../../lib/resources/refs.ts";
import { FOOS } from "../../lib/sample_controller/types.ts";
import type { Foo } from "../../lib/sample_controller/types.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { registerSecret } from "../_util/test_logs.ts";
import { startTaskFlags } from "../_util/start_task.ts";
import { type OwnedTestEnv, startOwnedTestEnv } from "../_util/testenv_process.ts";

const root = new URL("../../", import.meta.url).pathname;

/** One JSON log line of a replica. */
export type LogLine = Record<string, unknown> & { msg?: string; time?: string };

/** A controller process of the group. */
export interface Replica {
  /** Its shard identity (read from its log once it joined). */
  identity: string;
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<number>;
  /** Sends a signal; remembers SIGKILL time for the audit. */
  kill(signal: Deno.Signal): void;
  /** Parsed JSON log lines so far. */
  lines(): LogLine[];
  /** Raw output so far. */
  output(): string;
  /** When it was SIGKILLed (ms), if it was. */
  killedAt?: number;
}

/** Options of {@linkcode ShardHarness.start}. */
export interface HarnessOptions {
  /** Extra testenv flags (e.g. the gate off). */
  readonly testenvArgs?: readonly string[];
  /** The API server's audit log of writes to Foos, Deployments and Leases. @default true */
  readonly audit?: boolean;
  /** Use this control plane (disposed with the harness) instead of starting one; no audit log then. */
  readonly controlPlane?: ControlPlaneLike;
}

/** A running control plane the harness can use (tests' OwnedTestEnv, the benches' ControlPlane). */
export type ControlPlaneLike =
  & Pick<OwnedTestEnv, "server" | "kubeconfig" | "dir" | "kubectl">
  & AsyncDisposable
  & { readonly control?: string };

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Request
    verbs: ["create", "update", "patch", "delete"]
    resources: [{ group: "coordination.k8s.io", resources: ["leases"] }]
  - level: Metadata
    verbs: ["create", "update", "patch", "delete"]
    resources:
      - { group: "apps", resources: ["deployments"] }
      - { group: "samplecontroller.k8s.io", resources: ["foos", "foos/status"] }
  - level: None
`;

/** One audit event (the fields the audit reads). */
export interface AuditEvent {
  readonly verb: string;
  readonly userAgent?: string;
  readonly objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  readonly responseStatus?: { code?: number };
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  readonly requestObject?: { spec?: { holderIdentity?: string } };
}

/** A control plane, a namespace for Foos, one for the group's Leases, and the replicas. */
export class ShardHarness implements AsyncDisposable {
  readonly replicas: Replica[] = [];
  /** Every Foo created through the harness: name → uid (names are never reused). */
  readonly uids = new Map<string, string>();
  #next = 0;

  private constructor(
    readonly env: ControlPlaneLike,
    readonly client: KubeClient,
    readonly dir: string,
    readonly namespace: string,
    readonly group: string,
  ) {}

  /** Starts the control plane (no workloads: Deployments are only objects here), installs the CRD. */
  static async start(options: HarnessOptions = {}): Promise<ShardHarness> {
    const dir = await Deno.makeTempDir({ prefix: "kubeloop-shard-" });
    const audit = options.audit ?? options.controlPlane === undefined;
    if (audit) await Deno.writeTextFile(join(dir, "audit-policy.yaml"), AUDIT_POLICY);
    const env = options.controlPlane ?? await startOwnedTestEnv([
      "-workloads=false",
      "-controller-manager=false",
      ...(audit
        ? [
          `-apiserver-arg=--audit-policy-file=${join(dir, "audit-policy.yaml")}`,
          `-apiserver-arg=--audit-log-path=${join(dir, "audit.log")}`,
          "-apiserver-arg=--audit-log-maxsize=0",
        ]
        : []),
      ...options.testenvArgs ?? [],
    ]);
    const client = new KubeClient(await loadConfig({ kubeconfig: env.kubeconfig }), { qps: 0 });
    const harness = new ShardHarness(env, client, dir, `foos-${crypto.randomUUID().slice(0, 6)}`, "foos");
    await harness.kubectl(["apply", "-f", join(root, "crds", "samplecontroller.k8s.io_foos.yaml")]);
    await harness.kubectl([
      "wait",
      "--for=condition=Established",
      "crd/foos.samplecontroller.k8s.io",
      "--timeout=60s",
    ]);
    await client.create(NAMESPACES, { metadata: { name: harness.namespace } });
    return harness;
  }

  /** Runs kubectl with the admin kubeconfig; throws with its stderr on failure. */
  async kubectl(args: readonly string[]): Promise<string> {
    const out = await new Deno.Command(this.env.kubectl, {
      args: [`--kubeconfig=${this.env.kubeconfig}`, ...args],
      stdout: "piped",
      stderr: "piped",
      env: { KUBECONFIG: "" },
    }).output();
    const text = new TextDecoder();
    if (!out.success) throw new Error(`kubectl ${args.join(" ")}: ${text.decode(out.stderr)}`);
    return text.decode(out.stdout);
  }

  /** Starts a replica: `--shards` and timing from `args`, Leases in the Foo namespace. */
  async startReplica(args: readonly string[], options: { kubeconfig?: string } = {}): Promise<Replica> {
    const name = `r${this.#next++}`;
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...await startTaskFlags(),
        join(root, "main.ts"),
        `--kubeconfig=${options.kubeconfig ?? this.env.kubeconfig}`,
        `--namespace=${this.namespace}`,
        `--shard-group=${this.group}`,
        `--shard-namespace=${this.namespace}`,
        "--metrics-bind-address=0",
        "--health-probe-bind-address=0",
        "--log-level=debug",
        "--workers=4",
        ...args,
      ],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: Deno.env.get("HOME") ?? "/root",
        DENO_NO_UPDATE_CHECK: "1",
        ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
        ...(Deno.env.get("DENO_COVERAGE_DIR")
          ? { DENO_COVERAGE_DIR: Deno.env.get("DENO_COVERAGE_DIR")! }
          : {}),
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const captured = captureOutput(child, `shard-${name}`);
    const exited = child.status.then(async (s) => {
      await captured.done;
      return s.code;
    });
    let parsed: LogLine[] = [];
    let parsedLength = 0;
    const replica: Replica = {
      identity: "",
      name,
      pid: child.pid,
      exited,
      kill: (signal) => {
        if (signal === "SIGKILL") replica.killedAt = Date.now();
        try {
          child.kill(signal);
        } catch { /* gone */ }
      },
      output: () => captured.text(),
      lines: () => {
        const text = captured.text();
        if (text.length !== parsedLength) {
          parsed = text.split("\n").filter((l) => l.startsWith("{")).map((l) => {
            try {
              return JSON.parse(l) as LogLine;
            } catch {
              return { msg: l };
            }
          });
          parsedLength = text.length;
        }
        return parsed;
      },
    };
    this.replicas.push(replica);
    return replica;
  }

  /** Waits until `replica` logged its shard identity. */
  async joined(replica: Replica, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      () => {
        const line = replica.lines().find((l) => l.msg === "Shard selector support");
        if (line) replica.identity = String(line.identity);
        return line !== undefined;
      },
      timeoutMs,
      () => `replica ${replica.name} did not join:\n${replica.output().slice(-3000)}`,
    );
  }

  /** Creates `count` Foos named `<prefix>-<i>`, 16 at a time. */
  async createFoos(prefix: string, count: number): Promise<void> {
    const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    for (let i = 0; i < names.length; i += 16) {
      await Promise.all(
        names.slice(i, i + 16).map(async (name) => {
          const foo = await this.client.create(FOOS, {
            apiVersion: "samplecontroller.k8s.io/v1alpha1",
            kind: "Foo",
            metadata: { name, namespace: this.namespace },
            spec: { deploymentName: name, replicas: 1 },
          });
          this.uids.set(name, foo.metadata.uid ?? "");
        }),
      );
    }
  }

  /**
   * Until `signal` aborts: every ~100 ms changes a random Foo's replicas, and every tenth round creates a
   * Foo and deletes another. Returns the number of changes made.
   */
  async churn(signal: AbortSignal, random: () => number = Math.random): Promise<number> {
    let changes = 0;
    let created = 0;
    const names = [...this.uids.keys()];
    while (!signal.aborted) {
      const name = names[Math.floor(random() * names.length)]!;
      try {
        if (changes % 10 === 9) {
          const fresh = `churn-${created++}`;
          await this.createFoos(fresh, 1);
          names.push(`${fresh}-0`);
          await this.client.delete(FOOS, name, { namespace: this.namespace });
          names.splice(names.indexOf(name), 1);
        } else {
          await this.client.patch(FOOS, name, { spec: { replicas: 1 + Math.floor(random() * 3) } }, {
            namespace: this.namespace,
            type: "merge",
          });
        }
        changes++;
      } catch { /* the Foo was deleted meanwhile, or the server is busy: churn goes on */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    return changes;
  }

  /** Foos and Deployments of the namespace. */
  async snapshot(): Promise<{ foos: Foo[]; deployments: Deployment[] }> {
    const [foos, deployments] = await Promise.all([
      this.client.list(FOOS, { namespace: this.namespace }),
      this.client.list(DEPLOYMENTS, { namespace: this.namespace }),
    ]);
    return { foos: foos.items, deployments: deployments.items };
  }

  /** Foos not converged yet: status for their generation missing, or no Deployment they control. */
  async unconverged(): Promise<string[]> {
    const { foos, deployments } = await this.snapshot();
    const owned = new Set(
      deployments.flatMap((d) =>
        (d.metadata.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid)
      ),
    );
    return foos.filter((f) =>
      f.status?.observedGeneration !== f.metadata.generation || !owned.has(f.metadata.uid ?? "")
    ).map((f) => f.metadata.name ?? "");
  }

  /** Waits until every Foo converged; returns how long it took. */
  async converge(timeoutMs: number): Promise<number> {
    const started = Date.now();
    let left: string[] = [];
    await waitFor(
      async () => (left = await this.unconverged()).length === 0,
      timeoutMs,
      () => `${left.length} Foos did not converge (${left.slice(0, 5).join(", ")}…)`,
      500,
    );
    return Date.now() - started;
  }

  /** A kubeconfig of a user `cn` that RBAC grants nothing (a client certificate minted by the control plane). */
  async kubeconfigFor(cn: string): Promise<string> {
    if (!this.env.control) throw new Error("This control plane has no control endpoint to mint certificates");
    const res = await fetch(`${this.env.control}/mint`, {
      method: "POST",
      body: JSON.stringify({ cn, groups: [], keyType: "ec-pkcs8", expired: false, untrusted: false }),
    });
    if (!res.ok) throw new Error(`mint failed: ${res.status} ${await res.text()}`);
    const { cert, key } = await res.json() as { cert: string; key: string };
    registerSecret(key, `minted client key (cn ${cn})`);
    const b64 = (text: string) => btoa(text);
    const ca = await Deno.readTextFile(join(this.env.dir, "ca.crt"));
    const path = join(this.dir, `kubeconfig-${cn}`);
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{
          name: "c",
          cluster: { server: this.env.server, "certificate-authority-data": b64(ca) },
        }],
        users: [{ name: cn, user: { "client-certificate-data": b64(cert), "client-key-data": b64(key) } }],
        contexts: [{ name: "c", context: { cluster: "c", user: cn } }],
        "current-context": "c",
      }),
      { mode: 0o600 },
    );
    return path;
  }

  /** The API server's audit events so far. */
  async audit(): Promise<AuditEvent[]> {
    const text = await Deno.readTextFile(join(this.dir, "audit.log")).catch(() => "");
    return text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as AuditEvent);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const r of this.replicas) r.kill("SIGKILL");
    await Promise.all(this.replicas.map((r) => r.exited));
    await this.client[Symbol.asyncDispose]();
    await this.env[Symbol.asyncDispose]();
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

/** Polls `cond` until true, or throws `message()` after `timeoutMs`. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  message: () => string,
  intervalMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(message());
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * What "converged" means for the Foo controller, checked from the server's own state (fresh lists
 * with an admin client straight to kube-apiserver), and how long each Foo took to get there.
 *
 * A live Foo is right when its Deployment exists, is controlled by it (ownerReference with its
 * UID), has its replicas and the pod template the controller writes, and the Foo's status describes
 * its current generation: `observedGeneration`, `availableReplicas` equal to the Deployment's (0
 * while no Pod runs; it follows the Pods when a cluster runs them) and a Ready condition that agrees.
 * A deleted Foo is right when no Deployment it controlled is left (kube-controller-manager's garbage
 * collector removes them).
 */
import type { KubeClient } from "../../lib/client/mod.ts";
import { controllerOf } from "../../lib/controller/mod.ts";
import { DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { type Deployment, type Foo, FOOS } from "../../lib/sample_controller/types.ts";

/** What is wrong with one Foo, or undefined when it is right. */
export function fooProblem(foo: Foo, deployments: ReadonlyMap<string, Deployment>): string | undefined {
  const name = foo.spec?.deploymentName ?? "";
  const generation = foo.metadata.generation;
  const ready = foo.status?.conditions?.find((c) => c.type === "Ready");
  if (name === "") {
    return ready?.reason === "InvalidSpec" && ready.observedGeneration === generation
      ? undefined
      : "no InvalidSpec condition";
  }
  const d = deployments.get(name);
  if (!d) return "no Deployment";
  const owner = controllerOf(d);
  if (owner?.kind === "Foo" && owner.uid !== foo.metadata.uid) {
    return WAITING_FOR_GC;
  }
  if (owner?.uid !== foo.metadata.uid) {
    // Someone else's Deployment of that name: reported, never taken over.
    return ready?.reason === "ErrResourceExists" ? undefined : "Deployment of another owner, not reported";
  }
  if (d.spec?.replicas !== foo.spec?.replicas) return `Deployment has ${d.spec?.replicas} replicas`;
  const container = d.spec?.template?.spec?.containers?.[0];
  if (container?.image !== "nginx:latest") return "Deployment template differs";
  if (d.metadata.deletionTimestamp) return "Deployment is being deleted";
  const available = d.status?.availableReplicas ?? 0;
  const status = foo.status;
  if (status?.observedGeneration !== generation) return "status.observedGeneration is behind";
  if ((status?.availableReplicas ?? 0) !== available) return "status.availableReplicas differs";
  if (!ready || ready.observedGeneration !== generation) return "Ready condition is behind";
  const want = available === foo.spec?.replicas ? "True" : "False";
  if (ready.status !== want) return `Ready is ${ready.status}, expected ${want}`;
  return undefined;
}

/** The state of one namespace, read in one go. */
export interface Snapshot {
  readonly at: number;
  readonly foos: Foo[];
  readonly deployments: Map<string, Deployment>;
  /** Foo name -> problem, for every live Foo that is not right. */
  readonly problems: Map<string, string>;
  /** Deployments controlled by a Foo that no longer exists (garbage not yet collected). */
  readonly orphans: string[];
}

/** Reads Foos and Deployments of `namespace` and checks them. */
export async function snapshot(
  client: KubeClient,
  namespace: string,
  options: { foreign?: ReadonlySet<string> } = {},
): Promise<Snapshot> {
  const [foos, deps] = await Promise.all([
    client.list<Foo>(FOOS, { namespace }),
    client.list<Deployment>(DEPLOYMENTS, { namespace }),
  ]);
  const at = Date.now();
  const deployments = new Map(deps.items.map((d) => [d.metadata.name ?? "", d]));
  const liveUids = new Set(foos.items.map((f) => f.metadata.uid));
  const problems = new Map<string, string>();
  for (const foo of foos.items) {
    const problem = fooProblem(foo, deployments);
    if (problem) problems.set(foo.metadata.name ?? "", problem);
  }
  const orphans = deps.items
    .filter((d) => !options.foreign?.has(d.metadata.name ?? ""))
    .filter((d) => !liveUids.has(controllerOf(d)?.uid ?? ""))
    .map((d) => d.metadata.name ?? "");
  return { at, foos: foos.items, deployments, problems, orphans };
}

/** The problem of a Foo that only the garbage collector can solve (its name is still taken). */
export const WAITING_FOR_GC = "Deployment still controlled by a deleted Foo of the same name";

/** How the namespace converged after `since`. */
export interface Convergence {
  /**
   * Per live Foo: ms until it was right for good (0 when it already was), counted from `since` or,
   * for a Foo re-created under the name of a deleted one, from the poll that saw the garbage
   * collector remove the old Deployment (until then only kube-controller-manager can make progress).
   */
  readonly perFoo: Map<string, number>;
  /** The slowest Foos, with the last problem each had. */
  readonly slowest: { name: string; ms: number; lastProblem: string }[];
  /** ms from `since` until no orphaned Deployment was left. */
  readonly gcMs: number;
  /** The last snapshot taken. */
  readonly last: Snapshot;
  /** True when everything was right before the deadline. */
  readonly converged: boolean;
}

/**
 * Polls (every `intervalMs`) until every live Foo is right and no orphan is left, or `timeoutMs` after
 * `since`. The time of a Foo is the poll that first saw it right after its last wrong poll.
 */
export async function waitForConvergence(
  client: KubeClient,
  namespace: string,
  options: { since: number; timeoutMs: number; intervalMs?: number; foreign?: ReadonlySet<string> },
): Promise<Convergence> {
  const { since, timeoutMs, intervalMs = 250 } = options;
  const rightSince = new Map<string, number>();
  const blockedAt = new Map<string, number>();
  const lastProblem = new Map<string, string>();
  let gcAt: number | undefined;
  const result = (snap: Snapshot, converged: boolean): Convergence => {
    const live = new Set(snap.foos.map((f) => f.metadata.name ?? ""));
    const perFoo = new Map<string, number>();
    for (const [name, at] of rightSince) {
      if (live.has(name)) perFoo.set(name, Math.max(0, at - Math.max(since, blockedAt.get(name) ?? since)));
    }
    const slowest = [...perFoo].sort((a, b) => b[1] - a[1]).slice(0, 5)
      .map(([name, ms]) => ({ name, ms, lastProblem: lastProblem.get(name) ?? "" }));
    return { perFoo, slowest, gcMs: converged ? gcAt ?? 0 : NaN, last: snap, converged };
  };
  let last: Snapshot | undefined;
  for (;;) {
    let snap: Snapshot | undefined;
    try {
      snap = await snapshot(client, namespace, options.foreign ? { foreign: options.foreign } : {});
    } catch {
      // The server may still be recovering; try again.
    }
    if (snap) {
      last = snap;
      for (const foo of snap.foos) {
        const name = foo.metadata.name ?? "";
        const problem = snap.problems.get(name);
        if (problem) {
          rightSince.delete(name);
          lastProblem.set(name, problem);
          if (problem === WAITING_FOR_GC) blockedAt.set(name, snap.at);
        } else if (!rightSince.has(name)) {
          rightSince.set(name, snap.at);
        }
      }
      if (snap.orphans.length === 0) gcAt ??= Math.max(0, snap.at - since);
      else gcAt = undefined;
      if (snap.problems.size === 0 && snap.orphans.length === 0) return result(snap, true);
    }
    if (Date.now() - since > timeoutMs) {
      if (!last) throw new Error(`Cannot read namespace ${namespace} within ${timeoutMs} ms`);
      return result(last, false);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The p-th percentile (0..100) of `values` (nearest rank); NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** A few problems, for failure messages. */
export function describeProblems(snap: Snapshot, max = 10): string {
  const lines = [...snap.problems].slice(0, max).map(([name, problem]) => `  ${name}: ${problem}`);
  if (snap.problems.size > max) lines.push(`  ... and ${snap.problems.size - max} more`);
  if (snap.orphans.length > 0) lines.push(`  orphaned Deployments: ${snap.orphans.slice(0, max).join(", ")}`);
  return lines.join("\n");
}

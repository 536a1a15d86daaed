/**
 * Random Foo churn in one namespace: creates, scales and deletes Foos from a fixed pool of names, as
 * users would, at a steady rate. It writes straight to kube-apiserver (not through the fault proxy)
 * and keeps going when writes fail (the server may be down): the end state is read back from the
 * server, so a write whose outcome is unknown does no harm.
 */
import { ApiError, type KubeClient } from "../../lib/client/mod.ts";
import { type Foo, FOOS } from "../../lib/sample_controller/types.ts";

/** Options of {@linkcode startChurn}. */
export interface ChurnOptions {
  readonly namespace: string;
  /** Size of the name pool (at most this many Foos exist at once). */
  readonly foos: number;
  /** Operations per second. */
  readonly opsPerSecond: number;
  /** Pseudo-random source (seeded by the caller). */
  readonly random: () => number;
}

/** What the churn did. */
export interface ChurnCounts {
  created: number;
  scaled: number;
  deleted: number;
  /** Writes that failed (server down, timeouts, races); each is counted once. */
  failed: number;
}

/** A running churn. */
export interface Churn {
  readonly counts: ChurnCounts;
  /** Stops after the operation in flight; resolves when it is done. */
  stop(): Promise<void>;
}

/** Name of pool member `i`. */
export function fooName(i: number): string {
  return `churn-${String(i).padStart(3, "0")}`;
}

/** A Foo of the pool whose Deployment has its name. */
export function fooObject(namespace: string, name: string, replicas: number): Foo {
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace },
    spec: { deploymentName: name, replicas },
  };
}

/** Creates every Foo of the pool (errors other than AlreadyExists are thrown). */
export async function createPool(client: KubeClient, namespace: string, foos: number): Promise<void> {
  const names = Array.from({ length: foos }, (_, i) => fooName(i));
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(
      names.slice(i, i + 20).map(async (name) => {
        try {
          await client.create(FOOS, fooObject(namespace, name, 1 + (i % 10)));
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 409)) throw error;
        }
      }),
    );
  }
}

/** Starts churning; the pool should have been created (see {@linkcode createPool}). */
export function startChurn(client: KubeClient, options: ChurnOptions): Churn {
  const { namespace, random } = options;
  const exists = new Map<string, boolean>();
  for (let i = 0; i < options.foos; i++) exists.set(fooName(i), true);
  const counts: ChurnCounts = { created: 0, scaled: 0, deleted: 0, failed: 0 };
  const interval = 1000 / options.opsPerSecond;
  let stopped = false;

  const once = async () => {
    const name = fooName(Math.floor(random() * options.foos));
    const replicas = 1 + Math.floor(random() * 10);
    try {
      if (!exists.get(name)) {
        await client.create(FOOS, fooObject(namespace, name, replicas), {
          signal: AbortSignal.timeout(10_000),
        });
        exists.set(name, true);
        counts.created++;
      } else if (random() < 0.75) {
        await client.patch(FOOS, name, { spec: { replicas } }, {
          type: "merge",
          namespace,
          signal: AbortSignal.timeout(10_000),
        });
        counts.scaled++;
      } else {
        await client.delete(FOOS, name, { namespace, signal: AbortSignal.timeout(10_000) });
        exists.set(name, false);
        counts.deleted++;
      }
    } catch (error) {
      counts.failed++;
      if (error instanceof ApiError && error.code === 409) exists.set(name, true);
      if (error instanceof ApiError && error.isNotFound) exists.set(name, false);
    }
  };
  const loop = (async () => {
    let next = Date.now();
    while (!stopped) {
      await once();
      next += interval;
      const wait = next - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else next = Date.now(); // behind (server down): do not burst to catch up
    }
  })();
  return {
    counts,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Scales `count` existing Foos of the pool to a new replica count at once: changes made the moment
 * the server is back, which the controller can only handle once its watches work again.
 */
export async function touchFoos(
  client: KubeClient,
  namespace: string,
  foos: number,
  count: number,
  random: () => number,
): Promise<number> {
  let touched = 0;
  const picks = new Set<number>();
  while (picks.size < Math.min(count, foos)) picks.add(Math.floor(random() * foos));
  await Promise.all([...picks].map(async (i) => {
    const replicas = 1 + Math.floor(random() * 10);
    try {
      await client.patch(FOOS, fooName(i), { spec: { replicas } }, { type: "merge", namespace });
      touched++;
    } catch {
      // Deleted by the churn: nothing to touch.
    }
  }));
  return touched;
}

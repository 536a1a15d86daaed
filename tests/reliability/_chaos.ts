/**
 * A random fault schedule for a {@linkcode FaultProxy}: at random intervals one open link gets a
 * random fault. Seeded, so a failing run can be replayed with the seed it printed.
 */
import type { FaultKind, FaultProxy } from "../_util/fault_proxy.ts";
import { seededRandom } from "../_util/seeded_random.ts";

/** Options of {@linkcode startChaos}. */
export interface ChaosOptions {
  /** Seed of the pseudo-random sequence. */
  readonly seed: number;
  /** Mean time between two faults (exponentially distributed). @default 700 */
  readonly meanIntervalMs?: number;
  /** Relative weights of the fault kinds. @default see DEFAULT_WEIGHTS */
  readonly weights?: Partial<Record<FaultKind, number>>;
  /** Range of stall durations. @default [300, 8000] */
  readonly stallMs?: readonly [number, number];
  /** Range of added latency. @default [20, 400] */
  readonly latencyMs?: readonly [number, number];
}

/** Resets and stalls dominate: they are what kills watches and requests in real networks. */
export const DEFAULT_WEIGHTS: Record<FaultKind, number> = {
  reset: 30,
  stall: 25,
  blackhole: 8,
  latency: 17,
  halfCloseToClient: 10,
  halfCloseToServer: 10,
};

/** A running schedule. */
export interface Chaos {
  /** Stops injecting and heals the proxy (see `FaultProxy.heal`); resolves with the time it did. */
  stop(): number;
  /** Unix ms of the last fault injected (0 if none). */
  readonly lastFaultAt: number;
}

/** Starts injecting faults into `proxy` until `stop()`. */
export function startChaos(proxy: FaultProxy, options: ChaosOptions): Chaos {
  const random = seededRandom(options.seed);
  const weights = Object.entries({ ...DEFAULT_WEIGHTS, ...options.weights }) as [FaultKind, number][];
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  const [stallMin, stallMax] = options.stallMs ?? [300, 8000];
  const [latMin, latMax] = options.latencyMs ?? [20, 400];
  const mean = options.meanIntervalMs ?? 700;
  const between = (lo: number, hi: number) => Math.round(lo + random() * (hi - lo));
  let lastFaultAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const pick = (): FaultKind => {
    let r = random() * total;
    for (const [kind, w] of weights) {
      if ((r -= w) < 0) return kind;
    }
    return weights[0]![0];
  };
  const inject = () => {
    const links = proxy.links().filter((l) => !l.broken);
    if (links.length > 0) {
      const link = links[Math.floor(random() * links.length)]!;
      const kind = pick();
      switch (kind) {
        case "reset":
          proxy.reset(link);
          break;
        case "stall":
          proxy.stall(link, between(stallMin, stallMax));
          break;
        case "blackhole":
          proxy.blackhole(link);
          break;
        case "latency":
          proxy.addLatency(link, between(latMin, latMax));
          break;
        case "halfCloseToClient":
          proxy.halfClose(link, "toClient");
          break;
        case "halfCloseToServer":
          proxy.halfClose(link, "toServer");
          break;
      }
      lastFaultAt = Date.now();
    }
    schedule();
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(inject, Math.round(-Math.log(1 - random()) * mean));
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      proxy.heal();
      return Date.now();
    },
    get lastFaultAt() {
      return lastFaultAt;
    },
  };
}

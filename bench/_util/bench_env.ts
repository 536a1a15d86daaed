/**
 * The two knobs every `deno bench` file reads from the environment, so the test suite can run each of them
 * at a tiny size (tests/bench/deno_bench_smoke_test.ts): `KUBELOOP_BENCH_N`, the objects per input (list
 * items, watch events, queue keys), and `KUBELOOP_BENCH_ITERATIONS`, the measured iterations of every
 * `Deno.bench` case (with no warm-up). Without `--allow-env` for them (`deno bench bench/watch_bench.ts`)
 * the bench's own defaults apply.
 * @module
 */

function fromEnv(name: string): number | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return undefined;
  const text = Deno.env.get(name);
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got "${text}"`);
  }
  return value;
}

/** The input size: `KUBELOOP_BENCH_N` when set, else `fallback`. */
export function benchSize(fallback: number): number {
  return fromEnv("KUBELOOP_BENCH_N") ?? fallback;
}

/**
 * The `n` and `warmup` options of a `Deno.bench` case: `KUBELOOP_BENCH_ITERATIONS` measured iterations and
 * no warm-up when that is set, else `defaults` (none: Deno's own time budget decides).
 */
export function benchIterations(defaults: { n: number; warmup: number }): { n: number; warmup: number };
export function benchIterations(): { n?: number; warmup?: number };
export function benchIterations(defaults?: { n: number; warmup: number }): { n?: number; warmup?: number } {
  const n = fromEnv("KUBELOOP_BENCH_ITERATIONS");
  if (n !== undefined) return { n, warmup: 0 };
  return defaults ?? {};
}

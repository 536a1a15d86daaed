/**
 * Work-queue throughput: distinct keys, heavy duplicates, concurrent workers, delayed adds.
 *
 *   deno bench bench/queue_bench.ts
 *   (KUBELOOP_BENCH_N keys, KUBELOOP_BENCH_ITERATIONS per case with --allow-env: see _util/bench_env.ts)
 * @module
 */
import { WorkQueue } from "../lib/queue/work_queue.ts";
import { RateLimitingQueue } from "../lib/queue/rate_limiting_queue.ts";
import { benchIterations, benchSize } from "./_util/bench_env.ts";

const KEYS = Array.from({ length: benchSize(10_000) }, (_, i) => `namespace-${i % 50}/object-${i}`);
/** The duplicates case spreads ten adds per key of KEYS over this many keys. */
const DUPLICATE_KEYS = Math.min(100, KEYS.length);
const ITERATIONS = benchIterations();
/** 10000 → "10k", as the case names read. */
const count = (n: number) => n % 1000 === 0 ? `${n / 1000}k` : String(n);

Deno.bench(`add/get/done of ${count(KEYS.length)} distinct keys`, {
  group: "queue",
  baseline: true,
  ...ITERATIONS,
}, async () => {
  const queue = new WorkQueue();
  for (const key of KEYS) queue.add(key);
  for (
    let key = await queue.get();
    key !== undefined;
    key = queue.len() > 0 ? await queue.get() : undefined
  ) {
    queue.done(key);
  }
  await queue.shutDown();
});

Deno.bench(
  `${count(10 * KEYS.length)} adds over ${DUPLICATE_KEYS} keys (heavy duplicates), then drain`,
  { group: "queue", ...ITERATIONS },
  async () => {
    const queue = new WorkQueue();
    for (let i = 0; i < 10 * KEYS.length; i++) queue.add(KEYS[i % DUPLICATE_KEYS]!);
    while (queue.len() > 0) queue.done((await queue.get())!);
    await queue.shutDown();
  },
);

Deno.bench(
  `4 async workers process ${count(3 * KEYS.length)} adds: 3 rounds of ${
    count(KEYS.length)
  } keys, none collapsed`,
  {
    group: "queue",
    ...ITERATIONS,
  },
  async () => {
    // Every add must be processed: a key added while it waits in the queue collapses into the waiting
    // one (the queue is "stingy"), which would let a bench that adds everything up front do a third of
    // the work. So each round of adds starts only when the workers have taken the previous round, and
    // the count of processed keys is checked.
    const queue = new WorkQueue();
    let processed = 0;
    let taken = 0;
    let roundTaken = Promise.withResolvers<void>();
    const worker = async () => {
      for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
        if (++taken % KEYS.length === 0) roundTaken.resolve();
        await Promise.resolve(); // a reconcile takes at least a turn of the event loop
        processed++;
        queue.done(key);
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    for (let round = 0; round < 3; round++) {
      for (const key of KEYS) queue.add(key);
      await roundTaken.promise;
      roundTaken = Promise.withResolvers<void>();
    }
    await queue.shutDown();
    await Promise.all(workers);
    if (processed !== 3 * KEYS.length) throw new Error(`processed ${processed} of ${3 * KEYS.length} adds`);
  },
);

Deno.bench(
  `rate-limiting queue: ${count(KEYS.length)} addAfter with shuffled delays, then shutdown`,
  { group: "delay", ...ITERATIONS },
  async () => {
    const queue = new RateLimitingQueue();
    for (let i = 0; i < KEYS.length; i++) queue.addAfter(KEYS[i]!, 1_000 + ((i * 7919) % 10_000));
    await queue.shutDown();
  },
);

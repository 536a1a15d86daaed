import { WorkQueue } from "../lib/queue/work_queue.ts";
import { RateLimitingQueue } from "../lib/queue/rate_limiting_queue.ts";

const KEYS = Array.from({ length: 10_000 }, (_, i) => `namespace-${i % 50}/object-${i}`);

Deno.bench("add/get/done of 10k distinct keys", { group: "queue", baseline: true }, async () => {
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

Deno.bench("100k adds over 100 keys (heavy duplicates), then drain", { group: "queue" }, async () => {
  const queue = new WorkQueue();
  for (let i = 0; i < 100_000; i++) queue.add(KEYS[i % 100]!);
  while (queue.len() > 0) queue.done((await queue.get())!);
  await queue.shutDown();
});

Deno.bench("4 async workers process 30k adds: 3 rounds of 10k keys, none collapsed", {
  group: "queue",
}, async () => {
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
});

Deno.bench(
  "rate-limiting queue: 10k addAfter with shuffled delays, then shutdown",
  { group: "delay" },
  async () => {
    const queue = new RateLimitingQueue();
    for (let i = 0; i < KEYS.length; i++) queue.addAfter(KEYS[i]!, 1_000 + ((i * 7919) % 10_000));
    await queue.shutDown();
  },
);

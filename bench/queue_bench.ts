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

Deno.bench("4 async workers draining 10k keys added 3 times each", { group: "queue" }, async () => {
  const queue = new WorkQueue();
  let processed = 0;
  const worker = async () => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      processed++;
      queue.done(key);
      if (processed >= KEYS.length && queue.len() === 0) void queue.shutDown();
    }
  };
  const workers = [worker(), worker(), worker(), worker()];
  for (let round = 0; round < 3; round++) for (const key of KEYS) queue.add(key);
  await Promise.all(workers);
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

import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { queueMetricsFor } from "../../lib/queue/queue_metrics_registry.ts";
import { RateLimitingQueue } from "../../lib/queue/rate_limiting_queue.ts";
import { FakeClock } from "../_util/fake_clock.ts";

function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  assert.ok(line, `no sample ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

Deno.test("queue metrics use controller-runtime's names and start at zero", () => {
  const registry = new MetricsRegistry();
  new RateLimitingQueue({ clock: new FakeClock(), metrics: queueMetricsFor(registry, "foo") });
  const text = registry.render();
  for (
    const name of [
      "workqueue_depth",
      "workqueue_adds_total",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
      "workqueue_retries_total",
      "workqueue_queue_duration_seconds_count",
      "workqueue_work_duration_seconds_count",
    ]
  ) {
    assert.equal(sample(text, `${name}{name="foo"}`), 0, name);
  }
  assert.match(text, /# TYPE workqueue_queue_duration_seconds histogram/);
  assert.match(text, /workqueue_work_duration_seconds_bucket\{name="foo",le="1e-8"\} 0/);
  assert.match(text, /workqueue_work_duration_seconds_bucket\{name="foo",le="1000"\} 0/);
});

Deno.test("queue metrics follow a queue's adds, gets, dones and retries", async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  const queue = new RateLimitingQueue({ clock, metrics: queueMetricsFor(registry, "foo") });
  const other = new RateLimitingQueue({ clock, metrics: queueMetricsFor(registry, "bar") });
  queue.add("a");
  queue.add("b");
  queue.add("a");
  other.add("z");
  let text = registry.render();
  assert.equal(sample(text, 'workqueue_depth{name="foo"}'), 2);
  assert.equal(sample(text, 'workqueue_adds_total{name="foo"}'), 2);
  assert.equal(sample(text, 'workqueue_depth{name="bar"}'), 1);
  await clock.advance(2000);
  const a = await queue.get();
  await clock.advance(3000);
  text = registry.render();
  assert.equal(sample(text, 'workqueue_unfinished_work_seconds{name="foo"}'), 3);
  assert.equal(sample(text, 'workqueue_longest_running_processor_seconds{name="foo"}'), 3);
  assert.equal(sample(text, 'workqueue_queue_duration_seconds_sum{name="foo"}'), 2);
  queue.done(a!);
  queue.addRateLimited("a");
  text = registry.render();
  assert.equal(sample(text, 'workqueue_depth{name="foo"}'), 1);
  assert.equal(sample(text, 'workqueue_work_duration_seconds_sum{name="foo"}'), 3);
  assert.equal(sample(text, 'workqueue_work_duration_seconds_bucket{name="foo",le="10"}'), 1);
  assert.equal(sample(text, 'workqueue_work_duration_seconds_bucket{name="foo",le="1"}'), 0);
  assert.equal(sample(text, 'workqueue_retries_total{name="foo"}'), 1);
  assert.equal(sample(text, 'workqueue_unfinished_work_seconds{name="foo"}'), 0);
  await queue.shutDown();
  await other.shutDown();
});

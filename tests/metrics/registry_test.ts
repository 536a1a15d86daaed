import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { exponentialBuckets } from "../../lib/metrics/exposition.ts";
import { checkMetrics } from "../_util/metrics_check.ts";

Deno.test("a small registry renders exactly in the text exposition format", () => {
  const registry = new MetricsRegistry();
  const requests = registry.counter("http_requests_total", "Requests served.\nBy code \\ method.", [
    "code",
    "method",
  ]);
  requests.inc({ code: "200", method: "GET" });
  requests.inc({ method: "GET", code: "200" }, 2);
  requests.inc({ code: "500", method: 'P"O\\ST\n' });
  const up = registry.gauge("up", "Whether it is up.");
  up.set(1);
  const latency = registry.histogram("latency_seconds", "Latency.", {
    labelNames: ["path"],
    buckets: [0.1, 1],
  });
  latency.observe({ path: "/a" }, 0.05);
  latency.observe({ path: "/a" }, 0.5);
  latency.observe({ path: "/a" }, 0.1);
  latency.observe({ path: "/a" }, 3);
  assert.equal(
    registry.render(),
    [
      "# HELP http_requests_total Requests served.\\nBy code \\\\ method.",
      "# TYPE http_requests_total counter",
      'http_requests_total{code="200",method="GET"} 3',
      'http_requests_total{code="500",method="P\\"O\\\\ST\\n"} 1',
      "# HELP latency_seconds Latency.",
      "# TYPE latency_seconds histogram",
      'latency_seconds_bucket{path="/a",le="0.1"} 2',
      'latency_seconds_bucket{path="/a",le="1"} 3',
      'latency_seconds_bucket{path="/a",le="+Inf"} 4',
      'latency_seconds_sum{path="/a"} 3.65',
      'latency_seconds_count{path="/a"} 4',
      "# HELP up Whether it is up.",
      "# TYPE up gauge",
      "up 1",
      "",
    ].join("\n"),
  );
});

Deno.test("unlabelled metrics render zero before use; labelled ones render no series", () => {
  const registry = new MetricsRegistry();
  registry.counter("a_total", "A.");
  registry.counter("b_total", "B.", ["x"]);
  registry.histogram("c_seconds", "C.", { buckets: [1] });
  assert.equal(
    registry.render(),
    "# HELP a_total A.\n# TYPE a_total counter\na_total 0\n# HELP b_total B.\n# TYPE b_total counter\n" +
      '# HELP c_seconds C.\n# TYPE c_seconds histogram\nc_seconds_bucket{le="1"} 0\nc_seconds_bucket{le="+Inf"} 0\n' +
      "c_seconds_sum 0\nc_seconds_count 0\n",
  );
  assert.equal(new MetricsRegistry().render(), "");
});

Deno.test("histograms use Prometheus' default buckets unless given others", () => {
  const registry = new MetricsRegistry();
  const h = registry.histogram("d_seconds", "D.");
  assert.deepEqual(h.buckets, [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  h.observe(7);
  assert.match(registry.render(), /d_seconds_bucket\{le="5"\} 0\nd_seconds_bucket\{le="10"\} 1\n/);
  assert.deepEqual(exponentialBuckets(1e-8, 10, 4), [1e-8, 1e-7, 1e-6, 1e-5]);
  assert.throws(() => registry.histogram("e_seconds", "E.", { buckets: [1, 1] }), RangeError);
  assert.throws(() => registry.histogram("e_seconds", "E.", { buckets: [Number.NaN] }), RangeError);
});

Deno.test("gauges go up and down and callback gauges are read at render", () => {
  const registry = new MetricsRegistry();
  const g = registry.gauge("g", "G.", ["q"]);
  g.set({ q: "a" }, 5);
  g.inc({ q: "a" });
  g.dec({ q: "a" }, 3);
  let depth = 1;
  g.setFunction({ q: "b" }, () => depth);
  depth = 7;
  assert.equal(g.get({ q: "a" }), 3);
  assert.match(registry.render(), /g\{q="a"\} 3\ng\{q="b"\} 7\n/);
  depth = 8;
  assert.match(registry.render(), /g\{q="b"\} 8\n/);
  g.set({ q: "b" }, 1);
  depth = 9;
  assert.match(registry.render(), /g\{q="b"\} 1\n/, "set replaces the callback");
});

Deno.test("registering a name again returns the same metric only if type and labels match", () => {
  const registry = new MetricsRegistry();
  const c = registry.counter("x_total", "X.", ["a"]);
  assert.equal(registry.counter("x_total", "other help", { labelNames: ["a"] }), c);
  assert.throws(() => registry.gauge("x_total", "X.", ["a"]), TypeError);
  assert.throws(() => registry.counter("x_total", "X.", ["b"]), TypeError);
  assert.throws(() => registry.counter("x_total", "X."), TypeError);
  const pair = registry.counter("pair_total", "P.", ["a", "b"]);
  pair.inc({ a: "x\u0000", b: "" });
  pair.inc({ a: "x", b: "\u0000" });
  assert.equal(pair.get({ a: "x", b: "\u0000" }), 1, "label values never collide");
  const h = registry.histogram("h_seconds", "H.", { buckets: [1, 2] });
  assert.equal(registry.histogram("h_seconds", "H.", { buckets: [1, 2] }), h);
  assert.throws(() => registry.histogram("h_seconds", "H.", { buckets: [1, 3] }), TypeError);
});

Deno.test("invalid metric names, label names and label sets are TypeErrors", () => {
  const registry = new MetricsRegistry();
  assert.throws(() => registry.counter("1abc", "bad"), TypeError);
  assert.throws(() => registry.counter("a-b", "bad"), TypeError);
  assert.throws(() => registry.counter("ok_total", "bad", ["__x"]), TypeError);
  assert.throws(() => registry.counter("ok_total", "bad", ["a", "a"]), TypeError);
  assert.throws(() => registry.histogram("h", "bad", ["le"]), TypeError);
  const c = registry.counter("c_total", "C.", ["a"]);
  assert.throws(() => c.inc(), TypeError);
  assert.throws(() => c.inc({ a: "x", b: "y" }), TypeError);
  assert.throws(() => c.inc({ b: "y" }), TypeError);
  assert.throws(() => c.inc({ a: "x" }, -1), RangeError);
  assert.equal(c.get({ a: "x" }), 0);
  const g = registry.gauge("g", "G.", ["a"]);
  assert.throws(() => g.set({ a: "x" }), TypeError);
  assert.throws(() => registry.histogram("h_seconds", "H.", ["a"]).observe({ a: "x" }), TypeError);
});

Deno.test("special values render as +Inf, -Inf and NaN", () => {
  const registry = new MetricsRegistry();
  const g = registry.gauge("g", "G.", ["k"]);
  g.set({ k: "a" }, Infinity);
  g.set({ k: "b" }, -Infinity);
  g.set({ k: "c" }, Number.NaN);
  assert.match(registry.render(), /g\{k="a"\} \+Inf\ng\{k="b"\} -Inf\ng\{k="c"\} NaN\n/);
});

Deno.test("the metrics checker accepts a registry with every metric type", async () => {
  const registry = new MetricsRegistry();
  registry.counter("demo_requests_total", "Requests.", ["code"]).inc({ code: 'a"b\\c\nd' }, 3);
  registry.counter("demo_plain_total", "Plain counter.");
  registry.gauge("demo_temperature_celsius", "Temperature.").set(21.5);
  registry.gauge("demo_queue_items", "Callback gauge.", ["name"]).setFunction({ name: "q" }, () => 4);
  const h = registry.histogram("demo_latency_seconds", "Latency.", ["path"]);
  h.observe({ path: "/x" }, 0.3);
  h.observe({ path: "/y" }, 30);
  registry.histogram("demo_size_bytes", "Sizes.", { buckets: exponentialBuckets(64, 4, 5) }).observe(100);
  const text = registry.render();
  const { code, output } = await checkMetrics(text);
  assert.equal(code, 0, `metrics-check failed:\n${output}\n---\n${text}`);
  assert.equal(output.trim(), "");
});

Deno.test("the metrics checker rejects exposition that breaks the rules, so a pass means something", async () => {
  const unsuffixed = "# HELP things_done Things.\n# TYPE things_done counter\nthings_done 1\n";
  const lint = await checkMetrics(unsuffixed);
  assert.equal(lint.code, 3, lint.output);
  assert.match(lint.output, /^things_done: counter metrics should have "_total" suffix$/m);
  const broken = await checkMetrics("broken{ 1\n");
  assert.equal(broken.code, 1, broken.output);
  assert.match(broken.output, /parsing error in line 1/);
  const twice = await checkMetrics(
    '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 1\na_total{x="1"} 2\n',
  );
  assert.equal(twice.code, 1, twice.output);
  assert.match(twice.output, /series a_total\{x="1"\} appears more than once/);
  const fixed = await checkMetrics(unsuffixed.replaceAll("things_done", "things_done_total"));
  assert.equal(fixed.code, 0, fixed.output);
});

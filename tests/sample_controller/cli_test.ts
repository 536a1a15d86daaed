import assert from "node:assert/strict";
import { ConfigError } from "../../lib/config/mod.ts";
import { createLogger } from "../../lib/log/create_logger.ts";
import { cli, type CliOptions } from "../../lib/sample_controller/cli.ts";
import type { ControllerFlags } from "../../lib/sample_controller/flags.ts";

function harness(run: CliOptions["run"] = () => Promise.resolve()) {
  const out: string[] = [];
  const err: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const shutdown = new AbortController();
  const options: CliOptions = {
    version: "9.9.9",
    program: "sc",
    signal: shutdown.signal,
    run,
    write: (stream, text) => (stream === "stdout" ? out : err).push(text),
    createLogger: (o) => createLogger({ ...o, format: "json", write: (line) => logs.push(JSON.parse(line)) }),
  };
  return { options, out, err, logs, shutdown };
}

Deno.test("--help prints the usage on stdout and exits 0 without running", async () => {
  let ran = false;
  const h = harness(() => Promise.resolve(void (ran = true)));
  assert.equal(await cli(["--help"], h.options), 0);
  assert.match(h.out.join(""), /^Usage: sc \[flags\]/);
  assert.equal(ran, false);
});

Deno.test("--version prints the program and version", async () => {
  const h = harness();
  assert.equal(await cli(["-version"], h.options), 0);
  assert.deepEqual(h.out, ["sc 9.9.9\n"]);
});

Deno.test("a bad flag exits 2 with one stderr line naming it, and nothing runs", async () => {
  let ran = false;
  const h = harness(() => Promise.resolve(void (ran = true)));
  assert.equal(await cli(["--workers=zero"], h.options), 2);
  assert.deepEqual(h.err, [
    'sc: invalid value "zero" for flag --workers: must be an integer from 1 to 1000\n',
  ]);
  assert.equal(ran, false);
});

Deno.test("the parsed flags reach the runner, and a clean return exits 0", async () => {
  let seen: ControllerFlags | undefined;
  const h = harness((flags) => Promise.resolve(void (seen = flags)));
  assert.equal(await cli(["-kubeconfig=/k", "--workers", "4"], h.options), 0);
  assert.equal(seen?.kubeconfig, "/k");
  assert.equal(seen?.workers, 4);
  assert.deepEqual(h.logs.map((l) => l["msg"]), ["Starting", "Stopped"]);
});

Deno.test("--log-level sets the runner's logger level: debug lines appear with debug, not with the default", async () => {
  const probe: CliOptions["run"] = (_flags, { logger }) => {
    logger.debug("probe at debug");
    logger.info("probe at info");
    return Promise.resolve();
  };
  const verbose = harness(probe);
  assert.equal(await cli(["--log-level=debug"], verbose.options), 0);
  assert.deepEqual(
    verbose.logs.filter((l) => String(l["msg"]).startsWith("probe")).map((l) => [l["level"], l["msg"]]),
    [["debug", "probe at debug"], ["info", "probe at info"]],
  );
  const quiet = harness(probe);
  assert.equal(await cli([], quiet.options), 0);
  assert.deepEqual(quiet.logs.filter((l) => String(l["msg"]).startsWith("probe")).map((l) => l["msg"]), [
    "probe at info",
  ]);
  const klog = harness(probe);
  assert.equal(await cli(["-v=4"], klog.options), 0, "upstream's klog -v 4 means debug");
  assert.ok(klog.logs.some((l) => l["msg"] === "probe at debug"));
});

Deno.test("a ConfigError exits 2 and logs its message", async () => {
  const h = harness(() =>
    Promise.reject(
      new ConfigError('Cannot read kubeconfig "/x": the file does not exist', {
        reason: "NotFound",
        file: "/x",
      }),
    )
  );
  assert.equal(await cli([], h.options), 2);
  assert.ok(
    h.logs.some((l) =>
      l["level"] === "error" && l["msg"] === 'Cannot read kubeconfig "/x": the file does not exist'
    ),
  );
});

Deno.test("a runtime failure exits 1", async () => {
  const h = harness(() => Promise.reject(new Error("caches did not sync")));
  assert.equal(await cli([], h.options), 1);
  assert.ok(h.logs.some((l) => l["level"] === "error" && l["msg"] === "Fatal error"));
});

Deno.test("shutdown by signal exits 0, also when the runner rejects with the abort reason", async () => {
  const h = harness((_flags, { signal }) =>
    new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)))
  );
  const done = cli([], h.options);
  h.shutdown.abort(new Error("Received SIGTERM, shutting down"));
  assert.equal(await done, 0);
});

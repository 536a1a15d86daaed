import assert from "node:assert/strict";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import { ConfigError, TokenFileSource } from "../../lib/config/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { MemFs } from "./_helpers.ts";

function setup(token = "one") {
  const fs = new MemFs({ "/t": `${token}\n` });
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const source = new TokenFileSource("/t", { readTextFile: fs.readTextFile, clock, logger });
  return { fs, clock, source, logger };
}

Deno.test("the token file is read on first use and trimmed", async () => {
  const { fs, source } = setup();
  assert.equal(fs.count("/t"), 0);
  assert.deepEqual(await source.get(), { token: "one" });
  assert.equal(fs.count("/t"), 1);
});

Deno.test("the token is not re-read before 60 s, and is re-read once 60 s have passed", async () => {
  const { fs, clock, source } = setup();
  await source.get();
  fs.files.set("/t", "two");
  await clock.advance(59_999);
  assert.deepEqual(await source.get(), { token: "one" });
  assert.equal(fs.count("/t"), 1);
  await clock.advance(1);
  assert.deepEqual(await source.get(), { token: "two" });
  assert.equal(fs.count("/t"), 2);
  assert.deepEqual(await source.get(), { token: "two" });
  assert.equal(fs.count("/t"), 2, "the fresh read restarts the 60 s window");
});

Deno.test("invalidate() makes the next get() re-read immediately", async () => {
  const { fs, source } = setup();
  await source.get();
  fs.files.set("/t", "rotated");
  assert.deepEqual(await source.get(), { token: "one" });
  source.invalidate();
  assert.deepEqual(await source.get(), { token: "rotated" });
  assert.equal(fs.count("/t"), 2);
});

Deno.test("the refresh interval is configurable", async () => {
  const fs = new MemFs({ "/t": "a" });
  const clock = new FakeClock();
  const source = new TokenFileSource("/t", { readTextFile: fs.readTextFile, clock, refreshMs: 1000 });
  await source.get();
  await clock.advance(1000);
  await source.get();
  assert.equal(fs.count("/t"), 2);
});

Deno.test("concurrent get() calls share one read", async () => {
  const { fs, source } = setup();
  const results = await Promise.all([source.get(), source.get(), source.get()]);
  assert.deepEqual(results, [{ token: "one" }, { token: "one" }, { token: "one" }]);
  assert.equal(fs.count("/t"), 1);
});

Deno.test("a failed periodic re-read keeps the previous token with a warning and retries next time", async () => {
  const { fs, clock, source, logger } = setup();
  await source.get();
  fs.files.delete("/t");
  await clock.advance(60_000);
  assert.deepEqual(await source.get(), { token: "one" });
  assert.equal(logger.messages("warn").length, 1);
  fs.files.set("/t", "back");
  assert.deepEqual(await source.get(), { token: "back" });
});

Deno.test("a failed read after invalidate() rejects, since the old token was refused", async () => {
  const { fs, source } = setup();
  await source.get();
  fs.files.delete("/t");
  source.invalidate();
  const error = await source.get().catch((e: unknown) => e);
  assert.ok(error instanceof ConfigError);
  assert.equal(error.reason, "Unreadable");
  assert.equal(error.file, "/t");
  assert.match(error.message, /^Cannot read token file "\/t": No such file/);
});

Deno.test("an empty token file is an error", async () => {
  const { source } = setup("  ");
  await assert.rejects(source.get(), (e: unknown) => e instanceof ConfigError && /is empty/.test(e.message));
});

Deno.test("get() with an aborted signal rejects with its reason", async () => {
  const { source } = setup();
  const controller = new AbortController();
  controller.abort(new Error("gone"));
  await assert.rejects(source.get(controller.signal), /gone/);
});

import assert from "node:assert/strict";
import { createLogger, type LoggerOptions } from "../../lib/log/create_logger.ts";
import { FakeClock } from "../_util/fake_clock.ts";

const START = Date.UTC(2026, 0, 1);

function capture(options: LoggerOptions = {}) {
  const lines: string[] = [];
  const logger = createLogger({ clock: new FakeClock(START), write: (line) => lines.push(line), ...options });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line)) };
}

Deno.test("a JSON line has ts, level, msg and the fields, in that order", () => {
  const { logger, lines } = capture();
  logger.info("synced", { controller: "foo", items: 3, ok: true });
  assert.deepEqual(lines, [
    '{"ts":"2026-01-01T00:00:00.000Z","level":"info","msg":"synced","controller":"foo","items":3,"ok":true}',
  ]);
});

Deno.test("lines below the level are dropped and info is the default level", () => {
  const info = capture();
  info.logger.debug("hidden");
  info.logger.info("i");
  info.logger.warn("w");
  info.logger.error("e");
  assert.deepEqual(info.parsed().map((l) => l.level), ["info", "warn", "error"]);
  const warn = capture({ level: "warn" });
  warn.logger.info("hidden");
  warn.logger.warn("w");
  assert.equal(warn.lines.length, 1);
  const debug = capture({ level: "debug" });
  debug.logger.debug("d");
  assert.equal(debug.parsed()[0].level, "debug");
});

Deno.test("an unknown level or format is a RangeError", () => {
  assert.throws(() => createLogger({ level: "trace" as "info" }), RangeError);
  assert.throws(() => createLogger({ format: "xml" as "json" }), RangeError);
  assert.throws(() => createLogger({ level: "toString" as "info" }), RangeError);
});

Deno.test("child loggers merge their fields, and call fields win", () => {
  const { logger, parsed } = capture();
  const child = logger.child({ controller: "foo", worker: 1 }).child({ worker: 2 });
  child.info("reconciled", { key: "ns/a" });
  logger.info("parent");
  assert.deepEqual(parsed()[0], {
    ts: "2026-01-01T00:00:00.000Z",
    level: "info",
    msg: "reconciled",
    controller: "foo",
    worker: 2,
    key: "ns/a",
  });
  assert.equal(parsed()[1].controller, undefined, "the parent is unchanged");
});

Deno.test("fields named like credentials are redacted at any depth", () => {
  const { logger, lines, parsed } = capture();
  logger.info("config", {
    token: "abc123",
    Authorization: "Bearer abc123",
    user: { password: "hunter2", name: "bob", "client-key-data": "LS0t", "client-certificate-data": "LS0t" },
    clientSecret: "s3cret",
    items: [{ bearerToken: "abc123" }],
  });
  assert.equal(lines[0]!.includes("abc123"), false);
  assert.equal(lines[0]!.includes("hunter2"), false);
  assert.equal(lines[0]!.includes("LS0t"), false);
  assert.equal(lines[0]!.includes("s3cret"), false);
  const line = parsed()[0];
  assert.equal(line.token, "[redacted]");
  assert.equal(line.Authorization, "[redacted]");
  assert.deepEqual(line.user, {
    password: "[redacted]",
    name: "bob",
    "client-key-data": "[redacted]",
    "client-certificate-data": "[redacted]",
  });
  assert.deepEqual(line.items, [{ bearerToken: "[redacted]" }]);
});

Deno.test("private keys and certificate data are redacted in camelCase and wherever a key PEM appears", () => {
  const { logger, lines, parsed } = capture();
  const pem = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
  const ec =
    "-----BEGIN EC PARAMETERS-----\nBggq\n-----END EC PARAMETERS-----\n-----BEGIN EC PRIVATE KEY-----\n";
  logger.info("tls", {
    status: { clientCertificateData: "CERTPEM", clientKeyData: pem },
    tls: { cert: "CERTPEM", key: pem, caCerts: ["CAPEM"], serverName: "kube" },
    credentials: { key: ec, privateKey: "x", "private-key": "x", certData: "CERTPEM" },
    error: new Error(`cannot load ${ec}`),
    keyType: "ec-pkcs8",
    key: "default/foo",
  });
  assert.equal(lines[0]!.includes("PRIVATE KEY"), false);
  const line = parsed()[0];
  assert.deepEqual(line.status, { clientCertificateData: "[redacted]", clientKeyData: "[redacted]" });
  assert.deepEqual(line.tls, { cert: "CERTPEM", key: "[redacted]", caCerts: ["CAPEM"], serverName: "kube" });
  assert.deepEqual(line.credentials, {
    key: "[redacted]",
    privateKey: "[redacted]",
    "private-key": "[redacted]",
    certData: "[redacted]",
  });
  assert.equal(line.error.message, "[redacted]");
  assert.equal(line.keyType, "ec-pkcs8", "names merely containing 'key' stay readable");
  assert.equal(line.key, "default/foo", "a reconcile key is not a secret");
});

Deno.test("errors are written as name, message and cause, with a stack only at debug", () => {
  const error = new TypeError("bad value", { cause: new RangeError("too big") });
  const info = capture();
  info.logger.error("failed", { error });
  assert.deepEqual(info.parsed()[0].error, {
    name: "TypeError",
    message: "bad value",
    cause: { name: "RangeError", message: "too big" },
  });
  const debug = capture({ level: "debug" });
  debug.logger.error("failed", { error });
  assert.match(debug.parsed()[0].error.stack, /TypeError: bad value\n\s+at /);
});

Deno.test("own fields of domain errors are kept and secrets in them redacted", () => {
  class DomainError extends Error {
    code = 409;
    token = "abc";
    override name = "DomainError";
  }
  const { logger, parsed } = capture();
  logger.warn("conflict", { error: new DomainError("stale") });
  assert.deepEqual(parsed()[0].error, {
    name: "DomainError",
    message: "stale",
    code: 409,
    token: "[redacted]",
  });
});

Deno.test("odd values are written safely: cycles, bigint, dates, maps, bytes, non-finite numbers", () => {
  const { logger, parsed } = capture();
  const cycle: Record<string, unknown> = { name: "loop" };
  cycle.self = cycle;
  logger.info("odd", {
    cycle,
    big: 10n,
    when: new Date(START),
    map: new Map([["a", 1]]),
    set: new Set([1, 2]),
    bytes: new Uint8Array(3),
    nan: Number.NaN,
    missing: undefined,
    ts: "shadow",
  });
  const line = parsed()[0];
  assert.deepEqual(line.cycle, { name: "loop", self: "[circular]" });
  assert.equal(line.big, "10");
  assert.equal(line.when, "2026-01-01T00:00:00.000Z");
  assert.deepEqual(line.map, { a: 1 });
  assert.deepEqual(line.set, [1, 2]);
  assert.equal(line.bytes, "[3 bytes]");
  assert.equal(line.nan, "NaN");
  assert.equal("missing" in line, false);
  assert.equal(line.ts, "2026-01-01T00:00:00.000Z");
  assert.equal(line._ts, "shadow");
});

Deno.test("the text format is time, padded level, message and key=value pairs", () => {
  const { logger, lines } = capture({ format: "text" });
  logger.info("synced cache", { resource: "foos", count: 2, note: "two words", password: "x" });
  logger.warn("multi\nline", { error: new Error("boom", { cause: new Error("root") }) });
  assert.deepEqual(lines, [
    '2026-01-01T00:00:00.000Z INFO  synced cache resource=foos count=2 note="two words" password=[redacted]',
    '2026-01-01T00:00:00.000Z WARN  multi\\nline error="Error: boom (caused by Error: root)"',
  ]);
});

Deno.test("the text format appends the stack on its own lines at debug", () => {
  const { logger, lines } = capture({ format: "text", level: "debug" });
  logger.error("failed", { error: new Error("boom") });
  const [first, ...rest] = lines[0]!.split("\n");
  assert.equal(first, '2026-01-01T00:00:00.000Z ERROR failed error="Error: boom"');
  assert.match(rest[0]!, /^Error: boom$/);
});

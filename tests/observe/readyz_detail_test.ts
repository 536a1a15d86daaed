// The health probes are unauthenticated: they name the check that failed, never its reason (which holds the
// API server's words: user names, resources). The reason goes to the log, once per change.
import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { Manager } from "../../lib/controller/mod.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { type Check, serveObservability } from "../../lib/observe/mod.ts";
import { SECRETS } from "../../lib/resources/mod.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { ScriptedTransport, statusAnswer } from "../_util/scripted_transport.ts";

const USER = "system:serviceaccount:team-a:ci-bot";
const FORBIDDEN = `secrets is forbidden: User "${USER}" cannot list resource "secrets" in API group "" ` +
  `at the cluster scope`;

async function withProbe(readyz: Check, fn: (url: string, logger: MemoryLogger) => Promise<void>) {
  const logger = new MemoryLogger();
  const stop = new AbortController();
  const server = serveObservability({
    metricsAddress: "0",
    healthAddress: "127.0.0.1:0",
    registry: new MetricsRegistry(),
    readyz,
    signal: stop.signal,
    logger,
  });
  try {
    await fn(`${server.healthUrl}/readyz`, logger);
  } finally {
    stop.abort();
    await server.finished;
  }
}

/** Polls `fn` every 50 ms until it returns a value; fails after `timeoutMs`. */
async function poll<T>(fn: () => Promise<T | undefined>, timeoutMs: number, message: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
};

Deno.test("attack: a check that throws an ApiError naming a user answers 503 without its message; the log has it", async () => {
  const error = new ApiError({ code: 403, reason: "Forbidden", message: FORBIDDEN });
  await withProbe(() => Promise.reject(error), async (url, logger) => {
    const answer = await get(url);
    assert.equal(answer.status, 503);
    assert.doesNotMatch(answer.body, /ci-bot|forbidden|403/i, "the API server's words stay out of the body");
    assert.equal(answer.body, "[-]readyz failed: reason withheld\nreadyz check failed\n");
    const logged = JSON.stringify(logger.lines.filter((l) => l.level === "warn"));
    assert.match(logged, /ci-bot/, "the reason is in the log");
  });
});

Deno.test("failed checks are named in the body, their reasons only logged, once per change", async () => {
  let result: Awaited<ReturnType<Check>> = {
    ok: false,
    failures: [{ check: 'informer v1/secrets of controller "x"', reason: `Forbidden (403): ${FORBIDDEN}` }],
  };
  await withProbe(() => result, async (url, logger) => {
    const warnings = () => logger.lines.filter((l) => l.level === "warn");
    for (let i = 0; i < 5; i++) {
      const answer = await get(url);
      assert.equal(answer.status, 503);
      assert.equal(
        answer.body,
        '[-]informer v1/secrets of controller "x" failed: reason withheld\nreadyz check failed\n',
      );
    }
    assert.equal(warnings().length, 1, "five polls of the same failure, one log line");
    assert.deepEqual(warnings()[0]?.fields["failures"], [{
      check: 'informer v1/secrets of controller "x"',
      reason: `Forbidden (403): ${FORBIDDEN}`,
    }]);
    result = { ok: true };
    assert.deepEqual(await get(url), { status: 200, body: "ok\n" });
    result = false;
    assert.deepEqual(await get(url), { status: 503, body: "readyz check failed\n" });
  });
});

const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "default",
  source: "test",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
};

Deno.test("attack: the Manager's /readyz for an informer the API server refuses names the informer, not the user", async () => {
  const logger = new MemoryLogger();
  // The API server refuses the list with RBAC's message, which names the controller's user.
  const transport = new ScriptedTransport(() => statusAnswer(403, "Forbidden", FORBIDDEN));
  await using client = new KubeClient(config, { transport, maxRetries: 0 });
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const manager = new Manager(new SharedInformerFactory(client, { logger }), {
    metricsAddress: "0",
    healthAddress: `127.0.0.1:${port}`,
    logger,
  });
  manager.controller({ name: "secrets", for: SECRETS, reconcile: () => Promise.resolve() });
  const stop = new AbortController();
  const running = manager.run({ signal: stop.signal });
  try {
    // Wait until the informer has seen the refusal (it logs one error line), then ask.
    const answer = await poll(
      async () => {
        if (!logger.lines.some((l) => l.level === "error")) return undefined;
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        const body = (await res?.text()) ?? "";
        return res?.status === 503 ? body : undefined;
      },
      20_000,
      "the informer never reported the refusal",
    );
    assert.doesNotMatch(answer, /ci-bot|forbidden|403/i);
    assert.equal(
      answer,
      '[-]informer v1/secrets of controller "secrets" failed: reason withheld\nreadyz check failed\n',
    );
    const logged = logger.lines.filter((l) => l.msg === "The readyz check failed");
    assert.match(JSON.stringify(logged), /ci-bot/);
  } finally {
    stop.abort();
    await running;
  }
});

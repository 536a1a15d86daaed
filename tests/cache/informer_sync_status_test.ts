import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/mod.ts";
import { ApiError } from "../../lib/client/mod.ts";
import { SECRETS } from "../../lib/resources/mod.ts";
import { FakeApi, FakeClock, flush, MemoryLogger } from "../../lib/testing/mod.ts";

const forbidden = () =>
  new ApiError({
    code: 403,
    reason: "Forbidden",
    message:
      'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" at the cluster scope',
  });

Deno.test("an informer that cannot list says why: status, one error log line naming resource and status", async () => {
  const api = new FakeApi();
  api.seed(SECRETS, { metadata: { name: "s", namespace: "ns" } });
  api.fail({ resource: "secrets", times: 3, error: forbidden() });
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const informer = new Informer(api, SECRETS, { clock, logger, initialList: "paged", random: () => 1 });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  try {
    await clock.waitForTimers(1);
    const status = informer.syncStatus();
    assert.equal(status.resource, "v1/secrets");
    assert.equal(status.synced, false);
    assert.equal(status.lastError?.code, 403);
    assert.equal(status.lastError?.reason, "Forbidden");
    assert.match(status.lastError?.message ?? "", /cannot list resource "secrets"/);
    for (let i = 0; i < 3 && !informer.hasSynced(); i++) {
      await clock.advance(30_000);
      await flush();
    }
    assert.equal(informer.hasSynced(), true, "synced once the fault cleared");
    const errors = logger.lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1, "logged once, not on every retry");
    assert.equal(
      errors[0]?.msg,
      "Cannot list/watch v1/secrets: Forbidden (403); the RBAC rules of this identity do not allow list and watch on it",
    );
    assert.equal(errors[0]?.fields["resource"], "v1/secrets");
    assert.deepEqual(informer.syncStatus(), { resource: "v1/secrets", synced: true });
    assert.ok(logger.find("Listed after earlier failures"));
  } finally {
    stop.abort();
    await running;
  }
});

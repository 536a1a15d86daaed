import assert from "node:assert/strict";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import { ConfigError, inClusterConfig, isInCluster } from "../../lib/config/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { CA_PEM, envOf, MemFs } from "./_helpers.ts";

const DIR = "/var/sa";
const files = { [`${DIR}/token`]: "tok-1\n", [`${DIR}/ca.crt`]: CA_PEM, [`${DIR}/namespace`]: "apps" };

function env(host: string, port = "443") {
  return envOf({ KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port });
}

Deno.test("in-cluster config uses the service host and port, CA, token and namespace", async () => {
  const fs = new MemFs(files);
  const config = await inClusterConfig({
    dir: DIR,
    env: env("10.96.0.1", "6443"),
    readTextFile: fs.readTextFile,
  });
  assert.equal(config.server.href, "https://10.96.0.1:6443/");
  assert.deepEqual(config.tls, { caCerts: [CA_PEM] });
  assert.equal(config.namespace, "apps");
  assert.equal(config.source, "in-cluster");
  assert.equal(config.inCluster, true);
  assert.deepEqual(await config.credentials.get(), { token: "tok-1" });
});

Deno.test("an IPv6 service host is bracketed", async () => {
  const fs = new MemFs(files);
  const config = await inClusterConfig({
    dir: DIR,
    env: env("fd00:10:96::1"),
    readTextFile: fs.readTextFile,
  });
  assert.equal(config.server.href, "https://[fd00:10:96::1]/");
  assert.equal(config.server.hostname, "[fd00:10:96::1]");
});

Deno.test("the in-cluster token is re-read as it rotates", async () => {
  const fs = new MemFs(files);
  const clock = new FakeClock();
  const config = await inClusterConfig({
    dir: DIR,
    env: env("10.0.0.1"),
    readTextFile: fs.readTextFile,
    clock,
  });
  fs.files.set(`${DIR}/token`, "tok-2");
  assert.deepEqual(await config.credentials.get(), { token: "tok-1" });
  await clock.advance(60_000);
  assert.deepEqual(await config.credentials.get(), { token: "tok-2" });
  fs.files.set(`${DIR}/token`, "tok-3");
  config.credentials.invalidate();
  assert.deepEqual(await config.credentials.get(), { token: "tok-3" });
});

Deno.test("a missing namespace file means default", async () => {
  const fs = new MemFs({ [`${DIR}/token`]: "t", [`${DIR}/ca.crt`]: CA_PEM });
  const config = await inClusterConfig({ dir: DIR, env: env("10.0.0.1"), readTextFile: fs.readTextFile });
  assert.equal(config.namespace, "default");
});

/** Loads with `ca` as the content of ca.crt, or a read failure when it is an Error. */
async function caFailure(ca: string | Error): Promise<ConfigError> {
  const fs = new MemFs({ [`${DIR}/token`]: "t", [`${DIR}/namespace`]: "apps" });
  const readTextFile = (path: string) =>
    path !== `${DIR}/ca.crt`
      ? fs.readTextFile(path)
      : ca instanceof Error
      ? Promise.reject(ca)
      : Promise.resolve(ca);
  const logger = new MemoryLogger();
  const error = await inClusterConfig({ dir: DIR, env: env("10.0.0.1"), readTextFile, logger }).then(
    () => assert.fail("expected inClusterConfig to reject"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigError, String(error));
  assert.equal(error.file, `${DIR}/ca.crt`);
  assert.deepEqual(logger.messages("warn"), []);
  return error;
}

Deno.test("a missing or unreadable ca.crt fails closed, naming the file: no fallback to the system roots", async () => {
  for (
    const cause of [new Deno.errors.NotFound("No such file"), new Deno.errors.PermissionDenied("denied")]
  ) {
    const error = await caFailure(cause);
    assert.equal(error.reason, "Unreadable");
    assert.equal(error.cause, cause);
    assert.match(
      error.message,
      new RegExp(
        `^Cannot read in-cluster CA bundle "${DIR}/ca.crt": .*; refusing to fall back to the system roots$`,
      ),
    );
  }
});

Deno.test("a ca.crt without a usable certificate fails closed, naming the file", async () => {
  const empty = await caFailure("");
  assert.equal(empty.reason, "InCluster");
  assert.equal(empty.message, `Cannot use in-cluster CA bundle "${DIR}/ca.crt": it holds no PEM certificate`);
  const broken = await caFailure("-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n");
  assert.match(broken.message, /it has a certificate that cannot be parsed \(number 1\)/);
});

Deno.test("missing service variables are an InCluster error", async () => {
  for (const vars of [{}, { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, { KUBERNETES_SERVICE_PORT: "443" }]) {
    const error = await inClusterConfig({
      dir: DIR,
      env: envOf(vars),
      readTextFile: new MemFs(files).readTextFile,
    })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ConfigError);
    assert.equal(error.reason, "InCluster");
    assert.match(error.message, /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set/);
  }
  assert.equal(isInCluster(envOf({ KUBERNETES_SERVICE_HOST: "h" })), false);
  assert.equal(isInCluster(env("h")), true);
});

Deno.test("a non-numeric port is an InCluster error", async () => {
  const error = await inClusterConfig({
    dir: DIR,
    env: env("10.0.0.1", "https"),
    readTextFile: new MemFs(files).readTextFile,
  })
    .catch((e: unknown) => e);
  assert.ok(error instanceof ConfigError);
  assert.equal(error.reason, "InCluster");
});

Deno.test("a missing token file fails at load time, naming the file", async () => {
  const fs = new MemFs({ [`${DIR}/ca.crt`]: CA_PEM });
  const error = await inClusterConfig({ dir: DIR, env: env("10.0.0.1"), readTextFile: fs.readTextFile })
    .catch((e: unknown) => e);
  assert.ok(error instanceof ConfigError);
  assert.equal(error.reason, "Unreadable");
  assert.equal(error.file, `${DIR}/token`);
});

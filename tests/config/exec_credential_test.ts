import assert from "node:assert/strict";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import {
  ConfigError,
  type ExecConfig,
  ExecCredentialSource,
  type ExecRunner,
  loadConfig,
} from "../../lib/config/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { b64, credentialOutput, envOf, MemFs, scriptedRunner, simpleKubeconfig } from "./_helpers.ts";

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";

function execConfig(extra: Partial<ExecConfig> = {}): ExecConfig {
  return {
    apiVersion: V1,
    command: "/bin/plugin",
    args: ["get-token"],
    env: [],
    provideClusterInfo: false,
    ...extra,
  };
}

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(() => assert.fail("expected a rejection"), (e: unknown) => e);
  assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
  return error;
}

Deno.test("a v1 plugin's token is returned and the plugin gets args, env and KUBERNETES_EXEC_INFO", async () => {
  const { run, calls } = scriptedRunner(credentialOutput(V1, { token: "exec-token" }));
  const source = new ExecCredentialSource(
    execConfig({ env: [{ name: "PROFILE", value: "prod" }], interactiveMode: "IfAvailable" }),
    { user: "alice", runCommand: run, clock: new FakeClock() },
  );
  assert.deepEqual(await source.get(), { token: "exec-token" });
  assert.equal(calls.length, 1);
  const call = calls[0]!;
  assert.equal(call.command, "/bin/plugin");
  assert.deepEqual(call.options.args, ["get-token"]);
  assert.equal(call.options.env["PROFILE"], "prod");
  assert.deepEqual(JSON.parse(call.options.env["KUBERNETES_EXEC_INFO"]!), {
    apiVersion: V1,
    kind: "ExecCredential",
    spec: { interactive: false },
  });
});

Deno.test("a v1beta1 plugin works the same way", async () => {
  const { run, calls } = scriptedRunner(credentialOutput(V1BETA1, { token: "beta" }));
  const source = new ExecCredentialSource(execConfig({ apiVersion: V1BETA1 }), {
    user: "u",
    runCommand: run,
  });
  assert.deepEqual(await source.get(), { token: "beta" });
  assert.equal(JSON.parse(calls[0]!.options.env["KUBERNETES_EXEC_INFO"]!).apiVersion, V1BETA1);
});

Deno.test("credentials are cached until expirationTimestamp, then the plugin runs again", async () => {
  const clock = new FakeClock(Date.parse("2030-01-01T00:00:00Z"));
  const { run, calls } = scriptedRunner(
    credentialOutput(V1, { token: "first", expirationTimestamp: "2030-01-01T00:10:00Z" }),
    credentialOutput(V1, { token: "second" }),
  );
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run, clock });
  assert.deepEqual(await source.get(), { token: "first" });
  await clock.advance(9 * 60_000 + 59_999);
  assert.deepEqual(await source.get(), { token: "first" });
  assert.equal(calls.length, 1);
  await clock.advance(1);
  assert.deepEqual(await source.get(), { token: "second" });
  assert.equal(calls.length, 2);
  await clock.advance(365 * 24 * 3600_000);
  assert.deepEqual(await source.get(), { token: "second" }, "no expiry means cached until invalidate()");
  assert.equal(calls.length, 2);
});

Deno.test("invalidate() makes the next get() run the plugin again", async () => {
  const { run, calls } = scriptedRunner(
    credentialOutput(V1, { token: "a" }),
    credentialOutput(V1, { token: "b" }),
  );
  const source = new ExecCredentialSource(execConfig(), {
    user: "u",
    runCommand: run,
    clock: new FakeClock(),
  });
  await source.get();
  await source.get();
  assert.equal(calls.length, 1);
  source.invalidate();
  assert.deepEqual(await source.get(), { token: "b" });
  assert.equal(calls.length, 2);
});

Deno.test("concurrent get() calls share one plugin run", async () => {
  const { run, calls } = scriptedRunner(credentialOutput(V1, { token: "a" }));
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run });
  await Promise.all([source.get(), source.get()]);
  assert.equal(calls.length, 1);
});

Deno.test("a client certificate and key from the plugin are returned", async () => {
  const { run } = scriptedRunner(
    credentialOutput(V1, { clientCertificateData: "CERT PEM", clientKeyData: "KEY PEM" }),
  );
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run });
  assert.deepEqual(await source.get(), { cert: "CERT PEM", key: "KEY PEM" });
});

Deno.test("provideClusterInfo sends the cluster in KUBERNETES_EXEC_INFO", async () => {
  const fs = new MemFs({
    "/k/config": simpleKubeconfig({
      server: "https://api.example:6443",
      clusterLines: [`certificate-authority-data: ${b64("THE CA")}`, "tls-server-name: api.internal"],
      userLines: [
        `exec: {apiVersion: ${V1}, command: ./bin/cred, provideClusterInfo: true, interactiveMode: Never}`,
      ],
    }),
  });
  const { run, calls } = scriptedRunner({ ...credentialOutput(V1, { token: "t" }), stderr: "note\n" });
  const logger = new MemoryLogger();
  const config = await loadConfig({
    kubeconfig: "/k/config",
    readTextFile: fs.readTextFile,
    env: envOf(),
    runCommand: run,
    logger,
  });
  assert.equal(calls.length, 0, "the plugin runs on first use, not at load");
  assert.deepEqual(await config.credentials.get(), { token: "t" });
  assert.deepEqual(
    logger.messages("debug"),
    ["exec plugin wrote to stderr"],
    "the loader's logger reaches the plugin runner",
  );
  assert.equal(calls[0]?.command, "/k/bin/cred", "relative to the kubeconfig's directory");
  assert.deepEqual(JSON.parse(calls[0]!.options.env["KUBERNETES_EXEC_INFO"]!), {
    apiVersion: V1,
    kind: "ExecCredential",
    spec: {
      interactive: false,
      cluster: {
        server: "https://api.example:6443",
        "certificate-authority-data": b64("THE CA"),
        "tls-server-name": "api.internal",
      },
    },
  });
});

Deno.test("provideClusterInfo passes disable-compression on to the plugin", async () => {
  const fs = new MemFs({
    "/k/config": simpleKubeconfig({
      server: "https://api.example:6443",
      clusterLines: ["disable-compression: true"],
      userLines: [
        `exec: {apiVersion: ${V1}, command: cred, provideClusterInfo: true, interactiveMode: Never}`,
      ],
    }),
  });
  const { run, calls } = scriptedRunner(credentialOutput(V1, { token: "t" }));
  const config = await loadConfig({
    kubeconfig: "/k/config",
    readTextFile: fs.readTextFile,
    env: envOf(),
    runCommand: run,
  });
  await config.credentials.get();
  const info = JSON.parse(calls[0]!.options.env["KUBERNETES_EXEC_INFO"]!);
  assert.deepEqual(info.spec.cluster, { server: "https://api.example:6443", "disable-compression": true });
});

Deno.test("a failing plugin is an ExecFailed error naming the user; its stderr is only logged at debug level", async () => {
  const stderr = "error: token expired for alice@example.com, refresh token r3fr3sh\n";
  const { run } = scriptedRunner({ code: 1, stdout: "", stderr });
  const logger = new MemoryLogger();
  const source = new ExecCredentialSource(execConfig(), {
    user: "alice",
    runCommand: run,
    origin: { file: "/k/config", field: "users[0].user.exec" },
    logger,
  });
  const error = await rejection(source.get());
  assert.equal(error.reason, "ExecFailed");
  assert.equal(error.file, "/k/config");
  assert.equal(error.field, "users[0].user.exec");
  assert.equal(
    error.message,
    `Cannot get credentials for user "alice" from exec plugin "/bin/plugin": exited with code 1 ` +
      `(its stderr, ${stderr.trim().length} bytes, is logged at debug level)`,
  );
  assert.ok(!JSON.stringify({ message: error.message, cause: String(error.cause) }).includes("r3fr3sh"));
  assert.deepEqual(logger.lines, [{
    level: "debug",
    msg: "exec plugin wrote to stderr",
    fields: { user: "alice", command: "/bin/plugin", code: 1, stderr: stderr.trim() },
  }]);
});

Deno.test("a plugin's stderr on success is logged at debug level too, and nothing else is", async () => {
  const ok = credentialOutput("client.authentication.k8s.io/v1", { token: "tok" });
  const { run } = scriptedRunner({ ...ok, stderr: "cached token for alice\n" });
  const logger = new MemoryLogger();
  const source = new ExecCredentialSource(execConfig(), {
    user: "alice",
    runCommand: run,
    logger,
  });
  assert.deepEqual(await source.get(), { token: "tok" });
  assert.deepEqual(logger.lines.map((l) => l.level), ["debug"]);
});

Deno.test("a plugin that cannot be found reports the install hint", async () => {
  const { run } = scriptedRunner(new Deno.errors.NotFound("spawn failed"));
  const source = new ExecCredentialSource(execConfig({ installHint: "brew install plugin" }), {
    user: "u",
    runCommand: run,
  });
  const error = await rejection(source.get());
  assert.match(error.message, /the command was not found\nbrew install plugin$/);
});

Deno.test("a plugin the program may not run (no --allow-run) is reported as such, with the NotCapable cause", async () => {
  const denied = new Deno.errors.NotCapable(
    'Requires run access to "/bin/plugin", run again with the --allow-run flag',
  );
  const { run } = scriptedRunner(denied);
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run });
  const error = await rejection(source.get());
  assert.equal(error.reason, "ExecFailed");
  assert.match(
    error.message,
    /running it needs Deno's --allow-run permission, which this program was not given$/,
  );
  assert.equal(error.cause, denied);
});

Deno.test("interactiveMode Always is rejected clearly, since kubeloop is never interactive", () => {
  assert.throws(
    () =>
      new ExecCredentialSource(execConfig({ interactiveMode: "Always" }), {
        user: "u",
        origin: { file: "/k/config", field: "users[0].user.exec" },
      }),
    (e: unknown) =>
      e instanceof ConfigError && e.reason === "Unsupported" &&
      e.field === "users[0].user.exec.interactiveMode" &&
      /never runs plugins interactively/.test(e.message),
  );
});

Deno.test("interactiveMode Always fails loadConfig, naming the kubeconfig field", async () => {
  const fs = new MemFs({
    "/k/config": simpleKubeconfig({
      userLines: [`exec: {apiVersion: ${V1}, command: x, interactiveMode: Always}`],
    }),
  });
  const error = await rejection(
    loadConfig({ kubeconfig: "/k/config", readTextFile: fs.readTextFile, env: envOf() }),
  );
  assert.equal(error.file, "/k/config");
  assert.equal(error.field, "users[0].user.exec.interactiveMode");
});

Deno.test("an unsupported exec apiVersion is rejected", () => {
  assert.throws(
    () =>
      new ExecCredentialSource(execConfig({ apiVersion: "client.authentication.k8s.io/v1alpha1" }), {
        user: "u",
      }),
    (e: unknown) => e instanceof ConfigError && e.reason === "Unsupported" && /apiVersion/.test(e.message),
  );
});

/** A runner whose one run waits until released, or rejects when its signal aborts. */
function heldRunner(): { run: ExecRunner; release: () => void; signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  let release = () => {};
  const run: ExecRunner = (_cmd, options) => {
    signals.push(options.signal!);
    return new Promise((resolve, reject) => {
      release = () => resolve(credentialOutput(V1, { token: "shared" }));
      options.signal?.addEventListener("abort", () => reject(new Error("killed")), { once: true });
    });
  };
  return { run, release: () => release(), signals };
}

Deno.test("aborting the only get() rejects with the signal's reason and kills the plugin", async () => {
  const { run, signals } = heldRunner();
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run });
  const controller = new AbortController();
  const pending = source.get(controller.signal);
  controller.abort(new Error("shutting down"));
  await assert.rejects(pending, /shutting down/);
  assert.equal(signals.length, 1);
  assert.equal(signals[0]!.aborted, true, "the plugin's own signal aborted");
  assert.notEqual(signals[0], controller.signal, "the plugin runs under an internal signal");
});

Deno.test("one caller aborting a shared plugin run fails only that caller; the others get the credentials", async () => {
  const { run, release, signals } = heldRunner();
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run });
  const first = new AbortController();
  const second = new AbortController();
  const a = source.get(first.signal);
  const b = source.get(second.signal);
  const c = source.get();
  first.abort(new Error("first caller gave up"));
  await assert.rejects(a, /first caller gave up/);
  assert.equal(signals[0]!.aborted, false, "the plugin keeps running for the other callers");
  release();
  assert.deepEqual(await b, { token: "shared" });
  assert.deepEqual(await c, { token: "shared" });
  assert.equal(signals.length, 1, "one plugin run for all three");
});

Deno.test("the plugin is killed only when every waiting caller has aborted, and the next get() runs it again", async () => {
  const { run, release, signals } = heldRunner();
  const source = new ExecCredentialSource(execConfig(), { user: "u", runCommand: run });
  const first = new AbortController();
  const second = new AbortController();
  const a = source.get(first.signal);
  const b = source.get(second.signal);
  first.abort(new Error("one"));
  await assert.rejects(a, /one/);
  assert.equal(signals[0]!.aborted, false);
  second.abort(new Error("two"));
  await assert.rejects(b, /two/);
  assert.equal(signals[0]!.aborted, true);
  const third = source.get();
  assert.equal(signals.length, 2, "a fresh run, not the killed one");
  assert.equal(signals[1]!.aborted, false);
  release();
  assert.deepEqual(await third, { token: "shared" });
});

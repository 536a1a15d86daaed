import assert from "node:assert/strict";
import { ConfigError, loadConfig, type LoadConfigOptions } from "../../lib/config/mod.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { b64, envOf, MemFs, simpleKubeconfig } from "./_helpers.ts";

function loadFile(text: string, files: Record<string, string> = {}, options: LoadConfigOptions = {}) {
  const fs = new MemFs({ "/k/config": text, ...files });
  return loadConfig({ kubeconfig: "/k/config", readTextFile: fs.readTextFile, env: envOf(), ...options });
}

async function fileError(text: string, files: Record<string, string> = {}): Promise<ConfigError> {
  const error = await loadFile(text, files).then(
    () => assert.fail("expected a rejection"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
  assert.equal(error.file, "/k/config");
  return error;
}

Deno.test("cluster TLS fields become TlsOptions, with tls-server-name as serverName", async () => {
  const config = await loadFile(simpleKubeconfig({
    clusterLines: [`certificate-authority-data: ${b64("INLINE CA")}`, "tls-server-name: kubernetes.default"],
    userLines: [`client-certificate-data: ${b64("CERT")}`, `client-key-data: ${b64("KEY")}`],
  }));
  assert.deepEqual(config.tls, {
    caCerts: ["INLINE CA"],
    serverName: "kubernetes.default",
    cert: "CERT",
    key: "KEY",
  });
  assert.deepEqual(await config.credentials.get(), {});
});

Deno.test("disable-compression becomes disableCompression, left unset when absent or false", async () => {
  const config = await loadFile(simpleKubeconfig({ clusterLines: ["disable-compression: true"] }));
  assert.equal(config.disableCompression, true);
  assert.equal((await loadFile(simpleKubeconfig())).disableCompression, undefined);
  const off = await loadFile(simpleKubeconfig({ clusterLines: ["disable-compression: false"] }));
  assert.equal(off.disableCompression, undefined);
});

Deno.test("inline -data wins over a file path", async () => {
  const config = await loadFile(
    simpleKubeconfig({
      clusterLines: [`certificate-authority-data: ${b64("INLINE")}`, "certificate-authority: ca"],
    }),
  );
  assert.deepEqual(config.tls.caCerts, ["INLINE"]);
});

Deno.test("insecure-skip-tls-verify is passed through, and refused together with a CA", async () => {
  const config = await loadFile(simpleKubeconfig({ clusterLines: ["insecure-skip-tls-verify: true"] }));
  assert.equal(config.tls.insecureSkipVerify, true);
  const plain = await loadFile(simpleKubeconfig());
  assert.equal(plain.tls.insecureSkipVerify, undefined, "never set unless the kubeconfig says so");
  const error = await fileError(
    simpleKubeconfig({ clusterLines: ["insecure-skip-tls-verify: true", "certificate-authority: ca.pem"] }),
  );
  assert.equal(error.reason, "InvalidField");
  assert.equal(error.field, "clusters[0].cluster.insecure-skip-tls-verify");
});

Deno.test("a CA file that cannot be read names the kubeconfig, field and path", async () => {
  const error = await fileError(simpleKubeconfig({ clusterLines: ["certificate-authority: pki/ca.pem"] }));
  assert.equal(error.reason, "Unreadable");
  assert.equal(error.field, "clusters[0].cluster.certificate-authority");
  assert.match(
    error.message,
    /^Cannot use kubeconfig "\/k\/config": field "clusters\[0\]\.cluster\.certificate-authority" names "\/k\/pki\/ca\.pem", which cannot be read: No such file/,
  );
});

Deno.test("a client key file that cannot be read names its field", async () => {
  const error = await fileError(
    simpleKubeconfig({ userLines: ["client-certificate: c.crt", "client-key: c.key"] }),
    { "/k/c.crt": "CERT" },
  );
  assert.equal(error.field, "users[0].user.client-key");
});

Deno.test("a client certificate without a key (and the reverse) is a MissingField error", async () => {
  let error = await fileError(simpleKubeconfig({ userLines: [`client-certificate-data: ${b64("C")}`] }));
  assert.equal(error.reason, "MissingField");
  assert.equal(error.field, "users[0].user.client-key");
  error = await fileError(simpleKubeconfig({ userLines: [`client-key-data: ${b64("K")}`] }));
  assert.equal(error.field, "users[0].user.client-certificate");
});

Deno.test("auth-provider is rejected clearly, naming the field", async () => {
  const error = await fileError(simpleKubeconfig({ userLines: ["auth-provider: {name: gcp}"] }));
  assert.equal(error.reason, "Unsupported");
  assert.equal(error.field, "users[0].user.auth-provider");
  assert.equal(
    error.message,
    `Cannot use kubeconfig "/k/config": field "users[0].user.auth-provider" is not supported; use exec or a token`,
  );
});

Deno.test("username/password basic auth is rejected clearly", async () => {
  const error = await fileError(simpleKubeconfig({ userLines: ["username: admin", "password: secret"] }));
  assert.equal(error.reason, "Unsupported");
  assert.equal(error.field, "users[0].user.username");
  assert.match(error.message, /is not supported; use exec or a token/);
  assert.doesNotMatch(error.message, /secret/, "credentials never appear in messages");
});

Deno.test("impersonation fields are rejected clearly", async () => {
  const error = await fileError(simpleKubeconfig({ userLines: ["token: t", "as: someone"] }));
  assert.equal(error.field, "users[0].user.as");
});

Deno.test("unsupported fields of users that are not selected do no harm", async () => {
  const text = simpleKubeconfig() + `- name: other\n  context: {cluster: c1, user: legacy}\n`;
  const withLegacy = text.replace(
    "users:\n",
    "users:\n- name: legacy\n  user: {auth-provider: {name: oidc}}\n",
  );
  const config = await loadFile(withLegacy);
  assert.deepEqual(await config.credentials.get(), { token: "tok-u1" });
});

Deno.test("proxy-url is rejected clearly, naming the field", async () => {
  const error = await fileError(simpleKubeconfig({ clusterLines: ["proxy-url: http://proxy:3128"] }));
  assert.equal(error.reason, "Unsupported");
  assert.equal(error.field, "clusters[0].cluster.proxy-url");
  assert.match(error.message, /field "clusters\[0\]\.cluster\.proxy-url" is not supported/);
});

Deno.test("a context naming an undefined cluster or user is an UnknownReference error", async () => {
  let error = await fileError(simpleKubeconfig().replace("cluster: c1\n    user", "cluster: nope\n    user"));
  assert.equal(error.reason, "UnknownReference");
  assert.equal(error.field, "contexts[0].context.cluster");
  assert.match(error.message, /names cluster "nope", which is not defined/);
  error = await fileError(simpleKubeconfig().replace("user: u1\n", "user: ghost\n"));
  assert.equal(error.field, "contexts[0].context.user");
});

Deno.test("a cluster without server is a MissingField error", async () => {
  const error = await fileError(
    simpleKubeconfig().replace("    server: https://10.0.0.1:6443\n", "    {}\n"),
  );
  assert.equal(error.reason, "MissingField");
  assert.equal(error.field, "clusters[0].cluster.server");
});

Deno.test("a bad server URL names the server field", async () => {
  const error = await fileError(simpleKubeconfig({ server: "ftp://x" }));
  assert.equal(error.reason, "InvalidField");
  assert.equal(error.field, "clusters[0].cluster.server");
});

Deno.test("token takes precedence over tokenFile, as client-go documents", async () => {
  const config = await loadFile(simpleKubeconfig({ userLines: ["token: inline", "tokenFile: tok"] }));
  assert.deepEqual(await config.credentials.get(), { token: "inline" });
});

Deno.test("tokenFile is read at load time so a bad path fails early", async () => {
  const config = await loadFile(simpleKubeconfig({ userLines: ["tokenFile: tok"] }), {
    "/k/tok": "from-file\n",
  });
  assert.deepEqual(await config.credentials.get(), { token: "from-file" });
  const error = await fileError(simpleKubeconfig({ userLines: ["tokenFile: tok"] }));
  assert.equal(error.reason, "Unreadable");
  assert.equal(error.field, "users[0].user.tokenFile");
  assert.match(
    error.message,
    /^Cannot read token file "\/k\/tok" \(field "users\[0\]\.user\.tokenFile" of kubeconfig/,
  );
});

Deno.test("exec combined with a token is refused as ambiguous", async () => {
  const error = await fileError(simpleKubeconfig({
    userLines: ["token: t", "exec: {apiVersion: client.authentication.k8s.io/v1, command: x}"],
  }));
  assert.equal(error.reason, "InvalidField");
  assert.equal(error.field, "users[0].user.exec");
});

Deno.test("the context namespace is used, else default", async () => {
  assert.equal((await loadFile(simpleKubeconfig({ namespace: "team-a" }))).namespace, "team-a");
  assert.equal((await loadFile(simpleKubeconfig())).namespace, "default");
});

/** Loads `text` and returns the warnings logged, as JSON text per line. */
async function warningsOf(text: string, options: LoadConfigOptions = {}): Promise<string[]> {
  const logger = new MemoryLogger();
  await loadFile(text, { "/k/tok": "file-secret\n" }, { logger, ...options });
  return logger.lines.filter((l) => l.level === "warn").map((l) =>
    JSON.stringify({ msg: l.msg, fields: l.fields })
  );
}

Deno.test("attack: an http:// server with a token, token file or exec plugin logs one warning naming the cluster entry, never the token", async () => {
  const server = "http://10.0.0.1:8080";
  for (
    const userLines of [
      ["token: inline-secret"],
      ["tokenFile: tok"],
      ["exec: {apiVersion: client.authentication.k8s.io/v1, command: get-token}"],
    ]
  ) {
    const warnings = await warningsOf(
      simpleKubeconfig({ server, cluster: "plain", context: "dev", userLines }),
    );
    assert.equal(warnings.length, 1, `one warning for ${userLines[0]}`);
    const [warning] = warnings;
    assert.match(
      warning!,
      /The credentials of user \\"u1\\" will be sent in clear text: cluster \\"plain\\" of context \\"dev\\" is an http:\/\/ server/,
    );
    assert.match(warning!, /"kubeconfig":"\/k\/config"/);
    assert.match(warning!, /"server":"http:\/\/10\.0\.0\.1:8080\/"/);
    assert.doesNotMatch(warning!, /secret/, "the token itself is not logged");
  }
  // --master http:// over a kubeconfig user with a token: the warning names master.
  const viaMaster = await warningsOf(simpleKubeconfig(), { master: "http://127.0.0.1:8080" });
  assert.equal(viaMaster.length, 1);
  assert.match(viaMaster[0]!, /will be sent in clear text: master of context \\"ctx1\\"/);
});

Deno.test("no warning when nothing secret would travel in clear: https, no user, or a client certificate only", async () => {
  assert.deepEqual(await warningsOf(simpleKubeconfig({ userLines: ["token: t"] })), []);
  const anonymous = [
    "apiVersion: v1",
    "kind: Config",
    "current-context: a",
    "clusters: [{name: c, cluster: {server: 'http://10.0.0.1:8080'}}]",
    "contexts: [{name: a, context: {cluster: c}}]",
  ].join("\n");
  assert.deepEqual(await warningsOf(anonymous), []);
  const certOnly = simpleKubeconfig({
    server: "http://10.0.0.1:8080",
    userLines: [`client-certificate-data: ${b64("CERT")}`, `client-key-data: ${b64("KEY")}`],
  });
  assert.deepEqual(await warningsOf(certOnly), []);
});

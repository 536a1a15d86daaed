import assert from "node:assert/strict";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import { ConfigError, loadConfig, type LoadConfigOptions } from "../../lib/config/mod.ts";
import { CA_PEM, envOf, MemFs, simpleKubeconfig } from "./_helpers.ts";

const SA = "/sa";

function load(fs: MemFs, env: Record<string, string>, options: LoadConfigOptions = {}) {
  return loadConfig({ readTextFile: fs.readTextFile, env: envOf(env), inClusterDir: SA, ...options });
}

async function loadError(fs: MemFs, env: Record<string, string>, options: LoadConfigOptions = {}) {
  const error = await load(fs, env, options).then(
    () => assert.fail("expected loadConfig to reject"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
  return error;
}

const inClusterFiles = {
  [`${SA}/token`]: "sa-token\n",
  [`${SA}/ca.crt`]: CA_PEM,
  [`${SA}/namespace`]: "ops\n",
};
const inClusterEnv = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

Deno.test("an explicit kubeconfig path wins over $KUBECONFIG and the home file", async () => {
  const fs = new MemFs({
    "/explicit/config": simpleKubeconfig({ server: "https://explicit:6443", context: "e" }),
    "/env/config": simpleKubeconfig({ server: "https://env:6443" }),
    "/home/me/.kube/config": simpleKubeconfig({ server: "https://home:6443" }),
  });
  const config = await load(fs, { KUBECONFIG: "/env/config", HOME: "/home/me" }, {
    kubeconfig: "/explicit/config",
  });
  assert.equal(config.server.href, "https://explicit:6443/");
  assert.equal(config.source, `/explicit/config (context "e")`);
  assert.equal(config.inCluster, false);
  assert.deepEqual(fs.reads, ["/explicit/config"]);
});

Deno.test("a missing explicit kubeconfig is a NotFound error, with no fallback", async () => {
  const fs = new MemFs({ "/home/me/.kube/config": simpleKubeconfig() });
  const error = await loadError(fs, { HOME: "/home/me", ...inClusterEnv }, { kubeconfig: "/nope" });
  assert.equal(error.reason, "NotFound");
  assert.equal(error.file, "/nope");
  assert.equal(error.message, `Cannot read kubeconfig "/nope": the file does not exist`);
});

Deno.test("$KUBECONFIG files are merged first-wins, skipping missing files and empty entries", async () => {
  const fs = new MemFs({
    "/a/config": simpleKubeconfig({
      server: "https://a:6443",
      current: false,
      context: "dev",
      cluster: "shared",
    }),
    "/b/config": simpleKubeconfig({
      server: "https://b:6443",
      context: "dev",
      cluster: "shared",
      namespace: "b",
    }),
  });
  const config = await load(fs, {
    KUBECONFIG: "::/missing/config:/a/config::/b/config:/a/config",
    HOME: "/h",
  });
  assert.equal(config.server.href, "https://a:6443/", "cluster from the first file");
  assert.equal(config.namespace, "default", "context from the first file, which has no namespace");
  assert.equal(config.source, `/a/config (context "dev")`);
  assert.deepEqual(fs.reads, ["/missing/config", "/a/config", "/b/config"], "deduplicated, home not read");
});

Deno.test("the first current-context across $KUBECONFIG wins", async () => {
  const fs = new MemFs({
    "/a/config": "current-context: ''\n",
    "/b/config": simpleKubeconfig({ context: "from-b", server: "https://b" }),
    "/c/config": simpleKubeconfig({ context: "from-c", cluster: "c2", user: "u2", server: "https://c" }),
  });
  const config = await load(fs, { KUBECONFIG: "/a/config:/b/config:/c/config" });
  assert.match(config.source, /context "from-b"/);
  assert.equal(config.server.host, "b");
});

Deno.test("~/.kube/config is used when neither a path nor $KUBECONFIG is given", async () => {
  const fs = new MemFs({ "/home/me/.kube/config": simpleKubeconfig({ server: "https://home:6443" }) });
  assert.equal((await load(fs, { HOME: "/home/me" })).server.host, "home:6443");
  assert.equal((await load(fs, { HOME: "/elsewhere" }, { homeDir: "/home/me/" })).server.host, "home:6443");
});

Deno.test("$KUBECONFIG pointing only at missing files does not fall back to ~/.kube/config", async () => {
  const fs = new MemFs({ "/home/me/.kube/config": simpleKubeconfig() });
  const error = await loadError(fs, { KUBECONFIG: "/gone/a:/gone/b", HOME: "/home/me" });
  assert.equal(error.reason, "NoConfig");
  assert.match(error.message, /\$KUBECONFIG="\/gone\/a", "\/gone\/b" \(missing\)/);
  assert.ok(!fs.reads.includes("/home/me/.kube/config"));
});

Deno.test("in-cluster config is the last resort", async () => {
  const fs = new MemFs(inClusterFiles);
  const config = await load(fs, { HOME: "/home/me", ...inClusterEnv });
  assert.equal(config.source, "in-cluster");
  assert.equal(config.inCluster, true);
  assert.equal(config.server.href, "https://10.96.0.1/");
  assert.equal(config.namespace, "ops");
  assert.deepEqual(await config.credentials.get(), { token: "sa-token" });
});

/** A file system whose read permission leaves out everything outside `allowed` (Deno's NotCapable). */
function narrowedFs(files: Record<string, string>, allowed: string): MemFs {
  const fs = new MemFs(files);
  const read = fs.readTextFile;
  fs.readTextFile = (path) => {
    if (path.startsWith(`${allowed}/`)) return read(path);
    fs.reads.push(path);
    return Promise.reject(new Deno.errors.NotCapable(`Requires read access to "${path}"`));
  };
  return fs;
}

Deno.test("a home kubeconfig the program may not read is skipped, so in-cluster config still loads", async () => {
  const fs = narrowedFs({ ...inClusterFiles, "/home/me/.kube/config": simpleKubeconfig() }, SA);
  const config = await load(fs, { HOME: "/home/me", ...inClusterEnv });
  assert.equal(config.source, "in-cluster");
  assert.deepEqual(fs.reads.slice(0, 1), ["/home/me/.kube/config"]);
  const error = await loadError(narrowedFs({}, SA), { HOME: "/home/me" });
  assert.match(error.message, /"\/home\/me\/\.kube\/config" \(not permitted to read\)/);
});

Deno.test("a kubeconfig the user names but the program may not read is an error naming it", async () => {
  const fs = narrowedFs({ ...inClusterFiles, "/etc/k/config": simpleKubeconfig() }, SA);
  for (
    const [env, options] of [
      [inClusterEnv, { kubeconfig: "/etc/k/config" }],
      [{ ...inClusterEnv, KUBECONFIG: "/etc/k/config" }, {}],
    ] as const
  ) {
    const error = await loadError(fs, env, options);
    assert.equal(error.reason, "Unreadable");
    assert.equal(error.file, "/etc/k/config");
    assert.equal(
      error.message,
      `Cannot read kubeconfig "/etc/k/config": Requires read access to "/etc/k/config"`,
    );
  }
});

Deno.test("an empty kubeconfig counts as absent and in-cluster is used", async () => {
  const fs = new MemFs({ ...inClusterFiles, "/home/me/.kube/config": "" });
  assert.equal((await load(fs, { HOME: "/home/me", ...inClusterEnv })).source, "in-cluster");
});

Deno.test("when nothing is found the error says what was tried", async () => {
  const error = await loadError(new MemFs(), { HOME: "/home/me" });
  assert.equal(error.reason, "NoConfig");
  assert.equal(
    error.message,
    `No Kubernetes configuration found; tried "/home/me/.kube/config" (missing), ` +
      `in-cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)`,
  );
  const noHome = await loadError(new MemFs(), {});
  assert.match(noHome.message, /~\/\.kube\/config \(HOME is not set\)/);
});

Deno.test("the context option overrides current-context", async () => {
  const fs = new MemFs({
    "/k": `
current-context: a
clusters: [{name: ca, cluster: {server: "https://a"}}, {name: cb, cluster: {server: "https://b"}}]
contexts: [{name: a, context: {cluster: ca}}, {name: b, context: {cluster: cb, namespace: nb}}]
`,
  });
  const config = await load(fs, {}, { kubeconfig: "/k", context: "b" });
  assert.equal(config.server.host, "b");
  assert.equal(config.namespace, "nb");
  assert.equal(config.source, `/k (context "b")`);
  assert.deepEqual(await config.credentials.get(), {}, "a context without a user is anonymous");
});

Deno.test("an undefined context is a NoContext error listing the defined ones", async () => {
  const fs = new MemFs({ "/k": simpleKubeconfig({ context: "dev" }) });
  const error = await loadError(fs, {}, { kubeconfig: "/k", context: "prod" });
  assert.equal(error.reason, "NoContext");
  assert.equal(error.message, `Cannot use kubeconfig "/k": context "prod" is not defined (defined: dev)`);
});

Deno.test("a kubeconfig without current-context needs the context option", async () => {
  const fs = new MemFs({ "/k": simpleKubeconfig({ current: false }) });
  const error = await loadError(fs, {}, { kubeconfig: "/k" });
  assert.equal(error.reason, "NoContext");
  assert.equal(error.field, "current-context");
  assert.match(error.message, /current-context is not set and no context was given/);
});

Deno.test("master overrides the server URL but keeps the cluster's TLS settings", async () => {
  const fs = new MemFs({
    "/k": simpleKubeconfig({ server: "https://old:6443", clusterLines: ["tls-server-name: api"] }),
  });
  const config = await load(fs, {}, { kubeconfig: "/k", master: "https://new:7443/prefix" });
  assert.equal(config.server.href, "https://new:7443/prefix");
  assert.equal(config.tls.serverName, "api");
  assert.deepEqual(await config.credentials.get(), { token: "tok-u1" });
  assert.equal(config.source, `/k (context "ctx1", master https://new:7443/prefix)`);
});

Deno.test("master overrides the in-cluster server, and alone gives an anonymous config", async () => {
  const fs = new MemFs(inClusterFiles);
  const inCluster = await load(fs, inClusterEnv, { master: "https://proxy:8443" });
  assert.equal(inCluster.server.host, "proxy:8443");
  assert.equal(inCluster.inCluster, true, "still the pod's service account");
  assert.deepEqual(await inCluster.credentials.get(), { token: "sa-token" });
  const logger = new MemoryLogger();
  const alone = await load(new MemFs(), {}, { master: "http://127.0.0.1:8080", logger });
  assert.equal(alone.server.href, "http://127.0.0.1:8080/");
  assert.equal(alone.namespace, "default");
  assert.equal(alone.inCluster, false);
  assert.equal(logger.messages("warn").length, 1);
});

Deno.test("with the in-cluster service account, a plain-HTTP master is refused: the token stays off the wire", async () => {
  for (const master of ["http://10.96.0.1:80", "HTTP://proxy:8080/prefix"]) {
    const error = await loadError(new MemFs(inClusterFiles), inClusterEnv, { master });
    assert.equal(error.reason, "InvalidField");
    assert.equal(error.field, "master");
    assert.match(error.message, /^Cannot use master "http:\/\/[^"]+" with the in-cluster service account: /);
    assert.match(error.message, /its token would be sent over plain HTTP; use an https:\/\/ URL$/);
  }
});

Deno.test("an invalid master is an InvalidField error naming master", async () => {
  const fs = new MemFs({ "/k": simpleKubeconfig() });
  const error = await loadError(fs, {}, { kubeconfig: "/k", master: "ftp://x" });
  assert.equal(error.field, "master");
  assert.match(error.message, /Cannot use master "ftp:\/\/x": must be an http or https URL/);
});

Deno.test("a server URL with a user name or password is an InvalidField error that does not repeat it", async () => {
  for (
    const server of ["https://admin:hunter2@kube:6443", "admin:hunter2@kube:6443", "https://hunter2@kube"]
  ) {
    const fs = new MemFs({ "/k": simpleKubeconfig({ server }) });
    const error = await loadError(fs, {}, { kubeconfig: "/k" });
    assert.equal(error.reason, "InvalidField");
    assert.equal(error.field, "clusters[0].cluster.server");
    assert.match(
      error.message,
      /field "clusters\[0\]\.cluster\.server" must not contain a user name or password/,
    );
    assert.doesNotMatch(error.message, /hunter2/);
    assert.equal(error.cause, undefined);
  }
  const fs = new MemFs({ "/k": simpleKubeconfig() });
  const error = await loadError(fs, {}, { kubeconfig: "/k", master: "https://admin:hunter2@kube:6443/x" });
  assert.equal(error.field, "master");
  assert.equal(
    error.message,
    'Cannot use master "https://kube:6443/x": must not contain a user name or password; put credentials in the kubeconfig user',
  );
});

Deno.test("an @ in the path or query of a server URL is not user info", async () => {
  const fs = new MemFs({ "/k": simpleKubeconfig({ server: "https://kube:6443/a@b?c=d@e" }) });
  assert.equal((await load(fs, {}, { kubeconfig: "/k" })).server.href, "https://kube:6443/a@b?c=d@e");
});

Deno.test("a server without a scheme is treated as https", async () => {
  const fs = new MemFs({ "/k": simpleKubeconfig({ server: "10.1.1.1:6443" }) });
  assert.equal((await load(fs, {}, { kubeconfig: "/k" })).server.href, "https://10.1.1.1:6443/");
});

Deno.test("relative paths resolve against the directory of the file that defined each entry", async () => {
  const fs = new MemFs({
    "/teams/a/config": `
current-context: dev
contexts: [{name: dev, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://a", certificate-authority: ca.pem}}]
`,
    "/users/me/kube/config": `
users: [{name: u, user: {client-certificate: pki/me.crt, client-key: ../me.key}}]
`,
    "/teams/a/ca.pem": "CA FROM A",
    "/users/me/kube/pki/me.crt": "MY CERT",
    "/users/me/me.key": "MY KEY",
  });
  const config = await load(fs, { KUBECONFIG: "/teams/a/config:/users/me/kube/config" });
  assert.deepEqual(config.tls, { caCerts: ["CA FROM A"], cert: "MY CERT", key: "MY KEY" });
});

Deno.test("a kubeconfig that cannot be read (not just missing) is an Unreadable error", async () => {
  const readTextFile = (path: string) =>
    path === "/k"
      ? Promise.reject(new Deno.errors.PermissionDenied("denied"))
      : Promise.reject(new Error("?"));
  const error = await loadConfig({ readTextFile, env: envOf({ KUBECONFIG: "/k" }) }).catch((e: unknown) => e);
  assert.ok(error instanceof ConfigError);
  assert.equal(error.reason, "Unreadable");
  assert.equal(error.file, "/k");
  assert.equal(error.message, `Cannot read kubeconfig "/k": denied`);
});

Deno.test("a parse error in one $KUBECONFIG file fails the load, naming it", async () => {
  const fs = new MemFs({ "/a": simpleKubeconfig(), "/b": "clusters: [" });
  const error = await loadError(fs, { KUBECONFIG: "/a:/b" });
  assert.equal(error.reason, "Parse");
  assert.equal(error.file, "/b");
});

Deno.test("an aborted signal stops loading", async () => {
  const fs = new MemFs({ "/k": simpleKubeconfig({ userLines: ["tokenFile: tok"] }), "/tok": "t" });
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(load(fs, {}, { kubeconfig: "/k", signal: controller.signal }), /stop/);
});

import assert from "node:assert/strict";
import { ConfigError, parseKubeconfig } from "../../lib/config/mod.ts";
import { b64 } from "./_helpers.ts";

async function parseError(text: string, path = "/x/config"): Promise<ConfigError> {
  try {
    await parseKubeconfig(text, path);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    return error;
  }
  assert.fail("expected parseKubeconfig to throw");
}

Deno.test("parseKubeconfig reads clusters, users, contexts and current-context", async () => {
  const file = await parseKubeconfig(
    `
current-context: dev
clusters:
- name: c
  cluster:
    server: https://1.2.3.4
    certificate-authority-data: ${b64("CA PEM")}
    insecure-skip-tls-verify: false
    tls-server-name: api.internal
users:
- name: u
  user:
    client-certificate-data: ${b64("CERT PEM")}
    client-key-data: ${b64("KEY PEM")}
contexts:
- name: dev
  context: {cluster: c, user: u, namespace: team}
`,
    "/home/me/.kube/config",
  );
  assert.equal(file.currentContext, "dev");
  const cluster = file.clusters[0];
  assert.equal(cluster?.server, "https://1.2.3.4");
  assert.equal(cluster?.certificateAuthorityData, "CA PEM");
  assert.equal(cluster?.tlsServerName, "api.internal");
  assert.equal(cluster?.file, "/home/me/.kube/config");
  assert.equal(cluster?.field, "clusters[0].cluster");
  assert.equal(file.users[0]?.clientCertificateData, "CERT PEM");
  assert.equal(file.users[0]?.clientKeyData, "KEY PEM");
  assert.deepEqual(
    { cluster: file.contexts[0]?.cluster, user: file.contexts[0]?.user, ns: file.contexts[0]?.namespace },
    { cluster: "c", user: "u", ns: "team" },
  );
});

Deno.test("parseKubeconfig resolves relative paths against the file's own directory", async () => {
  const file = await parseKubeconfig(
    `
clusters:
- name: c
  cluster: {server: "https://h", certificate-authority: certs/ca.pem}
users:
- name: u
  user:
    client-certificate: ../pki/client.crt
    client-key: /abs/client.key
    tokenFile: ./token
    exec: {apiVersion: client.authentication.k8s.io/v1, command: bin/plugin}
- name: v
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-plugin}
`,
    "/etc/kube/team/config",
  );
  assert.equal(file.clusters[0]?.certificateAuthority, "/etc/kube/team/certs/ca.pem");
  const user = file.users[0];
  assert.equal(user?.clientCertificate, "/etc/kube/pki/client.crt");
  assert.equal(user?.clientKey, "/abs/client.key");
  assert.equal(user?.tokenFile, "/etc/kube/team/token");
  assert.equal(user?.exec?.command, "/etc/kube/team/bin/plugin");
  assert.equal(file.users[1]?.exec?.command, "gke-plugin", "a bare command name is left for $PATH");
});

Deno.test("an empty kubeconfig parses to no entries", async () => {
  const file = await parseKubeconfig("", "/x/config");
  assert.deepEqual([file.clusters.length, file.users.length, file.contexts.length], [0, 0, 0]);
  assert.equal(file.currentContext, undefined);
});

Deno.test("invalid YAML is a Parse ConfigError naming the file", async () => {
  const error = await parseError("clusters: [\n  - name: a\n", "/x/bad");
  assert.equal(error.reason, "Parse");
  assert.equal(error.file, "/x/bad");
  assert.match(
    error.message,
    /^Cannot parse kubeconfig "\/x\/bad": invalid YAML \(BLOCK_IN_FLOW\) at line 2, column 3$/,
  );
});

Deno.test("a YAML error names its code and position but never quotes the source, which may hold secrets", async () => {
  const cases = [
    [
      "users:\n- name: u\n  user:\n    token: SECRET-TOKEN: x\n",
      /\(BLOCK_AS_IMPLICIT_KEY\) at line 4, column 12$/,
    ],
    [
      '{"users": [{"name": "u", "user": {"token": "SECRET-TOKEN}]}',
      /\(MISSING_CHAR\) at line 1, column \d+$/,
    ],
    ["users:\n- name: u\n  user:\n    token: *SECRET-TOKEN\n", /: invalid YAML \(ReferenceError\)$/],
  ] as const;
  for (const [text, detail] of cases) {
    const error = await parseError(text);
    assert.match(error.message, /^Cannot parse kubeconfig "\/x\/config": invalid YAML /);
    assert.match(error.message, detail);
    assert.doesNotMatch(error.message, /SECRET/);
    assert.equal(error.cause, undefined, "the yaml error, which quotes the source, is not kept as the cause");
  }
});

Deno.test("invalid base64 in a -data field names the file and field", async () => {
  const error = await parseError(`
users:
- name: a
  user: {token: x}
- name: b
  user:
    client-key-data: "not base64!!"
`);
  assert.equal(error.reason, "InvalidField");
  assert.equal(error.file, "/x/config");
  assert.equal(error.field, "users[1].user.client-key-data");
  assert.equal(
    error.message,
    `Cannot read kubeconfig "/x/config": field "users[1].user.client-key-data" is not base64`,
  );
});

Deno.test("parseKubeconfig reads disable-compression, false when absent", async () => {
  const file = await parseKubeconfig(
    `clusters: [{name: a, cluster: {server: "https://a", disable-compression: true}}, {name: b, cluster: {server: "https://b"}}]`,
    "/x/config",
  );
  assert.deepEqual(file.clusters.map((c) => c.disableCompression), [true, false]);
});

Deno.test("invalid base64 in certificate-authority-data names the cluster field", async () => {
  const error = await parseError(
    `clusters: [{name: c, cluster: {server: "https://h", certificate-authority-data: "%%%"}}]`,
  );
  assert.equal(error.field, "clusters[0].cluster.certificate-authority-data");
});

Deno.test("fields of the wrong type are InvalidField errors naming the field and type", async () => {
  const cases: [string, string, RegExp][] = [
    [`clusters: {a: 1}`, "clusters", /must be a list, got a mapping/],
    [
      `clusters: [{name: c, cluster: {server: 5}}]`,
      "clusters[0].cluster.server",
      /must be a string, got a number/,
    ],
    [
      `clusters: [{name: c, cluster: {insecure-skip-tls-verify: "yes"}}]`,
      "clusters[0].cluster.insecure-skip-tls-verify",
      /must be a boolean/,
    ],
    [
      `clusters: [{name: c, cluster: {disable-compression: "true"}}]`,
      "clusters[0].cluster.disable-compression",
      /must be a boolean/,
    ],
    [`contexts: [{name: c, context: [1]}]`, "contexts[0].context", /must be a mapping, got a list/],
    [`current-context: [a]`, "current-context", /must be a string/],
    [
      `users: [{name: u, user: {exec: {apiVersion: v, command: c, args: [1]}}}]`,
      "users[0].user.exec.args[0]",
      /string/,
    ],
  ];
  for (const [text, field, message] of cases) {
    const error = await parseError(text);
    assert.equal(error.reason, "InvalidField", text);
    assert.equal(error.field, field, text);
    assert.match(error.message, message, text);
  }
});

Deno.test("missing names and bodies are MissingField errors", async () => {
  let error = await parseError(`users: [{user: {token: t}}]`);
  assert.equal(error.reason, "MissingField");
  assert.equal(error.field, "users[0].name");
  error = await parseError(`contexts: [{name: c}]`);
  assert.equal(error.field, "contexts[0].context");
  error = await parseError(`users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]`);
  assert.equal(error.field, "users[0].user.exec.command");
  assert.equal(
    error.message,
    `Cannot read kubeconfig "/x/config": field "users[0].user.exec.command" is required`,
  );
});

Deno.test("a name repeated inside one file is rejected, as client-go does", async () => {
  const error = await parseError(`clusters: [{name: a, cluster: {}}, {name: a, cluster: {}}]`);
  assert.equal(error.reason, "InvalidField");
  assert.equal(error.field, "clusters[1].name");
});

Deno.test("an unknown exec interactiveMode is rejected with the allowed values", async () => {
  const error = await parseError(
    `users: [{name: u, user: {exec: {apiVersion: v, command: c, interactiveMode: Sometimes}}}]`,
  );
  assert.equal(error.field, "users[0].user.exec.interactiveMode");
  assert.match(error.message, /must be one of Never, IfAvailable, Always, got "Sometimes"/);
});

Deno.test("unsupported user features are recorded, not rejected, at parse time", async () => {
  const file = await parseKubeconfig(
    `users: [{name: u, user: {auth-provider: {name: gcp}, username: a, password: b}}, {name: v, user: {token: t}}]`,
    "/x/config",
  );
  assert.deepEqual(file.users[0]?.unsupported, ["auth-provider", "username", "password"]);
  assert.deepEqual(file.users[1]?.unsupported, []);
});

Deno.test("exec env entries and args are parsed", async () => {
  const file = await parseKubeconfig(
    `
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token]
      env: [{name: AWS_PROFILE, value: prod}]
      provideClusterInfo: true
      interactiveMode: Never
`,
    "/x/config",
  );
  const exec = file.users[0]?.exec;
  assert.deepEqual(exec?.args, ["eks", "get-token"]);
  assert.deepEqual(exec?.env, [{ name: "AWS_PROFILE", value: "prod" }]);
  assert.equal(exec?.provideClusterInfo, true);
  assert.equal(exec?.interactiveMode, "Never");
});

Deno.test({
  name: "a kubeconfig as kubectl writes it is read without the YAML parser, so it needs no env permission",
  permissions: { read: true, env: false },
  async fn() {
    const file = await parseKubeconfig(
      [
        "apiVersion: v1",
        "clusters:",
        "- cluster:",
        `    certificate-authority-data: ${b64("CA")}`,
        "    server: https://127.0.0.1:6443",
        "  name: dev",
        "contexts:",
        "- context:",
        "    cluster: dev",
        "    namespace: team-a",
        "    user: dev",
        "  name: dev",
        "current-context: dev",
        "kind: Config",
        "preferences: {}",
        "users:",
        "- name: dev",
        "  user:",
        "    token: abc",
        "",
      ].join("\n"),
      "/x/config",
    );
    assert.equal(file.currentContext, "dev");
    assert.equal(file.clusters[0]?.server, "https://127.0.0.1:6443");
    assert.equal(file.clusters[0]?.certificateAuthorityData, "CA");
    assert.equal(file.contexts[0]?.namespace, "team-a");
  },
});

Deno.test({
  name: "without env permission for the YAML parser's variables the error is a Permission error naming them",
  permissions: { read: true, env: false },
  async fn() {
    // An anchor: outside the subset read without the YAML parser, so the parser is needed.
    const error = await parseError("current-context: &c dev\n");
    assert.equal(error.reason, "Permission");
    assert.match(error.message, /environment variable LOG_TOKENS/);
    assert.match(error.message, /--ignore-env=LOG_TOKENS,LOG_STREAM/);
    assert.doesNotMatch(error.message, /invalid YAML/);
  },
});

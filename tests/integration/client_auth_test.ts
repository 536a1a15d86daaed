// Authentication paths of kubeloop's own HTTPS client against the real kube-apiserver: client
// certificates in every key format, static and rotating tokens, exec plugins, in-cluster mode,
// merged KUBECONFIG lists with relative paths, and the specific errors for bad credentials.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { ApiError, KubeClient } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, type KubeObject, NAMESPACES, SECRETS } from "../../lib/resources/mod.ts";
import { inClusterConfig, loadConfig } from "../../lib/config/mod.ts";
import { systemClock } from "../../lib/time/clock.ts";
import { b64, kubeconfigDoc, writeKubeconfig } from "../_util/clients.ts";
import {
  caCert,
  createNamespace,
  eventually,
  type KeyType,
  kubectlOk,
  mintClientCert,
  testEnv,
} from "../_util/testenv.ts";

const SELF_REVIEWS = {
  group: "authentication.k8s.io",
  version: "v1",
  plural: "selfsubjectreviews",
  kind: "SelfSubjectReview",
  namespaced: false,
};

/** Who the server thinks we are. */
async function whoami(client: KubeClient): Promise<string> {
  const review = await client.create<KubeObject & { status?: { userInfo?: { username?: string } } }>(
    SELF_REVIEWS,
    {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
      metadata: {},
    },
  );
  return review.status?.userInfo?.username ?? "";
}

/**
 * Waits until kube-apiserver's log says it refused the client certificate `certPem` (named by its serial
 * number, as the x509 authenticator logs it) with a message matching `reason`.
 */
async function serverRefused(certPem: string, reason: RegExp): Promise<void> {
  const serial = BigInt(`0x${new X509Certificate(certPem).serialNumber}`).toString();
  const log = join(testEnv.dir, "kube-apiserver.log");
  const line = await eventually(async () => {
    const text = await Deno.readTextFile(log);
    return text.split("\n").find((l) => l.includes(`SN=${serial},`));
  }, { timeoutMs: 10_000, message: `kube-apiserver did not log a refusal of certificate SN=${serial}` });
  assert.match(line, reason);
}

async function clientFor(kubeconfig: string): Promise<KubeClient> {
  return new KubeClient(await loadConfig({ kubeconfig, env: () => undefined }));
}

/** A ServiceAccount allowed to list ConfigMaps in `ns`, and a way to issue its tokens. */
async function serviceAccount(ns: string, name = "sa"): Promise<(boundSecret?: string) => Promise<string>> {
  await kubectlOk(["create", "serviceaccount", name, "-n", ns]);
  await kubectlOk(["create", "role", `${name}-cm`, "-n", ns, "--verb=get,list", "--resource=configmaps"]);
  await kubectlOk([
    "create",
    "rolebinding",
    `${name}-cm`,
    "-n",
    ns,
    `--role=${name}-cm`,
    `--serviceaccount=${ns}:${name}`,
  ]);
  return async (boundSecret?: string) => {
    const args = ["create", "token", name, "-n", ns, "--duration=10m"];
    if (boundSecret) args.push("--bound-object-kind=Secret", `--bound-object-name=${boundSecret}`);
    return (await kubectlOk(args)).trim();
  };
}

for (const keyType of ["rsa-pkcs1", "rsa-pkcs8", "ec-sec1", "ec-pkcs8"] as KeyType[]) {
  Deno.test(`a client certificate with a ${keyType} key authenticates (inline *-data fields)`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const { cert, key } = await mintClientCert({
        cn: `user-${keyType}`,
        groups: ["system:masters"],
        keyType,
      });
      const path = await writeKubeconfig(
        dir,
        "config",
        kubeconfigDoc(
          { "client-certificate-data": b64(cert), "client-key-data": b64(key) },
          { "certificate-authority-data": b64(await caCert()) },
        ),
      );
      await using client = await clientFor(path);
      assert.equal(await whoami(client), `user-${keyType}`);
      const ns = await client.get(NAMESPACES, "default");
      assert.equal(ns.metadata.name, "default");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a merged KUBECONFIG list: the first file defining a name wins and relative paths follow their file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "a/certs"), { recursive: true });
    await Deno.mkdir(join(dir, "b"));
    const good = await mintClientCert({ cn: "first-wins", groups: ["system:masters"], keyType: "ec-sec1" });
    const other = await mintClientCert({ cn: "second-loses", groups: ["system:masters"] });
    await Deno.writeTextFile(join(dir, "a/certs/ca.crt"), await caCert());
    await Deno.writeTextFile(join(dir, "a/certs/u.crt"), good.cert);
    await Deno.writeTextFile(join(dir, "a/certs/u.key"), good.key);
    const first = kubeconfigDoc(
      { "client-certificate": "certs/u.crt", "client-key": "certs/u.key" },
      { "certificate-authority": "certs/ca.crt" },
    );
    const second = {
      ...(kubeconfigDoc(
        { "client-certificate-data": b64(other.cert), "client-key-data": b64(other.key) },
        { "certificate-authority-data": b64(await caCert()) },
      ) as Record<string, unknown>),
      "current-context": "ctx",
    };
    const a = await writeKubeconfig(join(dir, "a"), "config", first);
    const b = await writeKubeconfig(join(dir, "b"), "config", second);
    const config = await loadConfig({ env: (n) => (n === "KUBECONFIG" ? `${a}:${b}` : undefined) });
    await using client = new KubeClient(config);
    assert.equal(await whoami(client), "first-wins");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a static token and a token file authenticate; a rotated file is picked up after a 401", async () => {
  await using ns = await createNamespace("auth-token");
  const issue = await serviceAccount(ns.name);
  await kubectlOk(["create", "secret", "generic", "bind-1", "-n", ns.name]);
  await kubectlOk(["create", "secret", "generic", "bind-2", "-n", ns.name]);
  const token1 = await issue("bind-1");
  const dir = await Deno.makeTempDir();
  try {
    const ca = { "certificate-authority-data": b64(await caCert()) };
    await using staticClient = await clientFor(
      await writeKubeconfig(dir, "static", kubeconfigDoc({ token: token1 }, ca)),
    );
    assert.equal(await whoami(staticClient), `system:serviceaccount:${ns.name}:sa`);

    const tokenPath = join(dir, "token");
    await Deno.writeTextFile(tokenPath, token1);
    // The token file is re-read once a minute or after a 401. Time stands still for this client, so only
    // the 401 can make it read the rotated file; its request metrics show every answer it got.
    const answers: string[] = [];
    const frozen = { ...systemClock, now: () => 1_700_000_000_000 };
    await using fileClient = new KubeClient(
      await loadConfig({
        kubeconfig: await writeKubeconfig(dir, "file", kubeconfigDoc({ tokenFile: tokenPath }, ca)),
        env: () => undefined,
        clock: frozen,
      }),
      { metrics: { observe: ({ code }) => void answers.push(code) } },
    );
    const before = await fileClient.list(CONFIG_MAPS, { namespace: ns.name });
    assert.ok(Array.isArray(before.items));
    assert.deepEqual(answers, ["200"]);

    // Rotate: a new token in the file, then invalidate the old one by deleting its bound object.
    // The apiserver caches successful token reviews for a few seconds, so wait until the static
    // client (which has no way to get a new token) is refused.
    await Deno.writeTextFile(tokenPath, await issue("bind-2"));
    await kubectlOk(["delete", "secret", "bind-1", "-n", ns.name]);
    await eventually(
      () =>
        staticClient.list(CONFIG_MAPS, { namespace: ns.name }).then(
          () => undefined,
          (e) => (e instanceof ApiError && e.isUnauthorized ? true : undefined),
        ),
      { timeoutMs: 30_000, intervalMs: 500, message: "the revoked token was still accepted" },
    );
    // The token-file client got 401 with the old token, re-read the file, and goes on working.
    const after = await fileClient.list(CONFIG_MAPS, { namespace: ns.name });
    assert.ok(Array.isArray(after.items));
    assert.deepEqual(answers, ["200", "401", "200"], "the old token was refused once, then the new one used");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an exec plugin's ExecCredential token authenticates", async () => {
  await using ns = await createNamespace("auth-exec");
  const token = await (await serviceAccount(ns.name))();
  const dir = await Deno.makeTempDir();
  try {
    const script = join(dir, "plugin.sh");
    const cred = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token },
    });
    await Deno.writeTextFile(script, `#!/bin/sh\ncat <<'EOF'\n${cred}\nEOF\n`);
    await Deno.chmod(script, 0o755);
    const path = await writeKubeconfig(
      dir,
      "config",
      kubeconfigDoc(
        {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: "./plugin.sh",
            interactiveMode: "Never",
          },
        },
        { "certificate-authority-data": b64(await caCert()) },
      ),
    );
    await using client = await clientFor(path);
    assert.equal(await whoami(client), `system:serviceaccount:${ns.name}:sa`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("in-cluster mode reads the service host/port env and the token directory", async () => {
  await using ns = await createNamespace("auth-incluster");
  const token = await (await serviceAccount(ns.name))();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "token"), token);
    await Deno.writeTextFile(join(dir, "ca.crt"), await caCert());
    await Deno.writeTextFile(join(dir, "namespace"), ns.name);
    const url = new URL(testEnv.server);
    const env: Record<string, string> = {
      KUBERNETES_SERVICE_HOST: url.hostname,
      KUBERNETES_SERVICE_PORT: url.port,
    };
    const config = await inClusterConfig({ dir, env: (n) => env[n] });
    assert.equal(config.namespace, ns.name);
    await using client = new KubeClient(config);
    const list = await client.list(CONFIG_MAPS, { namespace: client.namespace });
    assert.ok(Array.isArray(list.items));
    await assert.rejects(client.list(SECRETS, { namespace: ns.name }), (e: ApiError) => e.isForbidden);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bad credentials fail fast with the specific error, never a hang", async (t) => {
  const dir = await Deno.makeTempDir();
  const ca = { "certificate-authority-data": b64(await caCert()) };
  try {
    await t.step("a server certificate from an unknown CA", async () => {
      const other = await mintClientCert({ cn: "x", untrusted: true });
      const path = await writeKubeconfig(
        dir,
        "wrong-ca",
        kubeconfigDoc({ token: "x" }, { "certificate-authority-data": b64(other.cert) }),
      );
      await using client = await clientFor(path);
      await assert.rejects(client.get(NAMESPACES, "default"), (e: Error) => {
        assert.match(e.message, /unknown authority/);
        assert.match(e.message, new RegExp(testEnv.server.replace(/[.]/g, "\\.")));
        return true;
      });
    });
    await t.step("an expired client certificate", async () => {
      const { cert, key } = await mintClientCert({ cn: "old", groups: ["system:masters"], expired: true });
      const path = await writeKubeconfig(
        dir,
        "expired",
        kubeconfigDoc({ "client-certificate-data": b64(cert), "client-key-data": b64(key) }, ca),
      );
      await using client = await clientFor(path);
      // The handshake succeeds (kube-apiserver requests client certificates without verifying them in
      // TLS), the authenticator refuses the certificate: a 401, for the reason the server logs.
      await assert.rejects(client.get(NAMESPACES, "default"), (e: Error) => {
        assert.ok(e instanceof ApiError, `expected the server's 401, got ${e}`);
        assert.equal(e.code, 401);
        return true;
      });
      await serverRefused(cert, /x509: certificate has expired or is not yet valid/);
    });
    await t.step("a client certificate signed by another CA", async () => {
      const { cert, key } = await mintClientCert({
        cn: "stranger",
        groups: ["system:masters"],
        untrusted: true,
      });
      const path = await writeKubeconfig(
        dir,
        "stranger",
        kubeconfigDoc({ "client-certificate-data": b64(cert), "client-key-data": b64(key) }, ca),
      );
      await using client = await clientFor(path);
      await assert.rejects(client.get(NAMESPACES, "default"), (e: Error) => {
        assert.ok(e instanceof ApiError, `expected the server's 401, got ${e}`);
        assert.equal(e.code, 401);
        return true;
      });
      await serverRefused(cert, /x509: certificate signed by unknown authority/);
    });
    await t.step("an invalid token", async () => {
      const path = await writeKubeconfig(dir, "bad-token", kubeconfigDoc({ token: "not-a-real-token" }, ca));
      await using client = await clientFor(path);
      await assert.rejects(
        client.get(NAMESPACES, "default"),
        (e: ApiError) => e instanceof ApiError && e.isUnauthorized && e.code === 401,
      );
    });
    await t.step("nothing listening on the server port", async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      listener.close();
      const doc = kubeconfigDoc({ token: "x" }, ca) as { clusters: { cluster: { server: string } }[] };
      doc.clusters[0]!.cluster.server = `https://127.0.0.1:${port}`;
      await using client = await clientFor(await writeKubeconfig(dir, "refused", doc));
      await assert.rejects(client.get(NAMESPACES, "default"), (e: Error) => {
        assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
        return true;
      });
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// kubeconfig's `disable-compression: true` reaches the real API server: it answers a list large
// enough to be compressed (kube-apiserver gzips responses above 128 KiB) without gzip, and the same
// kubeconfig without the field gets gzip, so the first half fails on a client that ignores the field.
import assert from "node:assert/strict";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { HttpClient, type HttpRequest, type HttpResponse } from "../../lib/http/mod.ts";
import { b64, kubeconfigDoc, writeKubeconfig } from "../_util/clients.ts";
import { caCert, createNamespace, mintClientCert } from "../_util/testenv.ts";

interface Exchange {
  readonly asked: string | undefined;
  readonly got: string;
}

/** A client for `kubeconfig` whose transport records what each request asked for and got. */
async function recordingClient(kubeconfig: string): Promise<{ client: KubeClient; exchanges: Exchange[] }> {
  const config = await loadConfig({ kubeconfig, env: () => undefined });
  const { cert, key } = await config.credentials.get();
  const http = new HttpClient({ tls: cert && key ? { ...config.tls, cert, key } : config.tls });
  const exchanges: Exchange[] = [];
  const transport = {
    async request(request: HttpRequest): Promise<HttpResponse> {
      const res = await http.request(request);
      exchanges.push({
        asked: request.headers?.["Accept-Encoding"],
        got: res.headers.get("content-encoding") ?? "identity",
      });
      return res;
    },
    close: () => http.close(),
  };
  return { client: new KubeClient(config, { transport }), exchanges };
}

Deno.test("disable-compression in a kubeconfig makes the real server answer a large list uncompressed", async () => {
  await using ns = await createNamespace("no-gzip");
  const { cert, key } = await mintClientCert({ cn: "no-gzip-admin", groups: ["system:masters"] });
  const dir = await Deno.makeTempDir();
  try {
    const cluster = { "certificate-authority-data": b64(await caCert()) };
    const user = { "client-certificate-data": b64(cert), "client-key-data": b64(key) };
    const plain = await recordingClient(await writeKubeconfig(dir, "plain", kubeconfigDoc(user, cluster)));
    await using _plain = plain.client;
    const off = await recordingClient(
      await writeKubeconfig(dir, "off", kubeconfigDoc(user, { ...cluster, "disable-compression": true })),
    );
    await using _off = off.client;

    const value = "x".repeat(300 * 1024);
    await plain.client.create(CONFIG_MAPS, {
      metadata: { name: "big", namespace: ns.name },
      data: { value },
    });
    plain.exchanges.length = 0;

    const gzipped = await plain.client.list(CONFIG_MAPS, { namespace: ns.name });
    const uncompressed = await off.client.list(CONFIG_MAPS, { namespace: ns.name });
    assert.deepEqual(
      plain.exchanges,
      [{ asked: undefined, got: "gzip" }],
      "the default asks for gzip and gets it",
    );
    assert.deepEqual(off.exchanges, [{ asked: "identity", got: "identity" }]);
    for (const list of [gzipped, uncompressed]) {
      assert.deepEqual(list.items.map((cm) => [cm.metadata.name, cm.data?.["value"]?.length]), [[
        "big",
        value.length,
      ]]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

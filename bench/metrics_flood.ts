/**
 * The metrics port under a flood of made-up bearer tokens, against the real API server: `--workers`
 * scrapers send random tokens as fast as they are answered (ignoring Retry-After, as an attacker would) for
 * `--seconds`, while the valid scraper (a ServiceAccount token from TokenRequest, RBAC-allowed to get
 * /metrics, as Prometheus would hold) scrapes every `--interval-ms`, having scraped once before the flood.
 * The authorizer is `KubeScrapeAuthorizer` with its defaults, reviewing through a `KubeClient` whose
 * connections pass a counting TCP relay, so the table shows the TokenReviews and new connections the flood
 * cost the API server, against the authorizer's stated bound.
 *
 *   deno run --allow-all bench/metrics_flood.ts [--seconds=30] [--workers=64] [--interval-ms=2000]
 *       [--kubeconfig=PATH --kubectl=PATH]   # an API server already running (else one is started)
 *
 * tests/integration/bench_harness_smoke_test.ts runs it at a tiny size so it cannot rot.
 */
import { KubeScrapeAuthorizer, type ReviewClient } from "../lib/auth/mod.ts";
import { KubeClient } from "../lib/client/mod.ts";
import { loadConfig } from "../lib/config/mod.ts";
import { MetricsRegistry } from "../lib/metrics/registry.ts";
import { serveObservability, staticCertificate } from "../lib/observe/mod.ts";
import { selfSignedCertificate } from "../lib/x509/self_signed.ts";
import { startControlPlane } from "./_util/control_plane.ts";
import { countingProxy } from "./_util/counting_proxy.ts";
import { median, print, progress } from "./_util/stats.ts";

const args = new Map(
  Deno.args.map((a) => /^--([^=]+)=(.*)$/.exec(a)).filter((m) => m !== null).map((m) => [m[1]!, m[2]!]),
);
const seconds = Number(args.get("seconds") ?? 30);
const workers = Number(args.get("workers") ?? 64);
const intervalMs = Number(args.get("interval-ms") ?? 2_000);

/** The authorizer's defaults, stated here to compare against (lib/auth/kube_scrape_authorizer.ts). */
const BOUND = { reviewQps: 5, reviewBurst: 10, authenticatedTtlMs: 60_000 };

/** Runs kubectl with the admin kubeconfig; throws with its stderr on failure. */
async function kubectl(binary: string, kubeconfig: string, argv: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command(binary, {
    args: [`--kubeconfig=${kubeconfig}`, ...argv],
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { KUBECONFIG: "" },
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder();
  if (!out.success) throw new Error(`kubectl ${argv.join(" ")} failed: ${text.decode(out.stderr)}`);
  return text.decode(out.stdout);
}

/** A ServiceAccount allowed to get /metrics by RBAC, and a token of it from TokenRequest. */
async function scraperToken(binary: string, kubeconfig: string): Promise<string> {
  const name = "metrics-flood-reader";
  const objects = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: "default" } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name, namespace: "default" }],
    },
  ];
  await kubectl(
    binary,
    kubeconfig,
    ["apply", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  );
  return (await kubectl(binary, kubeconfig, ["create", "token", name, "-n", "default", "--duration=1h"]))
    .trim();
}

/** Counts the reviews the authorizer sends, by kind, on their way to the API server. */
function counted(client: KubeClient): ReviewClient & { tokenReviews: number; accessReviews: number } {
  const counter = {
    tokenReviews: 0,
    accessReviews: 0,
    create: ((ref, obj, options) => {
      if (ref.plural === "tokenreviews") counter.tokenReviews++;
      else counter.accessReviews++;
      return client.create(ref, obj, options);
    }) as ReviewClient["create"],
  };
  return counter;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  const b64 = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `eyJhbGciOiJSUzI1NiJ9.${b64.slice(0, 40)}.${b64.slice(40)}`;
}

async function scrape(
  url: string,
  client: Deno.HttpClient,
  token: string,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      client,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(15_000),
    });
    await res.body?.cancel();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started }; // no answer (refused, reset, timed out)
  }
}

const external = args.get("kubeconfig");
const plane = external
  ? undefined
  : (progress("starting kube-apiserver and etcd"), await startControlPlane());
const kubeconfig = external ?? plane!.kubeconfig;
const kubectlBinary = args.get("kubectl") ?? plane?.kubectl;
if (!kubectlBinary) throw new Error("--kubeconfig needs --kubectl");
const stop = new AbortController();
try {
  const token = await scraperToken(kubectlBinary, kubeconfig);
  const config = await loadConfig({ kubeconfig, env: () => undefined });
  await using proxy = countingProxy({
    hostname: config.server.hostname,
    port: Number(config.server.port || 443),
  });
  await using client = new KubeClient({ ...config, server: new URL(`https://127.0.0.1:${proxy.port}`) });
  const reviews = counted(client);
  const tls = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const server = serveObservability({
    metricsAddress: "127.0.0.1:0",
    healthAddress: "0",
    registry: new MetricsRegistry(),
    readyz: () => true,
    metricsTls: staticCertificate(tls),
    metricsAuthorizer: new KubeScrapeAuthorizer(reviews),
    signal: stop.signal,
  });
  const url = server.metricsUrl!;
  const valid = Deno.createHttpClient({ caCerts: [tls.cert] });
  const first = await scrape(url, valid, token);
  if (first.status !== 200) throw new Error(`the valid scraper's first scrape answered ${first.status}`);

  progress(`flooding ${url} with ${workers} workers for ${seconds} s`);
  const before = {
    tokenReviews: reviews.tokenReviews,
    accessReviews: reviews.accessReviews,
    opened: proxy.opened,
  };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const floodStatus = new Map<number, number>();
  const flood = Array.from({ length: workers }, async () => {
    const client = Deno.createHttpClient({ caCerts: [tls.cert] });
    try {
      while (performance.now() < deadline) {
        const { status } = await scrape(url, client, randomToken());
        floodStatus.set(status, (floodStatus.get(status) ?? 0) + 1);
      }
    } finally {
      client.close();
    }
  });
  const validResults: { status: number; ms: number }[] = [];
  const scraper = (async () => {
    for (let next = started; next < deadline; next += intervalMs) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      validResults.push(await scrape(url, valid, token));
    }
  })();
  await Promise.all([...flood, scraper]);
  const elapsed = (performance.now() - started) / 1000;
  valid.close();

  const tokenReviews = reviews.tokenReviews - before.tokenReviews;
  const accessReviews = reviews.accessReviews - before.accessReviews;
  const opened = proxy.opened - before.opened;
  const failed = validResults.filter((r) => r.status !== 200);
  const floodTotal = [...floodStatus.values()].reduce((a, b) => a + b, 0);
  const statuses = [...floodStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) =>
    `${s || "no answer"}: ${n}`
  ).join(", ");
  const knownReReviews = Math.ceil((elapsed * 1000) / BOUND.authenticatedTtlMs);
  const bound = BOUND.reviewBurst + BOUND.reviewQps * elapsed + knownReReviews;
  const rate = (n: number) => (n / elapsed).toFixed(1);
  print("");
  print(`| metrics port under a token flood (${new Date().toISOString().slice(0, 10)})  | value |`);
  print("| --- | --- |");
  print(
    `| flood | ${workers} workers, ${elapsed.toFixed(1)} s, ${floodTotal} requests (${rate(floodTotal)}/s) |`,
  );
  print(`| flood answers | ${statuses} |`);
  print(
    `| valid scrapes | ${validResults.length} every ${intervalMs} ms, ${failed.length} failed${
      failed.length ? ` (${failed.map((r) => r.status).join(", ")})` : ""
    } |`,
  );
  print(
    `| valid scrape latency | median ${median(validResults.map((r) => r.ms)).toFixed(1)} ms, max ${
      Math.max(...validResults.map((r) => r.ms)).toFixed(1)
    } ms |`,
  );
  print(
    `| TokenReviews to the API server | ${tokenReviews} (${rate(tokenReviews)}/s); bound ${
      Math.floor(bound)
    } (${BOUND.reviewQps}/s + burst ${BOUND.reviewBurst} + ${knownReReviews} re-review) |`,
  );
  print(`| SubjectAccessReviews | ${accessReviews} (${rate(accessReviews)}/s) |`);
  print(`| new connections to the API server | ${opened} (${rate(opened)}/s) |`);
  print("");
  stop.abort();
  await server.finished;
} finally {
  stop.abort();
  await plane?.[Symbol.asyncDispose]();
}

/**
 * How the scale bench reads the reference controller's API request counts from its secure /metrics (HTTPS,
 * every scrape authorized through the API server, the default since `--metrics-secure`):
 *
 * - the controller serves a certificate the bench made (`--metrics-cert-path`), and the bench's own HTTP
 *   client (lib/http) trusts exactly that certificate;
 * - every scrape presents the token of a fresh ServiceAccount bound to the shipped metrics-reader
 *   ClusterRole (manifests/metrics_rbac.yaml), so no scrape finds the decision of another in the
 *   controller's cache and each costs the controller the same reviews;
 * - that cost is measured, not assumed: two scrapes back to back while the controller is idle differ by
 *   exactly one scrape's reviews ({@linkcode MetricsScraper.baseline}), which {@linkcode requestsBetween}
 *   takes out of the count.
 * @module
 */
import { join } from "node:path";
import { HttpClient } from "../../lib/http/mod.ts";
import { selfSignedCertificate } from "../../lib/x509/self_signed.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Runs kubectl with the bench's admin kubeconfig; resolves with its stdout. */
export type Kubectl = (args: string[], stdin?: string) => Promise<string>;

/** `rest_client_requests_total` summed by method. */
export type RequestsByMethod = Record<string, number>;

/** Scrapes one controller's /metrics; disposing it removes the certificate files and closes connections. */
export interface MetricsScraper extends AsyncDisposable {
  /** The flags main.ts needs to serve the bench's certificate. */
  readonly flags: readonly string[];
  /** Binds the metrics port (once the controller listens there). */
  attach(port: number): void;
  /** One scrape's request counts, as a fresh identity that the controller has to review. */
  scrape(): Promise<RequestsByMethod>;
  /**
   * Counts to measure from, taken with the controller idle: the second of two scrapes, and what one
   * scrape itself adds (the second minus the first).
   */
  baseline(): Promise<{ counts: RequestsByMethod; perScrape: RequestsByMethod }>;
}

/** Sums `rest_client_requests_total` by method from a Prometheus text exposition. */
export function requestsByMethod(metrics: string): RequestsByMethod {
  const out: RequestsByMethod = {};
  for (const line of metrics.split("\n")) {
    const m = /^rest_client_requests_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const method = /method="([^"]*)"/.exec(m[1] ?? "")?.[1] ?? "?";
    out[method] = (out[method] ?? 0) + Number(m[2]);
  }
  return out;
}

/** The requests made between `before` and `after` (a scrape), less what that scrape added itself. */
export function requestsBetween(
  before: RequestsByMethod,
  after: RequestsByMethod,
  perScrape: RequestsByMethod,
): RequestsByMethod {
  const delta: RequestsByMethod = {};
  for (const [method, count] of Object.entries(after)) {
    delta[method] = count - (before[method] ?? 0) - (perScrape[method] ?? 0);
    if (delta[method] < 0) throw new Error(`negative ${method} request count: the scrape cost moved`);
  }
  return delta;
}

/** Makes the certificate and the metrics-reader ClusterRole ready; scrapes once `attach` names the port. */
export async function metricsScraper(kubectl: Kubectl): Promise<MetricsScraper> {
  await kubectl(["apply", "-f", join(root, "manifests", "metrics_rbac.yaml")]);
  const tls = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-scale-metrics-" });
  await Deno.writeTextFile(join(dir, "tls.crt"), tls.cert);
  await Deno.writeTextFile(join(dir, "tls.key"), tls.key, { mode: 0o600 });
  const http = new HttpClient({ tls: { caCerts: [tls.cert] } });
  let url: URL | undefined;
  let scrapes = 0;
  const scrape = async () => {
    if (!url) throw new Error("metricsScraper: attach(port) first");
    const name = `scale-metrics-scraper-${++scrapes}`;
    await kubectl(["create", "serviceaccount", name, "-n", "default"]);
    await kubectl([
      "create",
      "clusterrolebinding",
      name,
      "--clusterrole=kubeloop-sample-controller-metrics-reader",
      `--serviceaccount=default:${name}`,
    ]);
    const token = (await kubectl(["create", "token", name, "-n", "default", "--duration=1h"])).trim();
    const res = await http.request({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
    return requestsByMethod(text);
  };
  return {
    flags: [`--metrics-cert-path=${dir}`],
    attach(port) {
      url = new URL(`https://127.0.0.1:${port}/metrics`);
    },
    scrape,
    async baseline() {
      const first = await scrape();
      const counts = await scrape();
      const perScrape: RequestsByMethod = {};
      for (const [method, count] of Object.entries(counts)) perScrape[method] = count - (first[method] ?? 0);
      return { counts, perScrape };
    },
    async [Symbol.asyncDispose]() {
      http.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

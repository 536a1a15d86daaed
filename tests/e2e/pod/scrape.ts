/**
 * Scraping /metrics as Prometheus would, for either form of the Deployment: plain (`--metrics-bind-address`
 * only) or `--metrics-secure`, where the endpoint authenticates a bearer token (TokenReview) and authorizes
 * it (SubjectAccessReview): then the scraper is a ServiceAccount bound to the manifests' ClusterRole that
 * grants `get` on the /metrics URL, and an anonymous scrape must be refused.
 */
import { request } from "node:https";
import { kubectlOk } from "../../_util/testenv.ts";
import { argEnabled, type PodSpec } from "./pod_spec.ts";

/** A scrape's outcome. */
export interface ScrapeResult {
  readonly status: number;
  readonly body: string;
  /** "http" or "https", whichever the endpoint answered. */
  readonly scheme: string;
}

/** True when the Deployment serves metrics behind authentication. */
export function metricsSecure(spec: PodSpec): boolean {
  return argEnabled(spec.container.args, "metrics-secure");
}

/** A token of a ServiceAccount bound to the metrics-reader ClusterRole (created if missing). */
export async function metricsReaderToken(spec: PodSpec): Promise<string> {
  const role = spec.metricsReaderRole;
  const namespace = spec.container.namespace;
  if (!role) {
    throw new Error("--metrics-secure is set, but no ClusterRole in manifests/ grants get on /metrics");
  }
  const name = "pod-rehearsal-metrics-scraper";
  const objects = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
  ];
  await kubectlOk(["apply", "-f", "-"], {
    stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  });
  return (await kubectlOk(["create", "token", name, "-n", namespace, "--duration=1h"])).trim();
}

/** GET over HTTPS without verifying the serving certificate (a self-signed one is expected). */
function httpsGet(url: string, headers: Record<string, string>): Promise<ScrapeResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, rejectUnauthorized: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => body += chunk);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, scheme: "https" }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** GETs `http://127.0.0.1:<port><path>` (the host end of the pod's port), falling back to HTTPS. */
export async function scrape(hostUrl: string, token?: string): Promise<ScrapeResult> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  try {
    const res = await fetch(hostUrl, { headers });
    const body = await res.text();
    // A TLS server that speaks HTTP errors (Go's does) answers a plain request with 400.
    if (res.status !== 400 || !/HTTPS/i.test(body)) return { status: res.status, body, scheme: "http" };
    throw new Error(body.trim());
  } catch (plainError) {
    try {
      return await httpsGet(hostUrl.replace(/^http:/, "https:"), headers);
    } catch (tlsError) {
      throw new Error(`Cannot scrape ${hostUrl}: over HTTP ${plainError}; over HTTPS ${tlsError}`);
    }
  }
}

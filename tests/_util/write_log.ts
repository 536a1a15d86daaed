/**
 * Counting a controller's writes as the API server sees them: a KubeClient whose transport records every
 * write request (POST, PUT, PATCH, DELETE) with its target object, body and the server's answer. For the
 * integration tests that hold a controller to the minimum number of writes.
 * @module
 */
import { KubeClient, type KubeClientOptions } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { HttpClient, type HttpRequest, type HttpResponse } from "../../lib/http/mod.ts";
import { testEnv } from "./testenv.ts";

/** One write request and the server's answer. */
export interface WriteRecord {
  /** "create" (POST), "update" (PUT), "patch" (PATCH) or "delete" (DELETE). */
  readonly verb: "create" | "update" | "patch" | "delete";
  /** Plural resource name, e.g. "secrets". */
  readonly resource: string;
  /** "namespace/name" (or "name") of the target; for a create, the created object's. */
  readonly object: string;
  /** "status" for status writes, else "". */
  readonly subresource: string;
  /** The request body as sent. */
  readonly body: string;
  /** HTTP status of the answer. */
  readonly status: number;
  /** `metadata.resourceVersion` of the answer, when it is an object. */
  readonly resourceVersion: string | undefined;
}

const VERBS: Record<string, WriteRecord["verb"]> = {
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The target of a request path: /api/v1/namespaces/ns/secrets/x/status → secrets, ns/x, status. */
function target(path: string): { resource: string; namespace: string; name: string; subresource: string } {
  const parts = path.split("/").filter((p) => p !== "");
  const rest = parts[0] === "api" ? parts.slice(2) : parts.slice(3);
  const namespace = rest[0] === "namespaces" && rest.length > 2 ? rest[1] ?? "" : "";
  const local = namespace ? rest.slice(2) : rest;
  return {
    resource: local[0] ?? "",
    namespace,
    name: local[1] ?? "",
    subresource: local[2] ?? "",
  };
}

/** A response with its body read once into `text`, handed on as a fresh one. */
function replay(res: HttpResponse, text: string): HttpResponse {
  const bytes = new TextEncoder().encode(text);
  return {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
    body: new Blob([bytes]).stream(),
    bytes: () => Promise.resolve(bytes),
    text: () => Promise.resolve(text),
    cancel: () => Promise.resolve(),
  };
}

/** An admin KubeClient that records its writes in `writes` (in the order their answers arrived). */
export async function recordingClient(
  options: KubeClientOptions = {},
): Promise<{ client: KubeClient; writes: WriteRecord[] }> {
  const config = await loadConfig({ kubeconfig: testEnv.kubeconfig, env: () => undefined });
  const { cert, key } = await config.credentials.get();
  const http = new HttpClient({ tls: cert && key ? { ...config.tls, cert, key } : config.tls });
  const writes: WriteRecord[] = [];
  const transport = {
    async request(request: HttpRequest): Promise<HttpResponse> {
      const verb = VERBS[request.method];
      const res = await http.request(request);
      if (!verb) return res;
      const text = await res.text();
      let answer: { metadata?: { name?: string; namespace?: string; resourceVersion?: string } } = {};
      try {
        answer = JSON.parse(text);
      } catch {
        // Not JSON: recorded without a resourceVersion.
      }
      const t = target(request.url.pathname);
      const name = t.name || answer.metadata?.name || "";
      const namespace = t.namespace || answer.metadata?.namespace || "";
      const body = request.body;
      writes.push({
        verb,
        resource: t.resource,
        object: namespace ? `${namespace}/${name}` : name,
        subresource: t.subresource,
        body: typeof body === "string" ? body : body ? new TextDecoder().decode(body) : "",
        status: res.status,
        resourceVersion: answer.metadata?.resourceVersion,
      });
      return replay(res, text);
    },
    close: () => http.close(),
  };
  return { client: new KubeClient(config, { ...options, transport }), writes };
}

/** `writes` as compact lines, "verb resource/object[/sub] status", for assertions that read well. */
export function writeLines(writes: readonly WriteRecord[]): string[] {
  return writes.map((w) =>
    `${w.verb} ${w.resource}/${w.object}${w.subresource ? `/${w.subresource}` : ""} ${w.status}`
  );
}

/**
 * Writes that changed nothing: per target (object and subresource), a write whose body equals the previous
 * write's, or whose answer carries the resourceVersion the previous write's answer carried (the server
 * found nothing to change). Failed writes count as well: a 409 or an AlreadyExists is a wasted request.
 */
export function needlessWrites(writes: readonly WriteRecord[]): string[] {
  const last = new Map<string, WriteRecord>();
  const out: string[] = [];
  for (const w of writes) {
    const key = `${w.resource}/${w.object}${w.subresource ? `/${w.subresource}` : ""}`;
    const before = last.get(key);
    const line = `${w.verb} ${key} ${w.status}`;
    if (w.status >= 300) out.push(`${line} (failed)`);
    else if (before && before.verb === w.verb && before.body === w.body) out.push(`${line} (same body)`);
    else if (before && w.resourceVersion !== undefined && before.resourceVersion === w.resourceVersion) {
      out.push(`${line} (no change: resourceVersion ${w.resourceVersion})`);
    }
    last.set(key, w);
  }
  return out;
}

// Fixtures shared by the config tests: an in-memory file system, an env map, scripted plugins.
import type { ExecResult, ExecRunner, ExecRunOptions } from "../../lib/config/mod.ts";

/** An in-memory readTextFile; missing paths throw Deno.errors.NotFound like the real one. */
export class MemFs {
  readonly files: Map<string, string>;
  readonly reads: string[] = [];
  constructor(files: Record<string, string> = {}) {
    this.files = new Map(Object.entries(files));
  }
  readTextFile = (path: string): Promise<string> => {
    this.reads.push(path);
    const text = this.files.get(path);
    if (text === undefined) return Promise.reject(new Deno.errors.NotFound(`No such file: ${path}`));
    return Promise.resolve(text);
  };
  /** How many times `path` was read. */
  count(path: string): number {
    return this.reads.filter((p) => p === path).length;
  }
}

/** A real PEM CA certificate, for code that checks what it is given (tests/http/fixtures/trust/ca.crt). */
export const CA_PEM: string = Deno.readTextFileSync(
  new URL("../http/fixtures/trust/ca.crt", import.meta.url),
);

/** An env function over a fixed map. */
export function envOf(vars: Record<string, string> = {}): (name: string) => string | undefined {
  return (name) => vars[name];
}

/** Base64 of UTF-8 text. */
export function b64(text: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A recorded plugin run. */
export interface Call {
  command: string;
  options: ExecRunOptions;
}

/** A runner that answers each call with the next scripted result and records the calls. */
export function scriptedRunner(...results: (ExecResult | Error)[]): { run: ExecRunner; calls: Call[] } {
  const calls: Call[] = [];
  const run: ExecRunner = (command, options) => {
    calls.push({ command, options });
    const next = results.shift();
    if (next === undefined) return Promise.reject(new Error("no more scripted results"));
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { run, calls };
}

/** An ExecCredential answer as a plugin prints it. */
export function credentialOutput(apiVersion: string, status: Record<string, unknown>): ExecResult {
  return { code: 0, stdout: JSON.stringify({ apiVersion, kind: "ExecCredential", status }), stderr: "" };
}

/** A minimal kubeconfig with one context; `extra` lines are appended under the user. */
export function simpleKubeconfig(opts: {
  server?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  clusterLines?: string[];
  userLines?: string[];
  current?: boolean;
} = {}): string {
  const cluster = opts.cluster ?? "c1";
  const user = opts.user ?? "u1";
  const context = opts.context ?? "ctx1";
  const clusterLines = opts.clusterLines ?? [];
  const userLines = opts.userLines ?? ["token: tok-" + user];
  return [
    "apiVersion: v1",
    "kind: Config",
    ...(opts.current === false ? [] : [`current-context: ${context}`]),
    "clusters:",
    `- name: ${cluster}`,
    "  cluster:",
    `    server: ${opts.server ?? "https://10.0.0.1:6443"}`,
    ...clusterLines.map((l) => `    ${l}`),
    "users:",
    `- name: ${user}`,
    "  user:",
    ...userLines.map((l) => `    ${l}`),
    "contexts:",
    `- name: ${context}`,
    "  context:",
    `    cluster: ${cluster}`,
    `    user: ${user}`,
    ...(opts.namespace ? [`    namespace: ${opts.namespace}`] : []),
    "",
  ].join("\n");
}

import type { Credentials } from "./types.ts";

/** Credentials parsed from a plugin's ExecCredential, with their expiry (ms since the epoch). */
export interface ExecOutput {
  readonly credentials: Credentials;
  readonly expiresAt: number | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// An apiVersion of the exec API, safe to repeat in a message (anything else might be a token).
const EXEC_API_VERSION = /^client\.authentication\.k8s\.io\/v[0-9a-z]{1,20}$/;

/**
 * Validates the ExecCredential a plugin printed: it must have the configured apiVersion and a
 * `status` with a token or a certificate/key pair. `fail` builds the error to throw.
 *
 * Messages say what is wrong but never quote the output: a broken plugin may print a raw token
 * or key, and these errors end up in logs.
 */
export function parseExecOutput(
  stdout: string,
  apiVersion: string,
  fail: (text: string) => Error,
): ExecOutput {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    const size = stdout.trim().length === 0 ? "it printed nothing" : `${stdout.length} characters`;
    throw fail(`its output is not JSON (${size}; the output is not shown, it may hold a secret)`);
  }
  if (!isRecord(doc) || doc["kind"] !== "ExecCredential") {
    throw fail(`its output is not an ExecCredential`);
  }
  const answered = doc["apiVersion"];
  if (answered !== apiVersion) {
    const which = typeof answered === "string" && EXEC_API_VERSION.test(answered)
      ? `apiVersion "${answered}"`
      : answered === undefined
      ? "no apiVersion"
      : "an invalid apiVersion";
    throw fail(`it answered with ${which}, but ${apiVersion} was configured`);
  }
  const status = doc["status"];
  if (!isRecord(status)) throw fail(`its ExecCredential has no status`);
  const token = optionalString(status, "token", fail);
  const cert = optionalString(status, "clientCertificateData", fail);
  const key = optionalString(status, "clientKeyData", fail);
  if ((cert === undefined) !== (key === undefined)) {
    throw fail(`its status must have both clientCertificateData and clientKeyData, or neither`);
  }
  if (token === undefined && cert === undefined) {
    throw fail(`its status has neither a token nor clientCertificateData/clientKeyData`);
  }
  const stamp = optionalString(status, "expirationTimestamp", fail);
  let expiresAt: number | undefined;
  if (stamp !== undefined) {
    expiresAt = Date.parse(stamp);
    if (Number.isNaN(expiresAt)) {
      throw fail(`its status.expirationTimestamp is not an RFC 3339 time`);
    }
  }
  const credentials: Credentials = {
    ...(token === undefined ? {} : { token }),
    ...(cert === undefined || key === undefined ? {} : { cert, key }),
  };
  return { credentials, expiresAt };
}

function optionalString(
  status: Record<string, unknown>,
  key: string,
  fail: (text: string) => Error,
): string | undefined {
  const value = status[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw fail(`its status.${key} is not a string`);
  return value;
}

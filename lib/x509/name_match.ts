/**
 * Whether a server certificate is valid for the name a client connects to, by the rules Go and
 * rustls use: only subjectAltName entries count (never the subject's CN); an IP address matches
 * only an iPAddress entry; a DNS name matches a dNSName entry case-insensitively (ASCII), where a
 * leading "*." stands for exactly one whole label and needs at least two labels after it (Go
 * accepts "*.com"; rustls does not). As in Go, wildcards and a trailing dot on the name count only
 * when the name and the entry are host names (letters, digits, "-" and "_" in non-empty labels);
 * anything else matches an entry only when it is exactly the same.
 * @module
 */
import { ipAddressBytes } from "../_internal/ip_address.ts";
import type { Certificate } from "./certificate.ts";
import { type AltName, ipText } from "./general_names.ts";

/**
 * True when `cert` names `name` (a host name, or an IPv4/IPv6 address without brackets). An IPv6
 * address with a zone id (`fe80::1%eth0`) matches nothing: no entry carries a zone, and dropping it
 * would vouch for an address on an interface the certificate knows nothing of (rustls, the other
 * path, refuses such a name outright).
 */
export function certificateMatchesName(cert: Certificate, name: string): boolean {
  const ip = ipAddressBytes(name);
  if (ip !== undefined) {
    return cert.altNames.some((alt) => alt.kind === "ip" && sameAddress(alt.bytes, ip));
  }
  // Not an address, and not a host name either: no dNSName entry may match it literally.
  if (name.includes(":") || name.includes("%")) return false;
  const candidate = lowerAscii(name);
  const host = candidate.endsWith(".") ? candidate.slice(0, -1) : candidate;
  const labels = hostLabels(host, false) ? host.split(".") : undefined;
  return cert.altNames.some((alt) => {
    if (alt.kind !== "dns") return false;
    const pattern = lowerAscii(alt.value);
    if (labels !== undefined && hostLabels(pattern, true)) return labelsMatch(pattern.split("."), labels);
    return pattern === candidate && candidate !== "" && candidate !== ".";
  });
}

/** The names a certificate is valid for, for error messages: e.g. `DNS:localhost, IP:127.0.0.1`. */
export function describeNames(cert: Certificate, max = 10): string {
  const shown = cert.altNames.slice(0, max).map(showName);
  if (shown.length === 0) return "no DNS names or IP addresses (the subject CN is not used)";
  const more = cert.altNames.length - shown.length;
  return shown.join(", ") + (more > 0 ? ` and ${more} more` : "");
}

function showName(alt: AltName): string {
  switch (alt.kind) {
    case "dns":
      return `DNS:${alt.value}`;
    case "ip":
      return `IP:${ipText(alt.bytes)}`;
    case "email":
      return `email:${alt.value}`;
    case "uri":
      return `URI:${alt.value}`;
  }
}

function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Go's test of a host name (`pattern`: a dNSName entry, whose first label may be "*"). */
function hostLabels(name: string, pattern: boolean): boolean {
  if (name === "" || name === "*") return false;
  return name.split(".").every((label, i) =>
    (pattern && i === 0 && label === "*") || /^[a-z0-9_][a-z0-9_-]*$/.test(label)
  );
}

function labelsMatch(pattern: readonly string[], host: readonly string[]): boolean {
  if (pattern.length !== host.length) return false;
  // "*.com" would vouch for a whole top-level domain.
  if (pattern[0] === "*" && pattern.length < 3) return false;
  return pattern.every((label, i) => (i === 0 && label === "*") || label === host[i]);
}

/** An IPv4-mapped IPv6 SAN matches the IPv4 address, as in Go. */
function sameAddress(san: Uint8Array, ip: Uint8Array): boolean {
  const a = normalize(san);
  const b = normalize(ip);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function normalize(bytes: Uint8Array): Uint8Array {
  if (bytes.length !== 16) return bytes;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return bytes;
  return bytes[10] === 0xff && bytes[11] === 0xff ? bytes.subarray(12) : bytes;
}

/**
 * How a name of each form falls under a name constraint, by the rules Go's crypto/x509 applies
 * (RFC 5280 4.2.1.10 plus the leading-period form of DNS constraints): DNS names by whole labels
 * from the right, case-insensitively; IP addresses by address and mask; email addresses by exact
 * mailbox or by domain; URIs by their host. Private to name_constraints.ts.
 * @module
 */
import { ipAddressBytes } from "../_internal/ip_address.ts";

/**
 * Go's test of a DNS name (or, with `constraint`, a DNS constraint, which may start with "."): no
 * trailing dot, no empty label, only printable ASCII without spaces. The empty string passes (as an
 * empty constraint, it matches every name).
 */
export function domainNameValid(name: string, constraint: boolean): boolean {
  if (name === "") return true;
  if (name.endsWith(".")) return false;
  const s = constraint && name.startsWith(".") ? name.slice(1) : name;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 33 || c > 126) return false;
  }
  return s.split(".").every((label) => label !== "");
}

/**
 * True when DNS constraint `constraint` covers `name`: "" covers every name; "example.com" covers
 * example.com and every name below it (whole labels); ".example.com" only the names below it. For
 * an excluded constraint, a wildcard name is covered too when it could stand for a covered name
 * ("*.example.com" under "bad.example.com").
 */
export function dnsCovers(constraint: string, name: string, excluded: boolean): boolean {
  if (constraint === "") return true;
  const c = constraint.toLowerCase();
  const n = name.toLowerCase();
  if (
    n.endsWith(c) &&
    (c.startsWith(".") ? n.length > c.length : n.length === c.length || n.at(-c.length - 1) === ".")
  ) {
    return true;
  }
  if (!excluded || !n.startsWith("*")) return false;
  const parent = withoutFirstLabel(n);
  return parent !== "" && parent === withoutFirstLabel(c);
}

/** The name from its first "." on (".example.com" for "a.example.com"), or "" for one label. */
function withoutFirstLabel(name: string): string {
  const dot = name.indexOf(".");
  return dot < 0 ? "" : name.slice(dot);
}

/** An IP range of a name constraint: an address and a mask, 4 or 16 bytes each. */
export interface IpRange {
  readonly address: Uint8Array;
  readonly mask: Uint8Array;
}

/** True when `mask` is ones and then zeros, as Go requires of a constraint. */
export function contiguousMask(mask: Uint8Array): boolean {
  let zeros = false;
  for (const byte of mask) {
    if (zeros ? byte !== 0 : byte !== 0xff) {
      if (zeros || ((~byte & 0xff) & ((~byte & 0xff) + 1)) !== 0) return false;
      zeros = true;
    }
  }
  return true;
}

/**
 * True for a range Go's search through sorted ranges can miss, or find where a plain reading would
 * not: an address with bits set outside its mask (10.0.0.5/8), or an IPv4-mapped IPv6 network
 * (::ffff:10.0.0.0/104), which Go compares as IPv4 while sorting it among the IPv6 ranges.
 */
export function irregularRange(range: IpRange): boolean {
  if (range.address.length === 16 && asIpv4(range.address) !== undefined) return true;
  return range.address.some((b, i) => (b & ~range.mask[i]!) !== 0);
}

/**
 * True when `ip` (4 or 16 bytes) lies in `range`, as Go's `net.IPNet.Contains` decides: an
 * IPv4-mapped IPv6 address, in the range or as the name, is taken as its IPv4 address.
 */
export function ipInRange(range: IpRange, ip: Uint8Array): boolean {
  let network = range.address;
  let mask = range.mask;
  const network4 = asIpv4(network);
  if (network4 !== undefined) {
    network = network4;
    if (mask.length === 16) mask = mask.subarray(12);
  }
  if (mask.length !== network.length) return false;
  const x = asIpv4(ip) ?? ip;
  if (x.length !== network.length) return false;
  return x.every((b, i) => (b & mask[i]!) === (network[i]! & mask[i]!));
}

function asIpv4(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length === 4) return bytes;
  if (bytes.length !== 16 || bytes[10] !== 0xff || bytes[11] !== 0xff) return undefined;
  return bytes.subarray(0, 10).every((b) => b === 0) ? bytes.subarray(12) : undefined;
}

/** An email address's parts; the domain in lower case, the local part as written. */
export interface Mailbox {
  readonly local: string;
  readonly domain: string;
}

const DOT_ATOM = /^([A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(?:\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*)@(.+)$/;

/**
 * An RFC 2821 mailbox of the plain form `local@domain` (dot-atom local part, non-empty domain of
 * non-empty labels); undefined for anything else. Go also reads quoted and escaped local parts;
 * under a name constraint those are refused here rather than read one way here and another there.
 */
export function parseMailbox(text: string): Mailbox | undefined {
  const match = DOT_ATOM.exec(text);
  if (match === null) return undefined;
  const domain = match[2]!;
  if (!domainNameValid(domain, false)) return undefined;
  return { local: match[1]!, domain: domain.toLowerCase() };
}

/**
 * The host a URI names, in lower case, for URI constraints; undefined when it has none that a
 * constraint could match (no authority, an empty host, an IP address, a port that is not a number,
 * percent-encoding), which Go refuses under any name constraint too.
 */
export function uriHost(uri: string): string | undefined {
  const match = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/([^/?#]*)/.exec(uri);
  if (match === null) return undefined;
  let host = match[1]!.slice(match[1]!.lastIndexOf("@") + 1).toLowerCase();
  if (host.includes("%") || host.startsWith("[")) return undefined;
  const colon = host.lastIndexOf(":");
  if (colon >= 0) {
    if (!/^[0-9]*$/.test(host.slice(colon + 1))) return undefined;
    host = host.slice(0, colon);
    if (host.includes(":")) return undefined;
  }
  if (host === "" || ipAddressBytes(host) !== undefined) return undefined;
  return host;
}

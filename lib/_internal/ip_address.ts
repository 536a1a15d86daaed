/**
 * A strict parser of IP address literals, so that deciding whether a host is an address needs no
 * `node:net`. It accepts what node's `isIP` accepts and nothing more: IPv4 as four decimal parts
 * 0-255 without leading zeros; IPv6 in full, with one `::` standing for at least one zero group,
 * and with an IPv4 dotted-quad as its last 32 bits; hex digits in either case. No brackets, no
 * surrounding spaces, no shortened or octal IPv4 forms.
 * @module
 */

/**
 * The 4 bytes of an IPv4 literal or the 16 bytes of an IPv6 literal; undefined for anything else.
 * An IPv6 literal with a zone id (`fe80::1%eth0`) is undefined too: it names an address on one
 * interface of one machine, which no certificate can vouch for, so it must never be taken for the
 * address without the zone (see {@linkcode isIpAddress} for the question node's `isIP` answers).
 */
export function ipAddressBytes(text: string): Uint8Array | undefined {
  return text.includes(":") ? ipv6Bytes(text) : ipv4Bytes(text);
}

/**
 * True when `text` is an IP address as node's `isIP` sees it: a literal {@linkcode ipAddressBytes}
 * accepts, or an IPv6 literal followed by a zone id (`%` and letters, digits, `.`, `:` or `-`).
 * For deciding that a name must not be sent as a TLS server name.
 */
export function isIpAddress(text: string): boolean {
  const percent = text.indexOf("%");
  if (percent < 0) return ipAddressBytes(text) !== undefined;
  const address = text.slice(0, percent);
  return address.includes(":") && ZONE_ID.test(text.slice(percent + 1)) && ipv6Bytes(address) !== undefined;
}

const ZONE_ID = /^[0-9A-Za-z.:-]+$/;
const DECIMAL_PART = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

function ipv4Bytes(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!DECIMAL_PART.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    out[i] = value;
  }
  return out;
}

function ipv6Bytes(text: string): Uint8Array | undefined {
  let body = text;
  let tail: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(":");
  if (text.indexOf(".", lastColon) >= 0) {
    tail = ipv4Bytes(text.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    // Keep a "::" that ends right before the IPv4 part; drop a lone separator ("…:6:1.2.3.4").
    body = text.endsWith("::", lastColon + 1) ? text.slice(0, lastColon + 1) : text.slice(0, lastColon);
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const head = groups(halves[0]!);
  const rest = compressed ? groups(halves[1]!) : [];
  if (head === undefined || rest === undefined) return undefined;
  const wanted = tail === undefined ? 8 : 6;
  const given = head.length + rest.length;
  if (compressed ? given >= wanted : given !== wanted) return undefined;
  const out = new Uint8Array(16);
  const put = (values: readonly number[], at: number) =>
    values.forEach((value, i) => {
      out[at + 2 * i] = value >> 8;
      out[at + 2 * i + 1] = value & 0xff;
    });
  put(head, 0);
  put(rest, 2 * (wanted - rest.length));
  if (tail !== undefined) out.set(tail, 12);
  return out;
}

/** The 16-bit groups of a colon-separated run ("" is none); undefined when one is not 1-4 hex digits. */
function groups(run: string): number[] | undefined {
  if (run === "") return [];
  const values: number[] = [];
  for (const group of run.split(":")) {
    if (!HEX_GROUP.test(group)) return undefined;
    values.push(parseInt(group, 16));
  }
  return values;
}

/**
 * Name constraints (RFC 5280 4.2.1.10): the names a CA may vouch for, and the names it may not.
 * Read from the extension, and applied to a whole path as Go's crypto/x509 applies them: the
 * constraints of every CA on the path, the configured one included, critical or not, to every name
 * (DNS, IP, email, URI) of every certificate below it, not only to the name the client asked for.
 * @module
 */
import { contents, DerReader, type Element, Tag } from "./der_reader.ts";
import { type AltName, ipText, NameTag } from "./general_names.ts";
import {
  contiguousMask,
  dnsCovers,
  domainNameValid,
  ipInRange,
  type IpRange,
  irregularRange,
  type Mailbox,
  parseMailbox,
  uriHost,
} from "./name_forms.ts";

/** One side (permitted or excluded) of name constraints, by name form. */
export interface Subtrees {
  readonly dns: readonly string[];
  readonly ip: readonly IpRange[];
  /** A whole mailbox (with "@") or a domain. */
  readonly email: readonly string[];
  /** Hosts. */
  readonly uri: readonly string[];
}

/** The nameConstraints extension. */
export interface NameConstraints {
  readonly permitted: Subtrees;
  readonly excluded: Subtrees;
}

const ascii = new TextDecoder();

/**
 * Reads the extension's value. `understood` is false when a subtree is of a form not checked here
 * (directoryName, otherName, …): Go ignores such subtrees when the extension is not critical, and
 * refuses the certificate when it is.
 * @throws {SyntaxError} when the extension is malformed, empty, or a subtree is invalid (a DNS
 *   constraint that is no name, an IP range that is not 4 or 16 bytes with a contiguous mask, a
 *   minimum or maximum distance, which RFC 5280 rules out).
 */
export function readNameConstraints(
  der: Uint8Array,
  seq: Element,
): { constraints: NameConstraints; understood: boolean } {
  const top = DerReader.inside(der, seq);
  let understood = true;
  let present = false;
  const side = (tag: number): Subtrees => {
    const out = { dns: [] as string[], ip: [] as IpRange[], email: [] as string[], uri: [] as string[] };
    if (top.peekTag() !== tag) return out;
    present = true;
    const list = DerReader.inside(der, top.next());
    if (list.done) throw new SyntaxError("empty subtrees in name constraints");
    while (!list.done) {
      const subtree = DerReader.inside(der, list.next(Tag.SEQUENCE));
      const base = subtree.next();
      subtree.finish("a name constraint (a minimum or maximum distance)");
      if (!readBase(der, base, out)) understood = false;
    }
    return out;
  };
  const permitted = side(0xa0);
  const excluded = side(0xa1);
  top.finish("name constraints");
  if (!present) throw new SyntaxError("empty name constraints");
  return { constraints: { permitted, excluded }, understood };
}

/** Adds one subtree's base name to `out`; false when its form is not one checked here. */
function readBase(
  der: Uint8Array,
  base: Element,
  out: { dns: string[]; ip: IpRange[]; email: string[]; uri: string[] },
): boolean {
  const bytes = contents(der, base);
  const text = () => {
    if (bytes.some((b) => b > 0x7e || b < 0x20)) throw new SyntaxError("invalid name constraint");
    return ascii.decode(bytes);
  };
  switch (base.tag) {
    case NameTag.DNS: {
      const name = text();
      if (!domainNameValid(name, true)) throw new SyntaxError(`invalid DNS name constraint "${name}"`);
      out.dns.push(name);
      return true;
    }
    case NameTag.IP: {
      if (bytes.length !== 8 && bytes.length !== 32) throw new SyntaxError("invalid IP name constraint");
      const half = bytes.length / 2;
      const range = { address: bytes.subarray(0, half), mask: bytes.subarray(half) };
      if (!contiguousMask(range.mask)) throw new SyntaxError("IP name constraint with a non-contiguous mask");
      out.ip.push(range);
      return true;
    }
    case NameTag.EMAIL: {
      const name = text();
      const valid = name.includes("@") ? parseMailbox(name) !== undefined : domainNameValid(name, true);
      if (!valid) throw new SyntaxError(`invalid email name constraint "${name}"`);
      out.email.push(name);
      return true;
    }
    case NameTag.URI: {
      const name = text();
      if (name.includes(":") || /^[0-9.]+$/.test(name) || !domainNameValid(name, true)) {
        throw new SyntaxError(`invalid URI name constraint "${name}"`);
      }
      out.uri.push(name);
      return true;
    }
    default:
      return false;
  }
}

/** A certificate as name constraints see it: its names, and the constraints it imposes below it. */
export interface Constrained {
  readonly altNames: readonly AltName[];
  readonly nameConstraints: NameConstraints | undefined;
}

/**
 * Why `path` (the leaf first, the anchor last) breaks a name constraint, e.g. `DNS name "evil.test"
 * is not permitted by the name constraints of the trusted CA`; undefined when it breaks none. The
 * names of each certificate are checked against the constraints of every certificate above it.
 */
export function nameConstraintsProblem(path: readonly Constrained[]): string | undefined {
  for (let i = 0; i < path.length - 1; i++) {
    const names = path[i]!.altNames;
    if (names.length === 0) continue;
    for (let j = i + 1; j < path.length; j++) {
      const constraints = path[j]!.nameConstraints;
      if (constraints === undefined) continue;
      const problem = namesProblem(names, constraints);
      if (problem !== undefined) {
        const who = j === path.length - 1 ? "the trusted CA" : `intermediate certificate ${j}`;
        const whose = i === 0 ? "" : ` of intermediate certificate ${i}`;
        return `${problem}${whose} under the name constraints of ${who}`;
      }
    }
  }
  return undefined;
}

function namesProblem(names: readonly AltName[], nc: NameConstraints): string | undefined {
  for (const name of names) {
    const problem = nameProblem(name, nc);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function nameProblem(name: AltName, nc: NameConstraints): string | undefined {
  const { permitted, excluded } = nc;
  switch (name.kind) {
    case "ip":
      return ipProblem(name.bytes, nc);
    case "dns": {
      const dns = name.value;
      if (!domainNameValid(dns, false)) return `DNS name "${dns}" cannot be checked`;
      return verdict(
        `DNS name "${dns}"`,
        permitted.dns.length === 0 || permitted.dns.some((c) => dnsCovers(c, dns, false)),
        excluded.dns.some((c) => dnsCovers(c, dns, true)),
      );
    }
    case "uri": {
      const host = uriHost(name.value);
      if (host === undefined || !domainNameValid(host, false)) return `URI "${name.value}" cannot be checked`;
      return verdict(
        `URI "${name.value}"`,
        permitted.uri.length === 0 || permitted.uri.some((c) => dnsCovers(c, host, false)),
        excluded.uri.some((c) => dnsCovers(c, host, true)),
      );
    }
    case "email": {
      const mailbox = parseMailbox(name.value);
      if (mailbox === undefined) return `email address "${name.value}" cannot be checked`;
      return verdict(
        `email address "${name.value}"`,
        permitted.email.length === 0 || permitted.email.some((c) => emailCovers(c, mailbox, false)),
        excluded.email.some((c) => emailCovers(c, mailbox, true)),
      );
    }
  }
}

function verdict(what: string, permitted: boolean, excluded: boolean): string | undefined {
  if (!permitted) return `${what} is not permitted`;
  return excluded ? `${what} is excluded` : undefined;
}

/**
 * IPv4 names against IPv4 ranges, IPv6 names (IPv4-mapped ones too) against IPv6 ranges: with
 * permitted ranges of the other family only, an address is not permitted. Among the ranges of the
 * address's family, an irregular one (see `irregularRange`) refuses the address: this check must
 * not be the one that finds a range Go would miss.
 */
function ipProblem(ip: Uint8Array, nc: NameConstraints): string | undefined {
  const family = (ranges: readonly IpRange[]) => ranges.filter((r) => r.address.length === ip.length);
  const permitted = family(nc.permitted.ip);
  const excluded = family(nc.excluded.ip);
  const what = `IP address ${ipText(ip)}`;
  if ([...permitted, ...excluded].some(irregularRange)) {
    return `${what} cannot be checked (an irregular range)`;
  }
  return verdict(
    what,
    nc.permitted.ip.length === 0 || permitted.some((r) => ipInRange(r, ip)),
    excluded.some((r) => ipInRange(r, ip)),
  );
}

/** A constraint with "@" is one mailbox (the local part exact, the domain in any case); else a domain. */
function emailCovers(constraint: string, mailbox: Mailbox, excluded: boolean): boolean {
  if (!constraint.includes("@")) return dnsCovers(constraint, mailbox.domain, excluded);
  const exact = parseMailbox(constraint);
  return exact !== undefined && exact.local === mailbox.local && exact.domain === mailbox.domain;
}

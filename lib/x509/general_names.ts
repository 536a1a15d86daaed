/**
 * GeneralNames (RFC 5280 4.2.1.6) as the subjectAltName extension lists them: the names a
 * certificate is valid for, and the names name constraints apply to.
 * @module
 */
import { contents, DerReader, type Element } from "./der_reader.ts";

/** A name from the subjectAltName extension: the four types Go reads (and name constraints cover). */
export type AltName =
  | { readonly kind: "dns"; readonly value: string }
  | { readonly kind: "ip"; readonly bytes: Uint8Array }
  | { readonly kind: "email"; readonly value: string }
  | { readonly kind: "uri"; readonly value: string };

/** GeneralName tags of the four types above. */
export const NameTag = { EMAIL: 0x81, DNS: 0x82, URI: 0x86, IP: 0x87 } as const;

const ascii = new TextDecoder();

/**
 * The names of a subjectAltName SEQUENCE. Names of other types (otherName, directoryName, …) are
 * skipped; `understood` is false when there were only such names (Go then treats a critical
 * extension as one it does not understand).
 * @throws {SyntaxError} for a malformed name of the four types.
 */
export function readAltNames(der: Uint8Array, seq: Element): { names: AltName[]; understood: boolean } {
  const names: AltName[] = [];
  const reader = DerReader.inside(der, seq);
  while (!reader.done) {
    const name = reader.next();
    const value = contents(der, name);
    switch (name.tag) {
      case NameTag.DNS:
        // ASCII without spaces, so no look-alike characters can pass as a host name.
        if (value.some((b) => b > 0x7e || b < 0x21)) {
          throw new SyntaxError("invalid dNSName in subjectAltName");
        }
        names.push({ kind: "dns", value: ascii.decode(value) });
        break;
      case NameTag.IP:
        if (value.length !== 4 && value.length !== 16) {
          throw new SyntaxError("invalid iPAddress in subjectAltName");
        }
        names.push({ kind: "ip", bytes: value });
        break;
      case NameTag.EMAIL:
      case NameTag.URI:
        if (value.some((b) => b > 0x7e || b < 0x20)) throw new SyntaxError("invalid name in subjectAltName");
        names.push({ kind: name.tag === NameTag.EMAIL ? "email" : "uri", value: ascii.decode(value) });
        break;
    }
  }
  return { names, understood: names.length > 0 };
}

/** An IP address for messages: dotted IPv4, or eight hex groups of IPv6 (`0:0:0:0:0:0:0:1`). */
export function ipText(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < bytes.length; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(":");
}

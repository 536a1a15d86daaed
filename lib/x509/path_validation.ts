/**
 * RFC 5280 path validation for the CAs on a server certificate's path, as Go's crypto/x509 applies
 * it for a TLS client (what client-go does): the same rules for every CA, the configured ones (trust
 * anchors) included — a configured CA's own constraints bind the chains below it. Private to
 * path_search.ts. What the leaf alone must satisfy is checked by server_certificate.ts.
 * @module
 */
import type { Certificate } from "./certificate.ts";
import { nameConstraintsProblem } from "./name_constraints.ts";
import { publicKeyOf } from "./public_key.ts";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const ANY_PURPOSE = "2.5.29.37.0";

/**
 * Why `ca` cannot have issued the certificate below it on a path, or undefined when it can:
 * - it must be a CA: basicConstraints with cA true. A configured CA of X.509 v1 (which has no
 *   extensions) is accepted, as in Go; a v1 intermediate is not;
 * - its key usage, when present, must include keyCertSign;
 * - its path length constraint, when present, must allow `intermediatesBelow` (the intermediates
 *   between the leaf and `ca`): Go counts every one, self-issued certificates included, where RFC
 *   5280 would skip those; the stricter count is kept;
 * - it must be within its validity dates at `now`;
 * - it must carry no critical extension this check does not understand;
 * - its key may not be an id-RSASSA-PSS key (an RSA key restricted to PSS): Go's crypto/x509 has no
 *   such keys and refuses every chain through one, so we do too (rsaEncryption keys may sign with PSS).
 */
export function issuerProblem(
  ca: Certificate,
  anchor: boolean,
  intermediatesBelow: number,
  now: number,
): string | undefined {
  if ((ca.version === 3 || !anchor) && ca.isCa !== true) return "is not a CA";
  if (ca.keyCertSign === false) return "may not sign certificates";
  if (ca.pathLength !== undefined && intermediatesBelow > ca.pathLength) return "exceeds its path length";
  if (now < ca.notBefore || now > ca.notAfter) return "is expired or not valid yet";
  if (ca.unhandledCritical.length > 0) {
    return `has an unsupported critical extension ${ca.unhandledCritical[0]}`;
  }
  if (publicKeyOf(ca)?.type === "rsa-pss") return "has an id-RSASSA-PSS key, which is not accepted";
  return undefined;
}

/**
 * Why `path` (the leaf first, then the intermediates, the configured CA last), whose every link
 * `issuerProblem` accepted, is not valid for server authentication; undefined when it is:
 * - extended key usage nests: every CA that lists purposes (and not anyExtendedKeyUsage) must list
 *   serverAuth, or it may not vouch for a server (not in RFC 5280; Go and browsers do it);
 * - the name constraints of every CA hold for every name of the certificates below it
 *   (`nameConstraintsProblem`);
 * - certificate policies are not processed (Go processes them): a policy constraint below the
 *   configured CA that could make Go refuse the path — requireExplicitPolicy on any certificate,
 *   a mapping of anyPolicy by an intermediate — refuses it here, which is stricter than Go only when
 *   the path carries the policies asked for.
 */
export function pathProblem(path: readonly Certificate[]): string | undefined {
  const last = path.length - 1;
  const who = (i: number) =>
    i === last ? "the trusted CA" : i === 0 ? "the server certificate" : `intermediate certificate ${i}`;
  for (let i = last; i >= 1; i--) {
    const eku = path[i]!.extKeyUsage;
    if (eku !== undefined && eku.length > 0 && !eku.includes(SERVER_AUTH) && !eku.includes(ANY_PURPOSE)) {
      return `${who(i)} limits its extended key usage to purposes other than server authentication`;
    }
  }
  const names = nameConstraintsProblem(path);
  if (names !== undefined) return names;
  for (let i = 0; i < last; i++) {
    if (path[i]!.requiresExplicitPolicy) {
      return `${who(i)} requires certificate policies, which this check does not process`;
    }
    if (i > 0 && path[i]!.mapsAnyPolicy) return `${who(i)} maps anyPolicy, which RFC 5280 forbids`;
  }
  return undefined;
}

// Scenarios of the first round of attacks on the path check: forged chains, wrong names, dates,
// chains that are not chains, key usage, critical extensions, algorithms (fixtures).
import { pemCertificates } from "../../lib/x509/certificate.ts";
import { EXPIRED, NOT_YET, NOW, type Scenario, World } from "./_path_world.ts";

/** A scenario with the usual defaults: no intermediates, the name api.example.com, at NOW. */
export function ask(
  id: string,
  parts: Omit<Scenario, "id" | "intermediates" | "name" | "now"> & Partial<Scenario>,
): Scenario {
  return { id, intermediates: [], name: "api.example.com", now: NOW, ...parts };
}

const UNKNOWN_EXTENSION = "1.3.6.1.4.1.99999.1";

/** Chains that are, or are not, chains to the configured root; names; dates. */
export async function basicScenarios(w: World): Promise<Scenario[]> {
  const root = await w.selfSigned();
  const int = await w.ca();
  const int2 = await w.ca({}, w.int2, w.int);
  const viaInt = (changes = {}) => w.leaf(changes, w.int);
  const own = await w.selfSigned({ sans: ["dns:api.example.com"], eku: ["serverAuth"] });
  const out: Scenario[] = [
    ask("the configured root issued the leaf", { roots: [root], leaf: await w.leaf() }),
    ask("through one intermediate", { roots: [root], intermediates: [int], leaf: await viaInt() }),
    ask("through two intermediates", {
      roots: [root],
      intermediates: [int, int2],
      leaf: await w.leaf({}, w.int2),
    }),
    ask("two intermediates presented in reverse order, with the root and a stranger", {
      roots: [root],
      intermediates: [await w.selfSigned({}, w.rogue), int2, root, int],
      leaf: await w.leaf({}, w.int2),
    }),
    ask("an intermediate is missing", { roots: [root], leaf: await viaInt() }),
    ask("an IPv4 address in an IP SAN", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:api.example.com", "ip:10.1.2.3"] }),
      name: "10.1.2.3",
    }),
    ask("an IPv6 address in an IP SAN", {
      roots: [root],
      leaf: await w.leaf({ sans: ["ip:fd00::1"] }),
      name: "fd00::1",
    }),
    ask("another DNS name", { roots: [root], leaf: await w.leaf(), name: "other.example.com" }),
    ask("another IP address", {
      roots: [root],
      leaf: await w.leaf({ sans: ["ip:10.1.2.3"] }),
      name: "10.1.2.4",
    }),
    ask("an IP address only as a DNS SAN", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:10.1.2.3"] }),
      name: "10.1.2.3",
    }),
    ask("a one-label wildcard", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:*.example.com"] }),
      name: "x.example.com",
    }),
    ask("a wildcard does not cover two labels", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:*.example.com"] }),
      name: "a.b.example.com",
    }),
    ask("a wildcard for a whole top-level domain", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:*.com"] }),
      name: "example.com",
      stricter:
        "a wildcard needs two labels after it (as in rustls): *.com would vouch for a whole top-level domain",
    }),
    ask("a name that is no host name matches no wildcard", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:*.example.com"] }),
      name: "ops@api.example.com",
    }),
    ask("a SAN with a trailing dot, the name without", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:api.example.com."] }),
    }),
    ask("the name with a trailing dot, a wildcard SAN", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dns:*.example.com"] }),
      name: "API.example.com.",
    }),
    ask("the leaf's critical subjectAltName lists only a directoryName", {
      roots: [root],
      leaf: await w.leaf({ sans: ["dn:CN=api.example.com"], sansCritical: true }),
    }),
    ask("the root's critical subjectAltName lists only a directoryName", {
      roots: [await w.selfSigned({ sans: ["dn:CN=root"], sansCritical: true })],
      leaf: await w.leaf(),
    }),
    ask("the root's subjectAltName (not critical) lists only a directoryName", {
      roots: [await w.selfSigned({ sans: ["dn:CN=root"] })],
      leaf: await w.leaf(),
    }),
    ask("the name only in the subject CN", { roots: [root], leaf: await w.leaf({ sans: undefined }) }),
    ask("the leaf has expired", { roots: [root], leaf: await w.leaf(EXPIRED) }),
    ask("the leaf is not valid yet", { roots: [root], leaf: await w.leaf(NOT_YET) }),
    ask("the intermediate has expired", {
      roots: [root],
      intermediates: [await w.ca(EXPIRED)],
      leaf: await viaInt(),
    }),
    ask("the intermediate is not valid yet", {
      roots: [root],
      intermediates: [await w.ca(NOT_YET)],
      leaf: await viaInt(),
    }),
    ask("the root has expired", { roots: [await w.selfSigned(EXPIRED)], leaf: await w.leaf() }),
    ask("the root is not valid yet", { roots: [await w.selfSigned(NOT_YET)], leaf: await w.leaf() }),
    ask("forged leaf: the root's name as issuer, signed by another key", {
      roots: [root],
      leaf: await w.leaf({}, w.rogue),
    }),
    ask("forged leaf, with the forger's CA (the root's name) presented", {
      roots: [root],
      intermediates: [await w.selfSigned({}, w.rogue)],
      leaf: await w.leaf({}, w.rogue),
    }),
    ask("forged intermediate: the intermediate's key certified by another key", {
      roots: [root],
      intermediates: [await w.ca({}, w.int, w.rogue)],
      leaf: await viaInt(),
    }),
    ask("a leaf used as a CA", {
      roots: [root],
      intermediates: [await w.leaf()],
      leaf: await w.leaf({ subject: "www.example.com" }, { subject: "api.example.com", key: w.leafKey }),
    }),
    ask("a self-signed leaf that is not configured", {
      roots: [root],
      leaf: await w.leaf({}, { subject: "api.example.com", key: w.leafKey }),
    }),
    ask("the configured CA is the server's own certificate (an exact match)", {
      roots: [own],
      leaf: own,
    }),
    ask("a re-dated copy of the root (same name, key and SANs) as the server's certificate", {
      roots: [await w.selfSigned({ sans: ["dns:api.example.com"] })],
      leaf: await w.selfSigned({ sans: ["dns:api.example.com"], notAfter: new Date(Date.UTC(2034, 0, 1)) }),
    }),
    ask("two configured roots with one name, the first the forger's", {
      roots: [await w.selfSigned({}, w.rogue), root],
      leaf: await w.leaf(),
    }),
    // No SANs in X.509 v1, and Go never takes the name from the CN: both refuse, for other reasons.
    ask("an X.509 v1 leaf of the configured root", { roots: [root], leaf: await w.leaf({ version: 1 }) }),
    ask("a CA certificate as the server's certificate", { roots: [root], leaf: await w.leaf({ ca: true }) }),
    ask("a leaf whose key usage is keyCertSign only", {
      roots: [root],
      leaf: await w.leaf({ keyUsage: ["keyCertSign"] }),
    }),
    ask("the leaf's extended key usage is clientAuth only", {
      roots: [root],
      leaf: await w.leaf({ eku: ["clientAuth"] }),
    }),
    ask("the leaf's extended key usage is anyExtendedKeyUsage", {
      roots: [root],
      leaf: await w.leaf({ eku: ["any"] }),
    }),
    ask("the leaf's extended key usage is clientAuth and serverAuth", {
      roots: [root],
      leaf: await w.leaf({ eku: ["clientAuth", "serverAuth"] }),
    }),
    ask("the leaf has no extended key usage", { roots: [root], leaf: await w.leaf({ eku: undefined }) }),
    ask("the leaf has an unknown critical extension", {
      roots: [root],
      leaf: await w.leaf({
        extensions: [{ oid: UNKNOWN_EXTENSION, critical: true, value: Uint8Array.of(5, 0) }],
      }),
    }),
    ask("the leaf has an unknown non-critical extension", {
      roots: [root],
      leaf: await w.leaf({
        extensions: [{ oid: UNKNOWN_EXTENSION, critical: false, value: Uint8Array.of(5, 0) }],
      }),
    }),
  ];
  return [...out, ...fixtureScenarios()];
}

const fixtures = new URL("../http/fixtures/trust/", import.meta.url);
const fixture = (name: string) => pemCertificates(Deno.readTextFileSync(new URL(name, fixtures)))[0]!;

/** Other signature algorithms, from the fixtures of the signature tests (OpenSSL made them). */
function fixtureScenarios(): Scenario[] {
  const pair = (id: string, ca: string, leaf: string, stricter?: string): Scenario =>
    ask(id, {
      roots: [fixture(ca)],
      leaf: fixture(leaf),
      name: "localhost",
      ...(stricter !== undefined && { stricter }),
    });
  return [
    pair(
      "RSA PKCS#1 v1.5 with SHA-384 (fixture)",
      "signatures/rsa-ca.crt",
      "signatures/rsa-pkcs1-sha384.crt",
    ),
    pair("RSA-PSS with SHA-512 (fixture)", "signatures/rsa-ca.crt", "signatures/rsa-pss-sha512.crt"),
    pair(
      "ECDSA P-384 with SHA-256 (fixture)",
      "signatures/ecdsa-p384-ca.crt",
      "signatures/ecdsa-p384-sha256.crt",
    ),
    pair(
      "ECDSA P-521 with SHA-512 (fixture)",
      "signatures/ecdsa-p521-ca.crt",
      "signatures/ecdsa-p521-sha512.crt",
    ),
    pair("RSA PKCS#1 v1.5 with SHA-1 (fixture)", "rsa-ca.crt", "sha1-leaf.crt"),
    pair(
      "ECDSA P-224 (fixture)",
      "signatures/ecdsa-p224-ca.crt",
      "signatures/ecdsa-p224-sha256.crt",
      "WebCrypto has no P-224, so its signatures cannot be checked",
    ),
    ...["rsa-pss-key-ca.crt:rsa-pss-key-sha256.crt", "rsa-pss-any-key-ca.crt:rsa-pss-any-key-sha512.crt"].map(
      (p) => {
        const [ca, leaf] = p.split(":") as [string, string];
        return ask(`a CA with an RSA-PSS key (id-RSASSA-PSS), ${leaf} (fixture)`, {
          roots: [fixture(`signatures/${ca}`)],
          leaf: fixture(`signatures/${leaf}`),
          name: "localhost",
        });
      },
    ),
    ask("an RSA root, a P-256 intermediate (fixture)", {
      roots: [fixture("signatures/mixed-root.crt")],
      intermediates: [fixture("signatures/mixed-intermediate.crt")],
      leaf: fixture("signatures/mixed-leaf.crt"),
      name: "localhost",
    }),
  ];
}

// The server-certificate check on its own, without sockets: algorithms, constraints, names and
// malformed input. The attacks over real sockets are in tls_chain_test.ts.
import assert from "node:assert/strict";
import { pemCertificates } from "../../lib/x509/certificate.ts";
import {
  parseTrustAnchors,
  ServerCertificateError,
  ServerCertificateVerifier,
  verifyServerCertificate,
} from "../../lib/x509/server_certificate.ts";
import { trustFixture } from "../http/_chain_server.ts";

const NOW = Date.UTC(2030, 0, 1);
const der = (name: string) => pemCertificates(trustFixture(name))[0]!;
const anchors = (...names: string[]) => parseTrustAnchors(names.map(trustFixture));

async function verdict(
  chain: readonly (string | Uint8Array)[],
  ca: string[],
  name: string,
  now = NOW,
): Promise<string> {
  try {
    await verifyServerCertificate(
      chain.map((c) => typeof c === "string" ? der(c) : c),
      anchors(...ca),
      name,
      now,
    );
    return "ok";
  } catch (err) {
    assert.ok(err instanceof ServerCertificateError, String(err));
    return err.message;
  }
}

Deno.test("RSA PKCS#1, RSA-PSS, ECDSA P-384 and Ed25519 signatures are verified", async () => {
  assert.equal(await verdict(["rsa-leaf.crt"], ["rsa-ca.crt"], "localhost"), "ok");
  assert.equal(await verdict(["rsa-pss-leaf.crt"], ["rsa-ca.crt"], "localhost"), "ok");
  assert.equal(await verdict(["p384-leaf.crt"], ["p384-ca.crt"], "localhost"), "ok");
  assert.equal(await verdict(["ed25519-leaf.crt"], ["ed25519-ca.crt"], "localhost"), "ok");
  // The same leaves against a CA of another key type are refused.
  assert.match(await verdict(["ed25519-leaf.crt"], ["rsa-ca.crt"], "localhost"), /unknown authority/);
});

Deno.test("a SHA-1 signature is refused, naming the algorithm", async () => {
  assert.equal(
    await verdict(["sha1-leaf.crt"], ["rsa-ca.crt"], "localhost"),
    "certificate signed by unknown authority (unsupported signature algorithm 1.2.840.113549.1.1.5)",
  );
});

Deno.test("an intermediate's path length constraint is enforced", async () => {
  assert.match(
    await verdict(["too-deep.crt", "sub-intermediate.crt", "intermediate.crt"], ["ca.crt"], "localhost"),
    /^certificate signed by unknown authority \(intermediate certificate exceeds its path length\)$/,
  );
  assert.equal(await verdict(["chained.crt", "intermediate.crt"], ["ca.crt"], "localhost"), "ok");
});

Deno.test("an unknown critical extension in the leaf is refused", async () => {
  assert.equal(
    await verdict(["unknown-critical.crt"], ["ca.crt"], "localhost"),
    "server certificate has an unsupported critical extension 1.3.6.1.4.1.99999.1",
  );
});

Deno.test("names: one-label wildcards, case, a trailing dot, IPv6 and IPv4-mapped forms", async () => {
  const check = (name: string) => verdict(["wildcard.crt"], ["ca.crt"], name);
  for (
    const name of [
      "a.apps.example.com",
      "A.Apps.EXAMPLE.com.",
      "mixed.case.example",
      "::1",
      "0:0::1",
      "192.0.2.7",
      "::ffff:192.0.2.7",
    ]
  ) {
    assert.equal(await check(name), "ok", name);
  }
  for (
    const name of [
      "apps.example.com",
      "b.a.apps.example.com",
      "a.apps.example.org",
      "::2",
      "127.0.0.1",
      "wildcard",
      // A zone id is never dropped to match the address without it.
      "::1%lo",
      "::1%1",
      "::ffff:192.0.2.7%eth0",
    ]
  ) {
    assert.match(await check(name), /^server certificate is not valid for the name /, name);
  }
  assert.equal(
    await check("other.test"),
    'server certificate is not valid for the name "other.test" (it is valid for DNS:*.apps.example.com, ' +
      "DNS:Mixed.Case.Example, IP:0:0:0:0:0:0:0:1, IP:192.0.2.7)",
  );
  assert.match(await verdict(["cn-only.crt"], ["ca.crt"], "localhost"), /\(the subject CN is not used\)/);
});

Deno.test("validity is checked for the leaf, the intermediates and the anchor", async () => {
  const late = Date.UTC(2200, 0, 1);
  assert.match(
    await verdict(["localhost.crt"], ["ca.crt"], "localhost", late),
    /unknown authority \(the trusted CA/,
  );
  assert.match(
    await verdict(["chained.crt", "intermediate.crt"], ["ca.crt"], "localhost", late),
    /expired or not valid yet/,
  );
  assert.match(
    await verdict(["expired.crt"], ["ca.crt"], "localhost"),
    /^server certificate has expired \(valid until 2020/,
  );
});

Deno.test("malformed, missing or excessive input is refused, never half-read", async () => {
  const leaf = der("localhost.crt");
  const trailing = new Uint8Array([...leaf, 0]);
  assert.match(
    await verdict([trailing], ["ca.crt"], "localhost"),
    /^server certificate cannot be parsed: DER: unexpected data/,
  );
  assert.match(
    await verdict([leaf.subarray(0, leaf.length - 1)], ["ca.crt"], "localhost"),
    /cannot be parsed/,
  );
  // A long-form length where the short form fits (0x30 0x81 0x05 ... instead of 0x30 0x05 ...).
  const nonMinimal = new Uint8Array([0x30, 0x81, 0x03, 0x02, 0x01, 0x00]);
  assert.match(await verdict([nonMinimal], ["ca.crt"], "localhost"), /non-minimal length/);
  assert.equal(await verdict([], ["ca.crt"], "localhost"), "server presented no certificate");
  assert.match(
    await verdict(new Array(17).fill("localhost.crt"), ["ca.crt"], "localhost"),
    /more than 16 certificates/,
  );
  // Repeated intermediates do not make the search loop or blow up.
  assert.equal(
    await verdict(["chained.crt", ...new Array(15).fill("intermediate.crt")], ["ca.crt"], "localhost"),
    "ok",
  );
  assert.match(
    await verdict(["chained.crt", ...new Array(15).fill("forged-intermediate.crt")], ["ca.crt"], "localhost"),
    /unknown authority|too complex/,
  );
});

Deno.test("caCerts that hold no certificate, or a broken one, are a TypeError naming the entry", () => {
  assert.throws(
    () => parseTrustAnchors(["not a certificate"]),
    /^TypeError: Invalid TLS options: caCerts\[0\] holds no PEM/,
  );
  const broken = "-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n";
  assert.throws(
    () => parseTrustAnchors([trustFixture("ca.crt"), broken]),
    /^TypeError: Invalid TLS options: caCerts\[1\] has a certificate that cannot be parsed \(number 1\): DER/,
  );
  assert.equal(
    parseTrustAnchors([trustFixture("ca.crt") + trustFixture("rsa-ca.crt")]).certificates.length,
    2,
  );
});

Deno.test("the verifier remembers a verified leaf by its bytes, but still checks the name and the dates", async () => {
  const verifier = new ServerCertificateVerifier(anchors("ca.crt"));
  const attempt = async (chain: string[], name: string, now = NOW) => {
    try {
      const ders = chain.map(der);
      await verifier.verify(ders[0]!, () => ders, name, now);
      return "ok";
    } catch (err) {
      assert.ok(err instanceof ServerCertificateError, String(err));
      return err.message;
    }
  };
  assert.equal(await attempt(["chained.crt", "intermediate.crt"], "localhost"), "ok");
  assert.equal(await attempt(["chained.crt", "intermediate.crt"], "127.0.0.1"), "ok");
  assert.match(
    await attempt(["chained.crt", "intermediate.crt"], "kube.internal"),
    /not valid for the name "kube\.internal"/,
  );
  assert.match(
    await attempt(["chained.crt", "intermediate.crt"], "localhost", Date.UTC(2200, 0, 1)),
    /expired or not valid yet/,
  );
  // Other bytes are verified afresh: a forgery of the same names does not ride on the remembered leaf.
  assert.match(await attempt(["forged-v3.crt"], "localhost"), /unknown authority/);
  assert.match(await attempt(["forged-v1.crt", "rogue-ca.crt"], "localhost"), /unknown authority/);
  assert.equal(await attempt(["chained.crt", "intermediate.crt"], "localhost"), "ok");
  // A remembered leaf needs no chain; a chain that does not start with the leaf is refused.
  await verifier.verify(der("chained.crt"), () => assert.fail("chain read"), "localhost", NOW);
  await assert.rejects(
    verifier.verify(der("localhost.crt"), () => [der("chained.crt")], "localhost", NOW),
    /does not start with its certificate/,
  );
});

Deno.test("trustsLeaf: a leaf the CA issued directly, or one remembered with its chain; nothing else", async () => {
  const verifier = new ServerCertificateVerifier(anchors("ca.crt"));
  const trusts = (name: string, host: string, now = NOW) => verifier.trustsLeaf(der(name), host, now);
  assert.equal(await trusts("localhost.crt", "localhost"), true);
  assert.equal(await trusts("localhost.crt", "127.0.0.1"), true);
  assert.equal(await trusts("localhost.crt", "kube.internal"), false);
  // Forgeries, unsuitable leaves and leaves that need their chain are not trusted on their own.
  for (
    const name of ["forged-v3.crt", "forged-v1.crt", "genuine-v1.crt", "self-signed.crt", "client-only.crt"]
  ) {
    assert.equal(await trusts(name, "localhost"), false, name);
  }
  assert.equal(await trusts("expired.crt", "localhost"), false);
  assert.equal(await trusts("localhost.crt", "localhost", Date.UTC(2200, 0, 1)), false);
  assert.equal(await trusts("chained.crt", "localhost"), false);
  // Once its whole chain was verified, the leaf is trusted on its own (names and dates still count).
  const chained = [der("chained.crt"), der("intermediate.crt")];
  await verifier.verify(chained[0]!, () => chained, "localhost", NOW);
  assert.equal(await trusts("chained.crt", "localhost"), true);
  assert.equal(await trusts("chained.crt", "kube.internal"), false);
  assert.equal(await trusts("chained.crt", "localhost", Date.UTC(2200, 0, 1)), false);
  // A refused chain teaches nothing.
  const forged = [der("chained.crt"), der("forged-intermediate.crt")];
  const fresh = new ServerCertificateVerifier(anchors("ca.crt"));
  await assert.rejects(fresh.verify(forged[0]!, () => forged, "localhost", NOW), /unknown authority/);
  assert.equal(await fresh.trustsLeaf(der("chained.crt"), "localhost", NOW), false);
});

// checkTlsMaterial on every private-key form a Secret may hold, compared with node:crypto's verdict.
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { CertificateError, checkTlsMaterial } from "../../lib/observe/mod.ts";
import { type TlsMaterial } from "../../lib/x509/self_signed.ts";
import { DerReader, Tag } from "../../lib/x509/der_reader.ts";

const FORMATS = [
  "rsa-pkcs1",
  "rsa-pkcs8",
  "ec-p256-sec1",
  "ec-p384-sec1",
  "ec-p256-pkcs8",
  "ec-p521-pkcs8",
  "ed25519",
] as const;

const fixture = (file: string) => Deno.readTextFileSync(new URL(`fixtures/${file}`, import.meta.url));
const pair = (name: string): TlsMaterial => ({ cert: fixture(`${name}.crt`), key: fixture(`${name}.key`) });

/** node:crypto's answer to the same question: does the key parse, and belong to the certificate? */
function nodeVerdict(material: TlsMaterial): boolean {
  return new X509Certificate(material.cert).checkPrivateKey(createPrivateKey(material.key));
}

/** The message of the CertificateError `checkTlsMaterial` rejects with; checks it names the source. */
async function refusal(material: TlsMaterial): Promise<string> {
  try {
    await checkTlsMaterial(material, "/etc/tls/tls.crt + /etc/tls/tls.key");
  } catch (error) {
    assert.ok(error instanceof CertificateError, String(error));
    assert.equal(error.source, "/etc/tls/tls.crt + /etc/tls/tls.key");
    // Never a line of the key, however it was refused.
    for (const line of material.key.split("\n").filter((l) => l.length > 20)) {
      assert.equal(error.message.includes(line), false, "the message quotes the key");
    }
    return error.message.replace("/etc/tls/tls.crt + /etc/tls/tls.key: ", "");
  }
  return "accepted";
}

const NOT_BELONG = "the private key does not belong to the certificate";
const NOT_KEY = "the private key is not a PEM private key";

Deno.test("every key form is accepted with its certificate, and the expiry is the certificate's", async () => {
  for (const name of FORMATS) {
    const material = pair(name);
    assert.equal(nodeVerdict(material), true, `node:crypto accepts ${name}`);
    const expires = await checkTlsMaterial(material, name);
    assert.equal(expires, Date.parse(new X509Certificate(material.cert).validTo), name);
  }
});

Deno.test("a key of another certificate is refused, whatever the two algorithms", async () => {
  for (const certOf of FORMATS) {
    for (const keyOf of FORMATS) {
      if (certOf === keyOf) continue;
      const material = { cert: pair(certOf).cert, key: pair(keyOf).key };
      assert.equal(nodeVerdict(material), false, `node:crypto: ${keyOf} key, ${certOf} certificate`);
      assert.equal(await refusal(material), NOT_BELONG, `${keyOf} key, ${certOf} certificate`);
    }
  }
});

Deno.test("garbage is refused with the message of the part that is wrong", async () => {
  const good = pair("ec-p256-pkcs8");
  const notCertificate = "the certificate is not a PEM X.509 certificate";
  assert.equal(await refusal({ cert: "not pem", key: good.key }), notCertificate);
  assert.equal(await refusal({ cert: good.key, key: good.key }), notCertificate);
  const body = good.cert.split("\n").slice(1, 4).join("\n");
  assert.equal(
    await refusal({
      cert: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
      key: good.key,
    }),
    notCertificate,
    "a truncated certificate",
  );
  for (
    const key of [
      "",
      "junk",
      good.cert,
      fixture("ec-p256-sec1.key").split("-----END EC PARAMETERS-----")[0]! + "-----END EC PARAMETERS-----\n",
      "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n",
      "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
      good.key.replace("PRIVATE KEY-----", "RSA PRIVATE KEY-----").replace("END PRIVATE", "END RSA PRIVATE"),
      good.key.replace(/^([A-Za-z0-9+/]{10})[A-Za-z0-9+/]/m, "$1A"),
    ]
  ) {
    assert.equal(await refusal({ cert: good.cert, key }), NOT_KEY, JSON.stringify(key.slice(0, 80)));
  }
});

Deno.test("an encrypted key is refused, saying that it is encrypted", async () => {
  const cert = pair("rsa-pkcs8").cert;
  for (const file of ["encrypted-pkcs8.key", "encrypted-legacy.key"]) {
    assert.equal(
      await refusal({ cert, key: fixture(file) }),
      `${NOT_KEY} (it is encrypted; the server needs it unencrypted)`,
      file,
    );
  }
});

Deno.test("an RSA key with the certificate's modulus and another key's primes is not a usable key", async () => {
  // WebCrypto imports such a key and reports the certificate's modulus, so comparing public parts
  // alone would accept it, and the TLS server would refuse it only when restarting with it.
  const mine = pair("rsa-pkcs1");
  const other = fixture("rsa-pkcs8.key");
  const der = (pem: string) =>
    Uint8Array.from(atob(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  const pkcs1 = der(mine.key);
  const pkcs8 = der(other);
  // RSAPrivateKey ::= SEQUENCE { version, modulus, ... }, inside PrivateKeyInfo's OCTET STRING.
  const modulusOf = (bytes: Uint8Array) => {
    const key = DerReader.inside(bytes, new DerReader(bytes).next(Tag.SEQUENCE));
    key.next(Tag.INTEGER);
    return key.next(Tag.INTEGER);
  };
  const info = DerReader.inside(pkcs8, new DerReader(pkcs8).next(Tag.SEQUENCE));
  info.next(Tag.INTEGER);
  info.next(Tag.SEQUENCE);
  const inner = info.next(Tag.OCTET_STRING);
  const otherKey = pkcs8.slice(inner.contentStart, inner.end);
  const theirs = modulusOf(otherKey);
  const ours = modulusOf(pkcs1);
  assert.equal(theirs.end - theirs.start, ours.end - ours.start, "both 2048-bit moduli");
  otherKey.set(pkcs1.subarray(ours.start, ours.end), theirs.start);
  const pem = `-----BEGIN RSA PRIVATE KEY-----\n${
    btoa(String.fromCharCode(...otherKey))
  }\n-----END RSA PRIVATE KEY-----\n`;
  const forged = { cert: mine.cert, key: pem };
  assert.throws(() => createPrivateKey(forged.key), "node:crypto refuses it too");
  assert.equal(await refusal(forged), NOT_KEY);
});

// The signature check on its own (lib/x509/signature.ts, with WebCrypto): every algorithm and
// curve it accepts against certificates OpenSSL signed (fixtures/trust/signatures/, see its
// README.md), ECDSA signatures of every shape, keys of the wrong type, malformed keys and signatures.
import assert from "node:assert/strict";
import { type Certificate, parseCertificate, pemCertificates } from "../../lib/x509/certificate.ts";
import { contents, DerReader, encoding, Tag } from "../../lib/x509/der_reader.ts";
import { signedBy, UnsupportedAlgorithmError } from "../../lib/x509/signature.ts";
import { rawEcdsaSignature } from "../../lib/x509/ecdsa_signature.ts";
import { parseTrustAnchors, verifyServerCertificate } from "../../lib/x509/server_certificate.ts";
import { trustFixture } from "../http/_chain_server.ts";

const NOW = Date.UTC(2030, 0, 1);
const der = (name: string) => pemCertificates(trustFixture(name))[0]!;
/** A certificate of fixtures/trust/signatures/. */
const cert = (name: string) => parseCertificate(der(`signatures/${name}`));
/** A certificate of fixtures/trust/. */
const trustCert = (name: string) => parseCertificate(der(name));

/** The same certificate with one byte of its signed part changed. */
function tampered(c: Certificate): Certificate {
  const tbs = c.tbs.slice();
  tbs[tbs.length - 1]! ^= 1;
  return { ...c, tbs };
}

/** A DER element: tag, minimal length, contents. */
function tlv(tag: number, ...parts: (Uint8Array | readonly number[])[]): Uint8Array {
  const body = parts.flatMap((p) => [...p]);
  const length: number[] = [];
  for (let n = body.length; n > 0; n = Math.floor(n / 256)) length.unshift(n % 256);
  const header = body.length < 0x80 ? [body.length] : [0x80 | length.length, ...length];
  return new Uint8Array([tag, ...header, ...body]);
}

/** r and s of an ECDSA signature, as the contents of their INTEGERs. */
function integers(signature: Uint8Array): [Uint8Array, Uint8Array] {
  const seq = DerReader.inside(signature, new DerReader(signature).next(Tag.SEQUENCE));
  return [contents(signature, seq.next(Tag.INTEGER)), contents(signature, seq.next(Tag.INTEGER))];
}

async function verdict(chain: readonly string[], ca: string): Promise<string> {
  try {
    await verifyServerCertificate(
      chain.map((name) => der(`signatures/${name}`)),
      parseTrustAnchors([trustFixture(`signatures/${ca}`)]),
      "localhost",
      NOW,
    );
    return "ok";
  } catch (err) {
    return (err as Error).message;
  }
}

Deno.test("ECDSA: every curve with every hash verifies, and a changed byte does not", async () => {
  for (const curve of ["p256", "p384", "p521"]) {
    const ca = cert(`ecdsa-${curve}-ca.crt`);
    for (const hash of ["sha256", "sha384", "sha512"]) {
      const leaf = cert(`ecdsa-${curve}-${hash}.crt`);
      assert.equal(await signedBy(leaf, ca), true, `${curve} ${hash}`);
      assert.equal(await signedBy(tampered(leaf), ca), false, `${curve} ${hash} tampered`);
    }
  }
});

Deno.test("ECDSA: integers with a leading 0x00, or shorter than the curve's size, are read right", async () => {
  const highBit = cert("ecdsa-p256-high-bit.crt");
  assert.deepEqual(integers(highBit.signature).map((v) => [v.length, v[0]]), [[33, 0], [33, 0]]);
  assert.equal(await signedBy(highBit, cert("ecdsa-p256-ca.crt")), true);
  const short = cert("ecdsa-p256-short.crt");
  assert.ok(integers(short.signature).some((v) => v.length < 32));
  assert.equal(await signedBy(short, cert("ecdsa-p256-ca.crt")), true);
  const short521 = cert("ecdsa-p521-short.crt");
  assert.ok(integers(short521.signature).every((v) => v.length < 66));
  assert.equal(await signedBy(short521, cert("ecdsa-p521-ca.crt")), true);

  // r‖s: a leading 0x00 stripped, short values left-padded.
  const raw = rawEcdsaSignature(tlv(0x30, tlv(0x02, [0x00, 0x80, 0x01]), tlv(0x02, [0x05])), 32)!;
  assert.equal(raw.length, 64);
  assert.deepEqual([...raw.subarray(30, 32)], [0x80, 0x01]);
  assert.deepEqual([...raw.subarray(32, 63)], new Array(31).fill(0));
  assert.equal(raw[63], 0x05);
});

Deno.test("ECDSA: a signature that is not exactly one DER SEQUENCE of two fitting INTEGERs is refused", async () => {
  const ca = cert("ecdsa-p256-ca.crt");
  const leaf = cert("ecdsa-p256-high-bit.crt");
  const [r, s] = integers(leaf.signature);
  const withSignature = (signature: Uint8Array) => signedBy({ ...leaf, signature }, ca);
  const sig = (...parts: Uint8Array[]) => tlv(0x30, ...parts);
  // The builder reproduces the original: the cases below differ from it by one thing each.
  assert.deepEqual(sig(tlv(0x02, r), tlv(0x02, s)), leaf.signature);
  assert.equal(await withSignature(sig(tlv(0x02, r), tlv(0x02, s))), true);
  const refused: [string, Uint8Array][] = [
    ["a byte after the SEQUENCE", new Uint8Array([...sig(tlv(0x02, r), tlv(0x02, s)), 0])],
    ["a third INTEGER", sig(tlv(0x02, r), tlv(0x02, s), tlv(0x02, [1]))],
    ["s missing", sig(tlv(0x02, r))],
    ["r negative (its leading 0x00 dropped)", sig(tlv(0x02, r.subarray(1)), tlv(0x02, s))],
    ["r with a second leading 0x00", sig(tlv(0x02, [0, ...r]), tlv(0x02, s))],
    ["r one byte too long", sig(tlv(0x02, [0x01, ...r.subarray(1)]), tlv(0x02, s))],
    ["r zero", sig(tlv(0x02, [0]), tlv(0x02, s))],
    ["r empty", sig(tlv(0x02, []), tlv(0x02, s))],
    ["r as an OCTET STRING", sig(tlv(0x04, r), tlv(0x02, s))],
    ["r‖s raw, without DER", new Uint8Array([...r.subarray(1), ...s.subarray(1)])],
    ["nothing", new Uint8Array()],
  ];
  for (const [what, signature] of refused) assert.equal(await withSignature(signature), false, what);
  // A leading 0x00 where no high bit needs it.
  const plain = cert("ecdsa-p256-sha256.crt");
  const [r2, s2] = integers(plain.signature);
  assert.ok(r2.length === 32 && r2[0]! < 0x80);
  assert.equal(await signedBy({ ...plain, signature: sig(tlv(0x02, r2), tlv(0x02, s2)) }, ca), true);
  assert.equal(await signedBy({ ...plain, signature: sig(tlv(0x02, [0, ...r2]), tlv(0x02, s2)) }, ca), false);
  // A P-384 signature (48-byte integers) under a P-256 key.
  assert.equal(await signedBy(cert("ecdsa-p384-sha384.crt"), ca), false);
});

Deno.test("ECDSA on a curve WebCrypto does not offer (P-224) is refused, naming the curve", async () => {
  await assert.rejects(
    signedBy(cert("ecdsa-p224-sha256.crt"), cert("ecdsa-p224-ca.crt")),
    (err) => err instanceof UnsupportedAlgorithmError && /ECDSA on curve 1\.3\.132\.0\.33$/.test(err.message),
  );
  assert.equal(
    await verdict(["ecdsa-p224-sha256.crt"], "ecdsa-p224-ca.crt"),
    "certificate signed by unknown authority (unsupported signature algorithm ECDSA on curve 1.3.132.0.33)",
  );
});

Deno.test("RSA PKCS#1 v1.5 and RSA-PSS with SHA-256/384/512, and Ed25519, verify; a changed byte does not", async () => {
  const cases: [string, string][] = [
    ["rsa-leaf.crt", "rsa-ca.crt"],
    ["rsa-pss-leaf.crt", "rsa-ca.crt"],
    ["ed25519-leaf.crt", "ed25519-ca.crt"],
  ];
  for (const [leaf, ca] of cases) {
    assert.equal(await signedBy(trustCert(leaf), trustCert(ca)), true, leaf);
    assert.equal(await signedBy(tampered(trustCert(leaf)), trustCert(ca)), false, leaf);
  }
  const ca = cert("rsa-ca.crt");
  for (const leaf of ["rsa-pkcs1-sha384", "rsa-pkcs1-sha512", "rsa-pss-sha384", "rsa-pss-sha512"]) {
    assert.equal(await signedBy(cert(`${leaf}.crt`), ca), true, leaf);
    assert.equal(await signedBy(tampered(cert(`${leaf}.crt`)), ca), false, leaf);
  }
});

Deno.test("a key of another type than the signature's is refused, also under the issuer's exact name", async () => {
  assert.equal(
    await verdict(["ecdsa-p256-sha256.crt"], "ecdsa-p256-rsa-twin-ca.crt"),
    "certificate signed by unknown authority (a trusted CA has the issuer's name, but the signature is not from its key)",
  );
  const keys = {
    rsa: cert("rsa-ca.crt"),
    ec: cert("ecdsa-p256-ca.crt"),
    ed25519: trustCert("ed25519-ca.crt"),
  };
  const leaves = {
    rsa: cert("rsa-pkcs1-sha384.crt"),
    pss: cert("rsa-pss-sha384.crt"),
    ec: cert("ecdsa-p256-sha256.crt"),
    ed25519: trustCert("ed25519-leaf.crt"),
  };
  for (const [signature, leaf] of Object.entries(leaves)) {
    for (const [type, key] of Object.entries(keys)) {
      if (type === signature || (type === "rsa" && signature === "pss")) continue;
      assert.equal(await signedBy(leaf, key), false, `${signature} signature, ${type} key`);
    }
  }
});

// An RSA-PSS key (id-RSASSA-PSS) with the key bits of fixtures/trust/signatures/rsa-ca.crt.
const RSASSA_PSS = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a];
const MGF1 = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08];
const SHA = { 256: 1, 384: 2, 512: 3 } as const;
const sha = (bits: keyof typeof SHA) =>
  tlv(0x30, [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, SHA[bits]], [0x05, 0x00]);

function pssKey(limits?: { hash: keyof typeof SHA; mgf: keyof typeof SHA; salt: number }): Certificate {
  const rsa = cert("rsa-ca.crt");
  const spki = new DerReader(rsa.spki);
  const inner = DerReader.inside(rsa.spki, spki.next(Tag.SEQUENCE));
  inner.next(Tag.SEQUENCE);
  const key = encoding(rsa.spki, inner.next(Tag.BIT_STRING));
  const parameters = limits === undefined ? [] : [
    tlv(
      0x30,
      tlv(0xa0, sha(limits.hash)),
      tlv(0xa1, tlv(0x30, MGF1, sha(limits.mgf))),
      tlv(0xa2, tlv(0x02, [limits.salt])),
    ),
  ];
  return { ...rsa, spki: tlv(0x30, tlv(0x30, RSASSA_PSS, ...parameters), key) };
}

Deno.test("RSA-PSS keys (id-RSASSA-PSS) verify RSA-PSS signatures within their parameters only", async () => {
  // As OpenSSL makes them: one limited to SHA-256 and salts of 32 bytes or more, one unlimited.
  assert.equal(await signedBy(cert("rsa-pss-key-sha256.crt"), cert("rsa-pss-key-ca.crt")), true);
  assert.equal(await signedBy(tampered(cert("rsa-pss-key-sha256.crt")), cert("rsa-pss-key-ca.crt")), false);
  assert.equal(await signedBy(cert("rsa-pss-any-key-sha512.crt"), cert("rsa-pss-any-key-ca.crt")), true);
  // The same key bits as an rsaEncryption key: RSA-PSS signatures verify, PKCS#1 v1.5 ones do not.
  const pss384 = cert("rsa-pss-sha384.crt"); // SHA-384, salt 48
  assert.equal(await signedBy(pss384, pssKey()), true);
  assert.equal(await signedBy(cert("rsa-pkcs1-sha384.crt"), pssKey()), false);
  // RFC 4055: the key's hash (message and MGF1) must be the signature's, its salt length a minimum.
  assert.equal(await signedBy(pss384, pssKey({ hash: 384, mgf: 384, salt: 48 })), true);
  assert.equal(await signedBy(pss384, pssKey({ hash: 384, mgf: 384, salt: 32 })), true);
  assert.equal(await signedBy(pss384, pssKey({ hash: 384, mgf: 384, salt: 64 })), false);
  assert.equal(await signedBy(pss384, pssKey({ hash: 256, mgf: 256, salt: 32 })), false);
  assert.equal(await signedBy(pss384, pssKey({ hash: 384, mgf: 256, salt: 32 })), false);
});

Deno.test("RSA-PSS and other algorithm parameters are checked as before; SHA-1 is refused", async () => {
  const leaf = cert("rsa-pss-sha384.crt");
  const ca = cert("rsa-ca.crt");
  const withAlgorithm = (...parts: Uint8Array[]) =>
    signedBy({ ...leaf, signatureAlgorithm: tlv(0x30, RSASSA_PSS, ...parts) }, ca);
  const pss = (hash: Uint8Array, mgfHash: Uint8Array, ...rest: Uint8Array[]) =>
    tlv(0x30, tlv(0xa0, hash), tlv(0xa1, tlv(0x30, MGF1, mgfHash)), tlv(0xa2, tlv(0x02, [48])), ...rest);
  assert.equal(await withAlgorithm(pss(sha(384), sha(384))), true);
  assert.equal(await withAlgorithm(pss(sha(384), sha(384), tlv(0xa3, tlv(0x02, [1])))), true);
  await assert.rejects(withAlgorithm(), /RSA-PSS with SHA-1$/);
  await assert.rejects(withAlgorithm(pss(sha(384), sha(256))), /RSA-PSS with SHA-1 or mixed hashes/);
  await assert.rejects(
    withAlgorithm(pss(sha(384), sha(384), tlv(0xa3, tlv(0x02, [2])))),
    /RSA-PSS with an unknown trailer/,
  );
  await assert.rejects(withAlgorithm(pss(sha(384), sha(384)), tlv(0x05, [])), SyntaxError);
  // PKCS#1 v1.5 with SHA-1 (1.2.840.113549.1.1.5) and an unknown OID.
  const sha1 = tlv(0x30, [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05], [0x05, 0x00]);
  await assert.rejects(
    signedBy({ ...leaf, signatureAlgorithm: sha1 }, ca),
    (err) => err instanceof UnsupportedAlgorithmError && err.message.endsWith("1.2.840.113549.1.1.5"),
  );
});

Deno.test("a malformed issuer key is no signature, never an error", async () => {
  const leaf = cert("ecdsa-p256-sha256.crt");
  const ca = cert("ecdsa-p256-ca.crt");
  const spki = ca.spki;
  const outer = DerReader.inside(spki, new DerReader(spki).next(Tag.SEQUENCE));
  const algorithm = encoding(spki, outer.next(Tag.SEQUENCE));
  const point = contents(spki, outer.next(Tag.BIT_STRING)); // 0x00 (unused bits), then 0x04 x y
  const withKey = (...parts: Uint8Array[]) => signedBy(leaf, { ...ca, spki: tlv(0x30, ...parts) });
  assert.equal(await withKey(algorithm, tlv(0x03, point)), true);
  const offCurve = point.slice();
  offCurve[offCurve.length - 1]! ^= 1;
  const cases: [string, Promise<boolean>][] = [
    ["a point off the curve", withKey(algorithm, tlv(0x03, offCurve))],
    ["a truncated point", withKey(algorithm, tlv(0x03, point.subarray(0, 40)))],
    ["unused bits", withKey(algorithm, tlv(0x03, [1, ...point.subarray(1)]))],
    ["no key", withKey(algorithm)],
    ["data after the key", withKey(algorithm, tlv(0x03, point), tlv(0x05, []))],
    [
      "explicit curve parameters",
      withKey(tlv(0x30, algorithm.subarray(2, 11), tlv(0x30, [])), tlv(0x03, point)),
    ],
    ["an unknown key algorithm", withKey(tlv(0x30, [0x06, 0x03, 0x2a, 0x03, 0x04]), tlv(0x03, point))],
    ["not DER", signedBy(leaf, { ...ca, spki: new Uint8Array([0x30, 0x80, 0, 0]) })],
  ];
  for (const [what, result] of cases) assert.equal(await result, false, what);
  const rsa = cert("rsa-ca.crt");
  const rsaOuter = DerReader.inside(rsa.spki, new DerReader(rsa.spki).next(Tag.SEQUENCE));
  const rsaAlgorithm = encoding(rsa.spki, rsaOuter.next(Tag.SEQUENCE));
  const garbage = signedBy(cert("rsa-pkcs1-sha384.crt"), {
    ...rsa,
    spki: tlv(0x30, rsaAlgorithm, tlv(0x03, [0, 0x30, 0x03, 0x02, 0x01, 0x00])),
  });
  assert.equal(await garbage, false, "an RSA key that is no RSAPublicKey");
});

Deno.test("an issuer's key is imported once per certificate and algorithm", async () => {
  const subtle = crypto.subtle;
  const importKey = subtle.importKey;
  let imports = 0;
  subtle.importKey = function (this: SubtleCrypto, ...args: Parameters<SubtleCrypto["importKey"]>) {
    imports++;
    return importKey.apply(this, args);
  } as SubtleCrypto["importKey"];
  try {
    const ca = cert("rsa-ca.crt");
    await signedBy(cert("rsa-pkcs1-sha384.crt"), ca);
    await signedBy(cert("rsa-pkcs1-sha384.crt"), ca);
    assert.equal(imports, 1);
    // Another algorithm is another import; so is another certificate object.
    await signedBy(cert("rsa-pkcs1-sha512.crt"), ca);
    await signedBy(cert("rsa-pss-sha384.crt"), ca);
    await signedBy(cert("rsa-pss-sha384.crt"), ca);
    assert.equal(imports, 3);
    await signedBy(cert("rsa-pkcs1-sha384.crt"), cert("rsa-ca.crt"));
    assert.equal(imports, 4);
  } finally {
    subtle.importKey = importKey;
  }
});

Deno.test("a chain mixing an RSA root and an ECDSA intermediate is verified", async () => {
  assert.equal(await verdict(["mixed-leaf.crt", "mixed-intermediate.crt"], "mixed-root.crt"), "ok");
  assert.match(await verdict(["mixed-leaf.crt"], "mixed-root.crt"), /unknown authority/);
});

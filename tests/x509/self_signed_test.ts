import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { oid, sequence, set, smallInteger, time, tlv, unsignedInteger } from "../../lib/x509/der_writer.ts";
import { isCertificateHost, selfSignedCertificate } from "../../lib/x509/self_signed.ts";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

Deno.test("DER: object identifiers, lengths, integers, times and SET ordering encode as X.509 expects", () => {
  assert.equal(hex(oid("1.2.840.10045.4.3.2")), "06 08 2a 86 48 ce 3d 04 03 02");
  assert.equal(hex(oid("2.5.4.3")), "06 03 55 04 03");
  assert.throws(() => oid("3.1"), TypeError);
  assert.throws(() => oid("1.x"), TypeError);
  assert.equal(hex(tlv(0x04, new Uint8Array(200)).subarray(0, 3)), "04 81 c8");
  assert.equal(hex(tlv(0x04, new Uint8Array(300)).subarray(0, 4)), "04 82 01 2c");
  assert.equal(hex(smallInteger(0)), "02 01 00");
  assert.equal(hex(smallInteger(2)), "02 01 02");
  assert.equal(hex(unsignedInteger(Uint8Array.of(0x80))), "02 02 00 80", "a set top bit gets a 0x00 pad");
  assert.equal(hex(unsignedInteger(Uint8Array.of(0, 0, 0x7f))), "02 01 7f", "leading zeros go");
  assert.equal(
    new TextDecoder().decode(time(new Date("2026-12-01T10:20:30.999Z")).subarray(2)),
    "261201102030Z",
  );
  assert.equal(time(new Date("2026-01-01T00:00:00Z"))[0], 0x17, "UTCTime before 2050");
  assert.equal(
    new TextDecoder().decode(time(new Date("2051-02-03T04:05:06Z")).subarray(2)),
    "20510203040506Z",
  );
  assert.equal(time(new Date("2051-02-03T04:05:06Z"))[0], 0x18, "GeneralizedTime from 2050");
  assert.equal(hex(set(smallInteger(2), smallInteger(1))), "31 06 02 01 01 02 01 02");
  assert.equal(hex(sequence()), "30 00");
});

Deno.test("hosts: IP literals as the client's certificate check reads them, DNS names, nothing else", () => {
  for (
    const ok of [
      "localhost",
      "pod-0.svc",
      "*.example.com",
      "::1",
      "10.0.0.1",
      "MyMac.local",
      "::ffff:10.0.0.1",
    ]
  ) {
    assert.ok(isCertificateHost(ok), ok);
  }
  const bad = [
    "my_host",
    "",
    "a b",
    "-x",
    "x-",
    "1::2::3",
    "*",
    "01.2.3.4",
    "256.0.0.1",
    "1.2.3",
    "fe80::1%eth0",
  ];
  for (const host of bad) assert.equal(isCertificateHost(host), false, host);
});

Deno.test("an IPv6 address with an IPv4 tail becomes an iPAddress entry", async () => {
  const m = await selfSignedCertificate({ hosts: ["::ffff:10.0.0.1", "fd00::a:1"] });
  const x = new X509Certificate(m.cert);
  assert.equal(x.subjectAltName, "IP Address:::ffff:10.0.0.1, IP Address:fd00::a:1");
  await assert.rejects(() => selfSignedCertificate({ hosts: ["01.2.3.4"] }), /Invalid host "01.2.3.4"/);
});

Deno.test("the self-signed certificate is a valid v3 server certificate for every host, signed by its own key", async () => {
  const now = new Date("2026-12-01T12:00:00Z");
  const m = await selfSignedCertificate({
    hosts: ["kubeloop-0", "localhost", "127.0.0.1", "::1"],
    validityMs: 30 * 86_400_000,
    now,
  });
  assert.match(m.cert, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
  assert.match(m.key, /^-----BEGIN PRIVATE KEY-----\n/);
  const x = new X509Certificate(m.cert);
  assert.equal(x.subject, "CN=kubeloop-0");
  assert.equal(x.issuer, x.subject);
  assert.equal(x.subjectAltName, "DNS:kubeloop-0, DNS:localhost, IP Address:127.0.0.1, IP Address:::1");
  assert.equal(x.ca, false);
  assert.ok(x.verify(x.publicKey), "the signature verifies with the certificate's own key");
  assert.ok(x.checkPrivateKey(createPrivateKey(m.key)));
  assert.equal(Date.parse(x.validFrom), now.getTime() - 3_600_000, "an hour of slack for clock skew");
  assert.equal(Date.parse(x.validTo), now.getTime() + 30 * 86_400_000);
  assert.deepEqual(x.keyUsage, ["DigitalSignature"]);
  assert.ok(hex(x.raw).includes(hex(oid("1.3.6.1.5.5.7.3.1"))), "extKeyUsage serverAuth");
  assert.ok(hex(x.raw).includes(hex(oid("1.2.840.10045.4.3.2"))), "ecdsa-with-SHA256");
  assert.ok(hex(x.raw).includes("a0 03 02 01 02"), "version v3 ([0] INTEGER 2)");
  const other = await selfSignedCertificate({ hosts: ["localhost"] });
  assert.notEqual(new X509Certificate(other.cert).serialNumber, x.serialNumber, "random serials");
  await assert.rejects(() => selfSignedCertificate({ hosts: [] }), TypeError);
  await assert.rejects(() => selfSignedCertificate({ hosts: ["bad host"] }), /Invalid host "bad host"/);
});

Deno.test("rustls (Deno's TLS) accepts the certificate when it is pinned, for its names only", async () => {
  const m = await selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: m.cert, key: m.key, onListen: () => {} },
    () => new Response("ok"),
  );
  try {
    const client = Deno.createHttpClient({ caCerts: [m.cert] });
    try {
      for (const host of ["127.0.0.1", "localhost"]) {
        const res = await fetch(`https://${host}:${server.addr.port}/`, { client });
        assert.equal(await res.text(), "ok", host);
      }
    } finally {
      client.close();
    }
    const stranger = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
    const untrusting = Deno.createHttpClient({ caCerts: [stranger.cert] });
    try {
      await assert.rejects(fetch(`https://127.0.0.1:${server.addr.port}/`, { client: untrusting }));
    } finally {
      untrusting.close();
    }
  } finally {
    await server.shutdown();
  }
});

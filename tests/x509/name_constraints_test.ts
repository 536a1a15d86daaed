// Reading the nameConstraints extension: what it holds, and the malformed forms refused (the
// verdicts on whole paths are compared with Go's in path_differential_test.ts).
import assert from "node:assert/strict";
import { parseCertificate } from "../../lib/x509/certificate.ts";
import { type Der, sequence, smallInteger, tlv } from "../../lib/x509/der_writer.ts";
import { certificate, ed25519Key, generalName } from "./_builder.ts";
import { VALID } from "./_path_world.ts";
import { seededRandom } from "../_util/seeded_random.ts";

const key = await ed25519Key(seededRandom(7));

async function caWith(value: Der, critical = true) {
  const der = await certificate({
    subject: "ca",
    key,
    ...VALID,
    ca: true,
    extensions: [{ oid: "2.5.29.30", critical, value }],
  });
  return parseCertificate(der);
}

const subtree = (name: string) => sequence(generalName(name));

Deno.test("name constraints are read by form, permitted and excluded", async () => {
  const ca = await caWith(sequence(
    tlv(0xa0, subtree("dns:.example.com"), subtree("ip:10.0.0.0/8"), subtree("email:example.com")),
    tlv(0xa1, subtree("uri:bad.example.com"), subtree("ip:fd00::/8")),
  ));
  const nc = ca.nameConstraints!;
  assert.deepEqual(nc.permitted.dns, [".example.com"]);
  assert.deepEqual(nc.permitted.email, ["example.com"]);
  assert.deepEqual(nc.permitted.ip.map((r) => [[...r.address], [...r.mask]]), [[[10, 0, 0, 0], [
    255,
    0,
    0,
    0,
  ]]]);
  assert.deepEqual(nc.excluded.uri, ["bad.example.com"]);
  assert.equal(nc.excluded.ip[0]!.address.length, 16);
  assert.deepEqual(ca.unhandledCritical, []);
});

Deno.test("a subtree of a form not checked (directoryName) is not understood when critical", async () => {
  const value = sequence(tlv(0xa0, subtree("dn:CN=x"), subtree("dns:example.com")));
  assert.deepEqual((await caWith(value, true)).unhandledCritical, ["2.5.29.30"]);
  const lenient = await caWith(value, false);
  assert.deepEqual(lenient.unhandledCritical, []);
  assert.deepEqual(lenient.nameConstraints!.permitted.dns, ["example.com"]);
});

Deno.test("malformed name constraints make the certificate unreadable", async () => {
  const cases: [string, Der][] = [
    ["no subtrees at all", sequence()],
    ["an empty list of subtrees", sequence(tlv(0xa0))],
    [
      "a minimum distance",
      sequence(tlv(0xa0, sequence(generalName("dns:example.com"), tlv(0x80, smallInteger(1))))),
    ],
    ["a DNS constraint with a trailing dot", sequence(tlv(0xa0, subtree("dns:example.com.")))],
    ["a DNS constraint with an empty label", sequence(tlv(0xa0, subtree("dns:a..example.com")))],
    ["an IP range of 5 bytes", sequence(tlv(0xa0, sequence(tlv(0x87, Uint8Array.of(10, 0, 0, 0, 255)))))],
    [
      "an IP range with a mask that is not contiguous",
      sequence(tlv(0xa0, sequence(tlv(0x87, Uint8Array.of(10, 0, 0, 0, 255, 0, 255, 0))))),
    ],
    ["an email constraint that is no mailbox", sequence(tlv(0xa0, subtree("email:a..b@example.com")))],
    ["a URI constraint that is an IP address", sequence(tlv(0xa1, subtree("uri:10.0.0.1")))],
    ["data after the subtrees", sequence(tlv(0xa0, subtree("dns:example.com")), smallInteger(0))],
  ];
  for (const [what, value] of cases) {
    await assert.rejects(caWith(value), SyntaxError, what);
  }
});

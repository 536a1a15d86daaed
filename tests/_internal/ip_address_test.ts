import assert from "node:assert/strict";
import { isIP } from "node:net";
import { ipAddressBytes, isIpAddress } from "../../lib/_internal/ip_address.ts";

const hex = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Literals node's isIP calls addresses, and the bytes ours reads (undefined: a zone id). */
const VALID: ReadonlyArray<readonly [string, string | undefined]> = [
  ["0.0.0.0", "00000000"],
  ["1.2.3.4", "01020304"],
  ["127.0.0.1", "7f000001"],
  ["255.255.255.255", "ffffffff"],
  ["10.0.99.250", "0a0063fa"],
  ["::", "0".repeat(32)],
  ["::1", "0".repeat(31) + "1"],
  ["1::", "0001" + "0".repeat(28)],
  ["1::8", "0001" + "0".repeat(24) + "0008"],
  ["1:2:3:4:5:6:7:8", "00010002000300040005000600070008"],
  ["1:2:3:4:5:6:7::", "00010002000300040005000600070000"],
  ["::2:3:4:5:6:7:8", "00000002000300040005000600070008"],
  ["::1:2:3:4:5:6:7", "00000001000200030004000500060007"],
  ["fd00::a:1", "fd00" + "0".repeat(20) + "000a0001"],
  ["ABCD::ef", "abcd" + "0".repeat(24) + "00ef"],
  ["0000::1", "0".repeat(31) + "1"],
  ["2001:db8:0:0:1:0:0:1", "20010db8000000000001000000000001"],
  ["::ffff:1.2.3.4", "00000000000000000000ffff01020304"],
  ["::1.2.3.4", "0".repeat(24) + "01020304"],
  ["::0:1.2.3.4", "0".repeat(24) + "01020304"],
  ["1:2:3:4:5:6:1.2.3.4", "00010002000300040005000601020304"],
  ["1:2:3:4:5::1.2.3.4", "00010002000300040005000001020304"],
  ["64:ff9b::192.0.2.33", "0064ff9b0000000000000000c0000221"],
  // Zone ids: addresses for node, never bytes for us.
  ["fe80::1%eth0", undefined],
  ["fe80::1%25eth0", undefined],
  ["fe80::1%1", undefined],
  ["fe80::%eth0", undefined],
  ["::%eth0", undefined],
  ["::ffff:1.2.3.4%eth0", undefined],
  ["fe80::1%eth0.5", undefined],
  ["fe80::1%a:b-c", undefined],
];

const INVALID = [
  "",
  ".",
  ":",
  ":::",
  "01.2.3.4",
  "1.2.3.04",
  "00.0.0.0",
  "256.1.1.1",
  "1.2.3.256",
  "1.2.3",
  "1.2.3.4.5",
  "1..3.4",
  "1.2.3.",
  " 1.2.3.4",
  "1.2.3.4 ",
  "1.2.3.4\n",
  "0x1.2.3.4",
  "1e1.2.3.4",
  "-1.2.3.4",
  "+1.2.3.4",
  "１.2.3.4",
  "1.2.3.4%eth0",
  "1.2.3.4%1",
  "[::1]",
  "00000::1",
  "12345::1",
  "g::1",
  "1:2:3:4:5:6:7",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6:7:8::",
  "::1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7::8",
  "1:2:3:4::5:6:7:8",
  "1:::2",
  "1::2::3",
  ":1::2",
  "1::2:",
  ":1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:",
  "1:2:3:4:5:6:7:1.2.3.4",
  "1::2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6::1.2.3.4",
  "::ffff:01.2.3.4",
  "::ffff:256.1.1.1",
  "::ffff:1.2.3",
  "::1.2.3.4:1",
  "1.2.3.4::",
  ":1.2.3.4",
  "::.1.2.3",
  "fe80::1%",
  "fe80::1%eth0%x",
  "fe80::1%a b",
  "fe80::1%a_b",
  "fe80::1%é",
  "%eth0",
  "localhost",
  "example.com",
  "1.2.3.4.example.com",
];

Deno.test("valid literals: node's isIP agrees, and the bytes are read as written", () => {
  for (const [text, bytes] of VALID) {
    assert.notEqual(isIP(text), 0, `node:net isIP(${JSON.stringify(text)})`);
    assert.equal(isIpAddress(text), true, text);
    assert.equal(hex(ipAddressBytes(text)), bytes, text);
    if (bytes !== undefined) assert.equal(ipAddressBytes(text)!.length, isIP(text) === 4 ? 4 : 16, text);
  }
});

Deno.test("invalid literals: node's isIP agrees, and neither function accepts them", () => {
  for (const text of INVALID) {
    assert.equal(isIP(text), 0, `node:net isIP(${JSON.stringify(text)})`);
    assert.equal(isIpAddress(text), false, text);
    assert.equal(ipAddressBytes(text), undefined, text);
  }
});

Deno.test("a zone id is an address for isIpAddress but never has bytes, whatever the address", () => {
  assert.equal(isIpAddress("fe80::1%eth0"), true);
  assert.equal(ipAddressBytes("fe80::1%eth0"), undefined);
  assert.equal(hex(ipAddressBytes("fe80::1")), "fe80" + "0".repeat(27) + "1");
});

Deno.test("random strings and mutations of valid literals: the same verdicts as node's isIP", () => {
  // A fixed-seed generator, so a failure can be reproduced.
  let seed = 0x2545f491;
  const random = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const alphabet = "0125789afAF:.%e";
  const randomString = () => {
    let text = "";
    for (let n = random(20); n > 0; n--) text += alphabet[random(alphabet.length)];
    return text;
  };
  // One to three edits (insert, delete or replace a character) of a valid literal.
  const mutation = () => {
    let text = VALID[random(VALID.length)]![0];
    for (let edits = 1 + random(3); edits > 0; edits--) {
      const at = random(text.length + 1);
      const char = alphabet[random(alphabet.length)]!;
      const kind = random(3);
      text = text.slice(0, at) + (kind === 1 ? "" : char) + text.slice(kind === 0 ? at : at + 1);
    }
    return text;
  };
  let addresses = 0;
  for (let i = 0; i < 40_000; i++) {
    const text = i % 2 === 0 ? randomString() : mutation();
    const family = isIP(text);
    assert.equal(isIpAddress(text), family !== 0, JSON.stringify(text));
    const bytes = ipAddressBytes(text);
    if (text.includes("%") || family === 0) assert.equal(bytes, undefined, JSON.stringify(text));
    else assert.equal(bytes?.length, family === 4 ? 4 : 16, JSON.stringify(text));
    if (family !== 0) addresses++;
  }
  // The generator must reach addresses too, not only garbage.
  assert.ok(addresses > 2_000, `only ${addresses} addresses generated`);
});

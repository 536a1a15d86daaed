import assert from "node:assert/strict";
import { crc32 as reference } from "node:zlib";
import { crc32, crc32Byte } from "../../lib/gzip/crc32.ts";
import { seededRandom } from "../_util/seeded_random.ts";

Deno.test("CRC-32 matches node:zlib for every length around the two-lane blocks, whole or in parts", () => {
  const random = seededRandom(1952);
  const data = Uint8Array.from({ length: 20_000 }, () => Math.floor(random() * 256));
  for (const n of [0, 1, 7, 8, 9, 15, 16, 17, 4095, 4096, 4097, 8191, 8192, 8193, 12_289, 20_000]) {
    const start = data.length - n > 0 ? Math.floor(random() * (data.length - n)) : 0;
    const part = data.subarray(start, start + n);
    const expected = reference(part);
    assert.equal(crc32(0, data, start, start + n), expected, `${n} bytes`);
    assert.equal(crc32(0, part), expected, `${n} bytes, a view`);
    const cut = Math.floor(n / 3);
    assert.equal(crc32(crc32(0, part, 0, cut), part, cut), expected, `${n} bytes in two parts`);
  }
  assert.equal(crc32(0, new TextEncoder().encode("123456789")), 0xcbf43926);
});

Deno.test("CRC-32 a byte at a time matches the whole", () => {
  const data = new TextEncoder().encode("The quick brown fox jumps over the lazy dog");
  let crc = 0;
  for (const b of data) crc = crc32Byte(crc, b);
  assert.equal(crc, 0x414fa339);
  assert.equal(crc, crc32(0, data));
});

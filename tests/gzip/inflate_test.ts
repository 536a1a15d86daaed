// The raw DEFLATE decoder against node:zlib and CompressionStream as reference encoders, split
// anywhere, and every kind of invalid data RFC 1951 rules out.
import assert from "node:assert/strict";
import { constants, deflateRawSync } from "node:zlib";
import { InflateError, Inflater, NEED_INPUT, STREAM_END } from "../../lib/gzip/inflate.ts";
import { seededRandom } from "../_util/seeded_random.ts";
import {
  BitWriter,
  CLEN_LENGTHS,
  dynamicHeader,
  fixedBlock,
  fixedSymbol,
  lengthsOf,
  writeSymbol,
} from "../http/_deflate_writer.ts";
import { concat, enc } from "../http/_helpers.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

/** Decodes one raw DEFLATE stream pushed in `chunk`-byte pieces; fails if it does not end. */
function inflateRaw(data: Uint8Array, chunk = Math.max(data.length, 1)): Uint8Array {
  const inflater = new Inflater();
  const parts: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += chunk) {
    inflater.push(data.subarray(at, at + chunk));
    for (;;) {
      const status = inflater.inflate();
      if (inflater.pending > 0) parts.push(inflater.take());
      if (status === STREAM_END) return concat(...parts);
      if (status === NEED_INPUT) break;
    }
  }
  throw new InflateError("unexpected end of data");
}

/** Data with something for every kind of block: JSON-like, random, runs and far matches. */
function samples(): Record<string, Uint8Array> {
  const random = seededRandom(1951);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
  const json = (n: number) => {
    const items: string[] = [];
    let size = 0;
    for (let i = 0; size < n; i++) {
      const item = JSON.stringify({
        metadata: { name: `item-${i}`, namespace: "default", resourceVersion: String(1000 + i * 7) },
        data: { key: "v".repeat(i % 40), value: Math.floor(random() * 1e9).toString(36) },
      });
      items.push(item);
      size += item.length + 1;
    }
    return enc.encode(items.join(",")).subarray(0, n);
  };
  // A random 32 KiB block repeated: every match is exactly 32768 bytes back.
  const block = bytes(32 * KiB);
  return {
    "empty": new Uint8Array(0),
    "1 byte": new Uint8Array([42]),
    "100 random bytes": bytes(100),
    "65535 bytes of JSON": json(65535),
    "1 MiB + 1 of JSON": json(MiB + 1),
    "1 MiB of random bytes": bytes(MiB),
    "matches 32768 back": concat(block, block, block, block.subarray(0, 1000)),
    "runs": concat(new Uint8Array(70_000), new Uint8Array(300).fill(7), enc.encode("ab".repeat(5000))),
  };
}

Deno.test("decodes what node:zlib writes, at every level and strategy, pushed whole or in pieces", () => {
  const strategies = {
    default: constants.Z_DEFAULT_STRATEGY,
    huffmanOnly: constants.Z_HUFFMAN_ONLY,
    rle: constants.Z_RLE,
    fixed: constants.Z_FIXED,
  };
  for (const [name, data] of Object.entries(samples())) {
    for (const level of [0, 1, 6, 9]) {
      for (const [strategyName, strategy] of Object.entries(strategies)) {
        const deflated = new Uint8Array(deflateRawSync(data, { level, strategy }));
        const what = `${name}, level ${level}, ${strategyName}`;
        assert.deepEqual(inflateRaw(deflated), data, what);
        assert.deepEqual(inflateRaw(deflated, 4099), data, `${what}, 4099-byte pieces`);
      }
    }
  }
});

Deno.test("decodes what CompressionStream writes", async () => {
  for (const [name, data] of Object.entries(samples())) {
    const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new CompressionStream("deflate-raw"),
    );
    const deflated = new Uint8Array(await new Response(stream).arrayBuffer());
    assert.deepEqual(inflateRaw(deflated, 1000), data, name);
  }
});

Deno.test("input split at every point decodes the same, dynamic, fixed and stored blocks alike", () => {
  const text = enc.encode(
    JSON.stringify({ items: Array.from({ length: 12 }, (_, i) => ({ name: `pod-${i}` })) }),
  );
  for (const strategy of [constants.Z_DEFAULT_STRATEGY, constants.Z_FIXED]) {
    for (const level of [0, 9]) {
      const deflated = new Uint8Array(deflateRawSync(text, { level, strategy }));
      for (let cut = 1; cut < deflated.length; cut++) {
        const inflater = new Inflater();
        const parts: Uint8Array[] = [];
        let status = NEED_INPUT;
        for (const piece of [deflated.subarray(0, cut), deflated.subarray(cut)]) {
          inflater.push(piece);
          status = inflater.inflate();
          parts.push(inflater.take());
        }
        assert.equal(status, STREAM_END, `cut at ${cut}`);
        assert.deepEqual(concat(...parts), text, `cut at ${cut}`);
      }
    }
  }
});

Deno.test("one-byte pieces of a medium stream decode the same", () => {
  const data = samples()["65535 bytes of JSON"]!;
  for (const level of [1, 6]) {
    assert.deepEqual(inflateRaw(new Uint8Array(deflateRawSync(data, { level })), 1), data);
  }
});

Deno.test("a bomb comes out in slices of at most 16 KiB, one per call, with the window bounded", () => {
  const deflated = new Uint8Array(deflateRawSync(new Uint8Array(16 * MiB), { level: 9 }));
  assert.ok(deflated.length < 20 * KiB);
  const inflater = new Inflater();
  inflater.push(deflated);
  let total = 0;
  let calls = 0;
  for (;;) {
    const status = inflater.inflate();
    calls++;
    const out = inflater.take();
    assert.ok(out.length <= 16 * KiB, `${out.length} bytes at once`);
    assert.ok(out.every((b) => b === 0));
    total += out.length;
    if (status === STREAM_END) break;
    assert.notEqual(status, NEED_INPUT);
  }
  assert.equal(total, 16 * MiB);
  assert.ok(calls >= 1024, `${calls} calls`);
});

Deno.test("small outputs share buffers that are never written again", () => {
  const inflater = new Inflater();
  const outputs: [Uint8Array, string][] = [];
  for (let i = 0; i < 50; i++) {
    const text = `event ${i} `.repeat(20);
    const w = new BitWriter();
    fixedBlock(w, true, text);
    inflater.reset();
    inflater.push(w.finish());
    assert.equal(inflater.inflate(), STREAM_END);
    outputs.push([inflater.take(), text]);
  }
  assert.ok(outputs[0]![0].buffer === outputs[1]![0].buffer, "small outputs share a buffer");
  for (const [out, text] of outputs) assert.equal(new TextDecoder().decode(out), text);
});

/** Asserts that `data` fails with an InflateError whose message matches `reason`, however it is pushed. */
function assertInvalid(data: Uint8Array, reason: RegExp, what = ""): void {
  for (const chunk of [data.length, 1]) {
    assert.throws(() => inflateRaw(data, chunk), (err: unknown) => {
      assert.ok(err instanceof InflateError, `${what}: ${err}`);
      assert.match(err.message, reason, what);
      return true;
    });
  }
}

Deno.test("an invalid block type fails", () => {
  assertInvalid(new BitWriter().bits(1, 1).bits(3, 2).bits(0, 16).finish(), /^invalid block type$/);
});

Deno.test("a stored block whose LEN and NLEN disagree fails", () => {
  const good = new BitWriter().bits(1, 1).bits(0, 2).raw([3, 0, 0xfc, 0xff, 1, 2, 3]).finish();
  assert.deepEqual(inflateRaw(good), new Uint8Array([1, 2, 3]));
  const bad = new BitWriter().bits(1, 1).bits(0, 2).raw([3, 0, 0xfc, 0xfe, 1, 2, 3]).finish();
  assertInvalid(bad, /^invalid stored block lengths$/);
});

Deno.test("stored blocks of 0 and 65535 bytes, and blocks of every type in one stream, decode", () => {
  const big = Uint8Array.from({ length: 65535 }, (_, i) => i * 7);
  const w = new BitWriter();
  w.bits(0, 1).bits(0, 2).raw([0, 0, 0xff, 0xff]);
  w.bits(0, 1).bits(0, 2).raw([0xff, 0xff, 0, 0]).raw(big);
  fixedBlock(w, false, "fixed ");
  const { lit } = dynamicHeader(w, true, lengthsOf(257, [[100, 1], [256, 1]]), [0]);
  const litLengths = lengthsOf(257, [[100, 1], [256, 1]]);
  writeSymbol(w, 100, litLengths, lit);
  writeSymbol(w, 256, litLengths, lit);
  assert.deepEqual(inflateRaw(w.finish(), 7), concat(big, enc.encode("fixed d")));
});

Deno.test("code length sets: over-subscribed and incomplete ones fail, except one distance code or none", () => {
  const eob = (w: BitWriter, lit: number[], lengths: number[]) => writeSymbol(w, 256, lengths, lit);

  // One distance code of one bit (RFC 1951 3.2.7): "a", then 3 bytes 1 back, then end of block.
  {
    const litLengths = lengthsOf(258, [[97, 1], [256, 2], [257, 2]]);
    const w = new BitWriter();
    const { lit, dist } = dynamicHeader(w, true, litLengths, [1]);
    writeSymbol(w, 97, litLengths, lit);
    writeSymbol(w, 257, litLengths, lit);
    writeSymbol(w, 0, [1], dist);
    eob(w, lit, litLengths);
    assert.deepEqual(inflateRaw(w.finish()), enc.encode("aaaa"));
  }
  // No distance codes at all: literals only.
  {
    const litLengths = lengthsOf(257, [[97, 1], [256, 1]]);
    const w = new BitWriter();
    const { lit } = dynamicHeader(w, true, litLengths, [0]);
    writeSymbol(w, 97, litLengths, lit);
    writeSymbol(w, 97, litLengths, lit);
    eob(w, lit, litLengths);
    assert.deepEqual(inflateRaw(w.finish()), enc.encode("aa"));
  }
  // ... but then a length code has no distance to go with it.
  {
    const litLengths = lengthsOf(258, [[97, 1], [256, 2], [257, 2]]);
    const w = new BitWriter();
    const { lit } = dynamicHeader(w, true, litLengths, [0]);
    writeSymbol(w, 97, litLengths, lit);
    writeSymbol(w, 257, litLengths, lit);
    w.bits(0, 16);
    assertInvalid(w.finish(), /^invalid distance code$/);
  }
  // A lone end-of-block code of one bit: as zlib, accepted (an empty block).
  {
    const litLengths = lengthsOf(257, [[256, 1]]);
    const w = new BitWriter();
    const { lit } = dynamicHeader(w, true, litLengths, [0]);
    eob(w, lit, litLengths);
    assert.deepEqual(inflateRaw(w.finish()), new Uint8Array(0));
  }
  const cases: [string, number[], number[], RegExp][] = [
    [
      "over-subscribed literal/length",
      lengthsOf(257, [[97, 1], [98, 1], [256, 1]]),
      [1],
      /^invalid literal\/length code: over-subscribed$/,
    ],
    [
      "incomplete literal/length",
      lengthsOf(257, [[97, 2], [256, 2]]),
      [1],
      /^invalid literal\/length code: incomplete$/,
    ],
    [
      "over-subscribed distance",
      lengthsOf(257, [[97, 1], [256, 1]]),
      [1, 1, 1],
      /^invalid distance code: over-subscribed$/,
    ],
    [
      "incomplete distance",
      lengthsOf(257, [[97, 1], [256, 1]]),
      [1, 2],
      /^invalid distance code: incomplete$/,
    ],
    [
      "one distance code of two bits",
      lengthsOf(257, [[97, 1], [256, 1]]),
      [2],
      /^invalid distance code: incomplete$/,
    ],
    ["no end-of-block code", lengthsOf(257, [[97, 1], [98, 1]]), [1], /^missing end-of-block code$/],
  ];
  for (const [what, litLengths, distLengths, reason] of cases) {
    const w = new BitWriter();
    dynamicHeader(w, true, litLengths, distLengths);
    w.bits(0, 32);
    assertInvalid(w.finish(), reason, what);
  }
});

Deno.test("a code length code that is over-subscribed or incomplete fails", () => {
  const over = CLEN_LENGTHS.map(() => 1);
  const w1 = new BitWriter();
  w1.bits(1, 1).bits(2, 2).bits(0, 5).bits(0, 5).bits(15, 4);
  for (let i = 0; i < 19; i++) w1.bits(over[i]!, 3);
  w1.bits(0, 32);
  assertInvalid(w1.finish(), /^invalid code length code: over-subscribed$/);
  const w2 = new BitWriter();
  w2.bits(1, 1).bits(2, 2).bits(0, 5).bits(0, 5).bits(15, 4);
  for (let i = 0; i < 19; i++) w2.bits(i === 3 ? 1 : 0, 3); // only symbol 0, one bit
  w2.bits(0, 32);
  assertInvalid(w2.finish(), /^invalid code length code: incomplete$/);
});

Deno.test("code length repeats: nothing to repeat at the start, or past the end of the lengths, fail", () => {
  // 97 zeros, "a" = 1, 138 + 20 zeros, end of block = 1, then the one distance length: 0.
  const litLengths = lengthsOf(257, [[97, 1], [256, 1]]);
  const w = new BitWriter();
  const { lit } = dynamicHeader(w, true, litLengths, [0], {
    symbols: [[18, 97 - 11], 1, [18, 127], [18, 20 - 11], 1, 0],
  });
  writeSymbol(w, 97, litLengths, lit);
  writeSymbol(w, 256, litLengths, lit);
  assert.deepEqual(inflateRaw(w.finish()), enc.encode("a"));

  // A repeat may run from the literal/length lengths on into the distance lengths.
  const acrossLit = lengthsOf(259, [[97, 2], [256, 2], [257, 2], [258, 2]]);
  const acrossDist = [2, 2, 2, 2];
  const across = new BitWriter();
  const codes = dynamicHeader(across, true, acrossLit, acrossDist, {
    symbols: [[18, 97 - 11], 2, [18, 127], [18, 20 - 11], 2, [16, 6 - 3]],
  });
  writeSymbol(across, 97, acrossLit, codes.lit);
  writeSymbol(across, 257, acrossLit, codes.lit); // length 3
  writeSymbol(across, 0, acrossDist, codes.dist); // distance 1
  writeSymbol(across, 256, acrossLit, codes.lit);
  assert.deepEqual(inflateRaw(across.finish()), enc.encode("aaaa"));

  const atStart = new BitWriter();
  dynamicHeader(atStart, true, litLengths, [0], { symbols: [[16, 0]] });
  atStart.bits(0, 32);
  assertInvalid(atStart.finish(), /^invalid code length repeat: nothing to repeat$/);

  const tooMany = new BitWriter();
  dynamicHeader(tooMany, true, litLengths, [0], { symbols: [[18, 127], [18, 127]] });
  tooMany.bits(0, 32);
  assertInvalid(tooMany.finish(), /^invalid code length repeat: too many lengths$/);
});

Deno.test("more than 286 length codes or 30 distance codes fail", () => {
  const cases: [number, number, RegExp][] = [
    [287, 1, /^too many length codes$/],
    [288, 1, /^too many length codes$/],
    [257, 31, /^too many distance codes$/],
    [257, 32, /^too many distance codes$/],
  ];
  for (const [nlit, ndist, reason] of cases) {
    const w = new BitWriter();
    w.bits(1, 1).bits(2, 2).bits(nlit - 257, 5).bits(ndist - 1, 5).bits(15, 4).bits(0, 32);
    assertInvalid(w.finish(), reason);
  }
});

Deno.test("length symbols 286 and 287 and distance symbols 30 and 31 fail in the fixed code", () => {
  for (const sym of [286, 287]) {
    const w = new BitWriter();
    fixedBlock(w, true, "abc", (w) => fixedSymbol(w, sym));
    w.bits(0, 32);
    assertInvalid(w.finish(), /^invalid literal\/length code$/);
  }
  for (const d of [30, 31]) {
    const w = new BitWriter();
    fixedBlock(w, true, "abc", (w) => {
      fixedSymbol(w, 257);
      w.code(d, 5);
    });
    w.bits(0, 32);
    assertInvalid(w.finish(), /^invalid distance code$/);
  }
});

Deno.test("a distance beyond the output so far fails; one reaching its first byte does not", () => {
  const match = (distance: number) => (w: BitWriter) => {
    fixedSymbol(w, 257); // length 3
    // distance codes 0-3 are distances 1-4, no extra bits
    w.code(distance - 1, 5);
  };
  const ok = new BitWriter();
  fixedBlock(ok, true, "ab", match(2));
  assert.deepEqual(inflateRaw(ok.finish()), enc.encode("ababa"));
  const far = new BitWriter();
  fixedBlock(far, true, "ab", match(3));
  assertInvalid(far.finish(), /^invalid distance: too far back$/);
  const first = new BitWriter();
  fixedBlock(first, true, "", match(1));
  assertInvalid(first.finish(), /^invalid distance: too far back$/);
});

Deno.test("a new stream after reset cannot reach back into the previous one", () => {
  const inflater = new Inflater();
  const one = new BitWriter();
  fixedBlock(one, true, "abcd");
  inflater.push(one.finish());
  assert.equal(inflater.inflate(), STREAM_END);
  assert.equal(new TextDecoder().decode(inflater.take()), "abcd");
  inflater.reset();
  const two = new BitWriter();
  fixedBlock(two, true, "", (w) => {
    fixedSymbol(w, 257);
    w.code(0, 5);
  });
  inflater.push(two.finish());
  assert.throws(() => inflater.inflate(), /^InflateError: invalid distance: too far back$/);
});

Deno.test("data ending early is incomplete, wherever it ends", () => {
  const data = samples()["65535 bytes of JSON"]!;
  const deflated = new Uint8Array(deflateRawSync(data, { level: 6 }));
  for (const cut of [0, 1, 2, 3, 10, 100, deflated.length >> 1, deflated.length - 1]) {
    assert.throws(
      () => inflateRaw(deflated.subarray(0, cut), 997),
      /unexpected end of data/,
      `cut at ${cut}`,
    );
  }
});

Deno.test("corrupted streams fail with an InflateError or decode to something, never anything else", () => {
  const random = seededRandom(1952);
  const data = samples()["65535 bytes of JSON"]!.subarray(0, 4000);
  const streams = [1, 6].map((level) => new Uint8Array(deflateRawSync(data, { level })));
  const fixed = new Uint8Array(deflateRawSync(data, { strategy: constants.Z_FIXED }));
  for (let round = 0; round < 600; round++) {
    const source = [...streams, fixed][round % 3]!;
    const corrupt = source.slice();
    for (let flips = 1 + Math.floor(random() * 3); flips > 0; flips--) {
      const at = Math.floor(random() * corrupt.length);
      corrupt[at] = corrupt[at]! ^ (1 << Math.floor(random() * 8));
    }
    try {
      inflateRaw(corrupt, 1 + Math.floor(random() * 64));
    } catch (err) {
      assert.ok(err instanceof InflateError, `round ${round}: ${err}`);
    }
  }
});

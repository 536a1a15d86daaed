import assert from "node:assert/strict";
import { ListBodyDecoder, ListBodyError } from "../../lib/client/list_body_decoder.ts";
import { seededRandom } from "../_util/seeded_random.ts";

const enc = new TextEncoder();

/** Decodes `bytes` pushed in pieces that end at `cuts`. */
function decode(bytes: Uint8Array, cuts: number[] = []): Record<string, unknown> {
  const d = new ListBodyDecoder();
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    // A fresh copy per push, overwritten afterwards: the decoder must not keep views of it.
    const piece = bytes.slice(at, cut);
    d.push(piece);
    piece.fill(0x20);
    at = cut;
  }
  return d.end();
}

const LIST = JSON.stringify({
  kind: "ConfigMapList",
  apiVersion: "v1",
  metadata: { resourceVersion: "1234", continue: "" },
  items: [
    { metadata: { name: "a", labels: { "x/y": "1" } }, data: { k: 'quote " and backslash \\ and } ] {' } },
    { metadata: { name: "b" }, data: { "\\\\": "\\\\\\", "é": "日本 😀", "\u0000": "\n\t" } },
    { metadata: { name: "c" }, nested: [[1, 2.5e3, -0], [], {}, [{ "[": "]" }]], t: true, f: false, n: null },
  ],
});

Deno.test("a list body split at every byte decodes to what JSON.parse gives", () => {
  const bytes = enc.encode(LIST);
  const expected = JSON.parse(LIST);
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepStrictEqual(decode(bytes, [cut]), expected, `cut ${cut}`);
  }
  // one byte at a time
  assert.deepStrictEqual(decode(bytes, Array.from({ length: bytes.length }, (_, i) => i)), expected);
});

Deno.test("whitespace, empty lists, repeated keys, items that are not objects, as JSON.parse has them", () => {
  const bodies = [
    "{}",
    ' \n{ "items" : [ ] }\r\n ',
    '{"items":[1,"two",null,[3],{"four":4}],"kind":"List"}',
    '{"items":[{"a":1}],"items":[{"b":2}]}', // the last one wins
    '{"items":[{"a":1}],"items":null}',
    '{"items":null,"items":[{"b":2}]}',
    '{"items":{"a":1}}',
    '{"metadata":{"resourceVersion":"7"},"items":[],"metadata":{"resourceVersion":"8"}}',
    '{"__proto__":{"polluted":true},"items":[{"__proto__":1}]}',
    '{"k\\"e\\\\y":"v","items":[]}',
    '{"n":-1.5E+3,"items":[0,-0,1e-7,12345678901234567890]}',
    '\ufeff{"items":[]}', // a byte-order mark is dropped by the UTF-8 decoding, as before
  ];
  for (const body of bodies) {
    const bytes = enc.encode(body);
    for (let cut = 0; cut <= bytes.length; cut++) {
      // What the client did before: decode the whole body, then JSON.parse.
      assert.deepStrictEqual(
        decode(bytes, [cut]),
        JSON.parse(new TextDecoder().decode(bytes)),
        `${body} cut ${cut}`,
      );
    }
  }
  assert.equal(Object.getPrototypeOf(decode(enc.encode(bodies[8]!))), Object.prototype);
});

Deno.test("a body that is not one JSON object is an error, never a partial result", () => {
  const bad = [
    "",
    "[]",
    '"items"',
    "{",
    '{"items":[{"a":1}',
    '{"items":[{"a":1},]}',
    '{"items":[,]}',
    '{"a":1,}',
    '{"a" 1}',
    '{"a":1 "b":2}',
    '{"a":tru}',
    '{"a":"unterminated}',
    '{"items":[{"a":1}}',
    '{"a":1}{"b":2}',
    '{"a":1} x',
    '{"items":[1 2]}',
  ];
  for (const body of bad) {
    assert.throws(() => decode(enc.encode(body)), ListBodyError, JSON.stringify(body));
  }
});

Deno.test("truncated anywhere, a list body is an error", () => {
  const bytes = enc.encode(LIST);
  for (let end = 0; end < bytes.length; end++) {
    assert.throws(() => decode(bytes.subarray(0, end), [Math.floor(end / 2)]), ListBodyError, `end ${end}`);
  }
});

// ---- differential: random lists with awkward strings, random chunking -------------------------------

function randomString(random: () => number): string {
  const pieces = [
    "a",
    "\\",
    '"',
    "\\\\",
    '\\"',
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "é",
    "😀",
    "\n",
    "\u0001",
    "u",
  ];
  let s = "";
  for (let n = Math.floor(random() * 12); n > 0; n--) s += pieces[Math.floor(random() * pieces.length)];
  return s;
}

function randomValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth > 3 || r < 0.35) return randomString(random);
  if (r < 0.45) return Math.round((random() - 0.5) * 1e6) / 100;
  if (r < 0.5) return [true, false, null][Math.floor(random() * 3)];
  if (r < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  const o: Record<string, unknown> = {};
  for (let n = Math.floor(random() * 4); n > 0; n--) o[randomString(random)] = randomValue(random, depth + 1);
  return o;
}

Deno.test("differential: 1,500 random lists in random chunks decode to what JSON.parse gives", () => {
  const random = seededRandom(20261202);
  for (let round = 0; round < 1_500; round++) {
    const list = {
      kind: randomString(random),
      metadata: randomValue(random, 2),
      items: Array.from({ length: Math.floor(random() * 6) }, () => randomValue(random, 1)),
    };
    const text = random() < 0.5 ? JSON.stringify(list) : JSON.stringify(list, null, Math.floor(random() * 3));
    const bytes = enc.encode(text);
    const cuts: number[] = [];
    for (let at = 0; at < bytes.length; at += 1 + Math.floor(random() * 24)) if (at > 0) cuts.push(at);
    assert.deepStrictEqual(decode(bytes, cuts), JSON.parse(text), `round ${round}: ${text}`);
  }
});

Deno.test("transformItem sees each item as soon as it is parsed, and only its result is kept", () => {
  const seen: string[] = [];
  const d = new ListBodyDecoder((item) => {
    const name = (item as { metadata: { name: string } }).metadata.name;
    seen.push(name);
    return { name };
  });
  const bytes = enc.encode(LIST);
  // Everything up to just after the first item's closing brace: the first item is complete.
  const firstEnd = LIST.indexOf('"name":"b"') - '{"metadata":{'.length - 1;
  d.push(bytes.slice(0, firstEnd));
  assert.deepEqual(seen, ["a"], "the first item is transformed before the second arrives");
  d.push(bytes.slice(firstEnd));
  assert.deepEqual(seen, ["a", "b", "c"]);
  const out = d.end();
  assert.deepEqual(out.items, [{ name: "a" }, { name: "b" }, { name: "c" }]);
  assert.deepEqual(out.metadata, JSON.parse(LIST).metadata);
});

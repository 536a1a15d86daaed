// CRC-32 as gzip uses it (RFC 1952 section 8: polynomial 0xedb88320, reflected, inverted in and out).
//
// Eight tables let the main loop take eight bytes per step ("slicing by 8"): table k maps a byte to
// the CRC of that byte followed by k zero bytes, so the eight lookups of one step combine by XOR.
// Each step still waits on the one before, so long inputs run two independent lanes over the two
// halves of each LANE * 2 byte block and join them: the CRC register is linear, and running it over
// n more bytes is the register times x^(8n) modulo the polynomial, plus the register those bytes give
// from zero.
const TABLES = new Int32Array(8 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLES[n] = c;
}
for (let n = 0; n < 256; n++) {
  let c = TABLES[n]!;
  for (let k = 1; k < 8; k++) {
    c = TABLES[c & 255]! ^ (c >>> 8);
    TABLES[k * 256 + n] = c;
  }
}

const LANE = 2048;

/** `a` times `b` modulo the CRC polynomial, both reflected (bit 31 is x^0). */
function multiply(a: number, b: number): number {
  let product = 0;
  for (let m = 0x80000000; a !== 0; m >>>= 1) {
    if (a & m) {
      product ^= b;
      a &= ~m;
    }
    b = b & 1 ? (b >>> 1) ^ 0xedb88320 : b >>> 1;
  }
  return product;
}

// x^(8 * LANE) modulo the polynomial: x (0x40000000) squared log2(8 * LANE) times.
let shiftLane = 0x40000000;
for (let k = 1; k < 8 * LANE; k *= 2) shiftLane = multiply(shiftLane, shiftLane);
const SHIFT_LANE = shiftLane;

/**
 * Extends `crc` (the CRC-32 of the bytes before; 0 for none) over `data[start, end)` and returns the
 * CRC-32 of the whole, as an unsigned 32-bit number.
 */
export function crc32(crc: number, data: Uint8Array, start = 0, end: number = data.length): number {
  const t = TABLES;
  let c = ~crc;
  let i = start;
  for (const lastBlock = end - 2 * LANE; i <= lastBlock; i += LANE) {
    let b = 0;
    for (let j = i + LANE, stop = i + LANE; i < stop; i += 8, j += 8) {
      const w = c ^ (data[i]! | data[i + 1]! << 8 | data[i + 2]! << 16 | data[i + 3]! << 24);
      const v = b ^ (data[j]! | data[j + 1]! << 8 | data[j + 2]! << 16 | data[j + 3]! << 24);
      c = t[1792 + (w & 255)]! ^ t[1536 + ((w >>> 8) & 255)]! ^ t[1280 + ((w >>> 16) & 255)]! ^
        t[1024 + (w >>> 24)]! ^ t[768 + data[i + 4]!]! ^ t[512 + data[i + 5]!]! ^ t[256 + data[i + 6]!]! ^
        t[data[i + 7]!]!;
      b = t[1792 + (v & 255)]! ^ t[1536 + ((v >>> 8) & 255)]! ^ t[1280 + ((v >>> 16) & 255)]! ^
        t[1024 + (v >>> 24)]! ^ t[768 + data[j + 4]!]! ^ t[512 + data[j + 5]!]! ^ t[256 + data[j + 6]!]! ^
        t[data[j + 7]!]!;
    }
    c = multiply(SHIFT_LANE, c) ^ b;
  }
  for (const last = end - 8; i <= last; i += 8) {
    const w = c ^ (data[i]! | data[i + 1]! << 8 | data[i + 2]! << 16 | data[i + 3]! << 24);
    c = t[1792 + (w & 255)]! ^ t[1536 + ((w >>> 8) & 255)]! ^ t[1280 + ((w >>> 16) & 255)]! ^
      t[1024 + (w >>> 24)]! ^ t[768 + data[i + 4]!]! ^ t[512 + data[i + 5]!]! ^ t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ data[i]!) & 255]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** Extends `crc` over the one byte `b`, for data that arrives a byte at a time (gzip headers). */
export function crc32Byte(crc: number, b: number): number {
  const c = ~crc;
  return ~(TABLES[(c ^ b) & 255]! ^ (c >>> 8)) >>> 0;
}

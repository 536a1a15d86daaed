import { seededRandom } from "../_util/seeded_random.ts";

/** Seeded choices for the case generators: the same seed makes the same case. */
export class Picker {
  readonly #next: () => number;

  /** Choices drawn from `seed`. */
  constructor(seed: number) {
    this.#next = seededRandom(seed);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }

  /** An integer from `lo` to `hi`, both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#next() * items.length)]!;
  }

  /** `n` bytes: printable ASCII mostly, with line breaks, and sometimes any byte. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    const binary = this.chance(0.2);
    for (let i = 0; i < n; i++) {
      out[i] = binary ? this.int(0, 255) : this.chance(0.03) ? 10 : this.int(32, 126);
    }
    return out;
  }
}

/** The bytes of a string whose characters are all below U+0100, one byte each. */
export function latin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** `parts` one after another. */
export function join(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Finds registered credentials in log files. A credential rarely leaks whole and verbatim: a key
 * shows up as one PEM line, JSON-escaped, or inside the base64 of a kubeconfig field; a token may be
 * cut by a line limit. So every credential becomes a set of "needles": aligned 32-character windows
 * of each secret form (the value, the base64 body of a PEM key, the base64 of the whole PEM), so
 * that any leaked run of 63 or more characters of a form contains a whole needle. JWTs contribute
 * only their signature part and the full token: their header and claims are shared by every token
 * of the cluster and are not secret on their own. Logs are searched with a rolling hash, so the cost
 * does not grow with the number of needles.
 */

/** A registered credential. */
export interface Secret {
  /** What it is; printed in findings. */
  readonly label: string;
  /** The value; never printed. */
  readonly value: string;
}

/** One needle and the secret it comes from. */
export interface Needle {
  readonly text: string;
  readonly label: string;
}

/** A hit: the file, its 1-based line, and the label of the credential found there. */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly label: string;
}

const WINDOW = 32;

function windows(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + WINDOW <= text.length; i += WINDOW) out.push(text.slice(i, i + WINDOW));
  return out;
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** The needles of one secret (short secrets are searched whole). */
export function needlesOf(secret: Secret): Needle[] {
  const value = secret.value.trim();
  const forms = new Set<string>();
  const pem = /-----BEGIN [A-Z ]+-----([\s\S]*?)-----END [A-Z ]+-----/g;
  let match: RegExpExecArray | null;
  let isPem = false;
  while ((match = pem.exec(value)) !== null) {
    isPem = true;
    const body = (match[1] ?? "").replace(/\s+/g, "");
    for (const w of windows(body)) forms.add(w);
  }
  if (isPem) {
    for (const w of windows(base64(value))) forms.add(w);
    for (const w of windows(base64(value + "\n"))) forms.add(w);
  } else if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value)) {
    const signature = value.split(".")[2] ?? "";
    for (const w of windows(signature)) forms.add(w);
    if (signature.length < WINDOW) forms.add(value);
  } else if (value.length >= 2 * WINDOW) {
    for (const w of windows(value)) forms.add(w);
  } else {
    forms.add(value);
  }
  return [...forms].map((text) => ({ text, label: secret.label }));
}

/** Searches text for needles of exactly WINDOW characters by rolling hash, and others by indexOf. */
export class NeedleIndex {
  readonly #byHash = new Map<number, Needle[]>();
  readonly #others: Needle[] = [];
  readonly #high: number;
  /** Number of needles. */
  readonly size: number;

  /** Indexes `needles`. */
  constructor(needles: readonly Needle[]) {
    for (const n of needles) {
      if (n.text.length === WINDOW) {
        const h = hashOf(n.text, 0);
        const list = this.#byHash.get(h) ?? [];
        list.push(n);
        this.#byHash.set(h, list);
      } else {
        this.#others.push(n);
      }
    }
    this.size = needles.length;
    let high = 1;
    for (let i = 0; i < WINDOW - 1; i++) high = Math.imul(high, BASE) >>> 0;
    this.#high = high;
  }

  /** The labels found in `text`, each with the offset of its first hit. */
  search(text: string): { label: string; offset: number }[] {
    const found = new Map<string, number>();
    const note = (label: string, offset: number) => {
      if (!found.has(label)) found.set(label, offset);
    };
    for (const n of this.#others) {
      const at = text.indexOf(n.text);
      if (at >= 0) note(n.label, at);
    }
    if (this.#byHash.size > 0 && text.length >= WINDOW) {
      let h = hashOf(text, 0);
      for (let i = 0;; i++) {
        const candidates = this.#byHash.get(h);
        if (candidates) {
          const slice = text.slice(i, i + WINDOW);
          for (const n of candidates) if (n.text === slice) note(n.label, i);
        }
        if (i + WINDOW >= text.length) break;
        h = (Math.imul((h - Math.imul(text.charCodeAt(i), this.#high)) >>> 0, BASE) +
          text.charCodeAt(i + WINDOW)) >>> 0;
      }
    }
    return [...found].map(([label, offset]) => ({ label, offset }));
  }
}

const BASE = 257;

function hashOf(text: string, from: number): number {
  let h = 0;
  for (let i = from; i < from + WINDOW; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) >>> 0;
  return h;
}

/** 1-based line number of `offset` in `text`. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

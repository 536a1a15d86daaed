/**
 * A reader for the block-style YAML that kubectl and client-go write into kubeconfigs, so that the
 * usual kubeconfig is read without loading the full YAML parser (npm:yaml, with Deno's Node
 * compatibility layer under it: about 30 ms and 4–8 MB of RSS at start-up, bench/RESULTS.md).
 *
 * It accepts a strict subset: a top-level block mapping of block mappings and sequences, plain scalars
 * (folded over more indented lines, as go-yaml wraps long strings), one-line quoted scalars, `{}` and
 * `[]`, comments and a leading `---`. Anything else (anchors, tags, block scalars, multi-line quoted
 * scalars, flow collections with content, tabs, CR line ends, duplicate keys, numbers other than small
 * decimal integers, …) makes it return `undefined`, and the caller
 * hands the text to the full parser, which also produces the error for text that is not YAML. Within
 * the subset the result equals npm:yaml's (YAML 1.2 core schema); a differential test holds it to
 * that.
 * @module
 */

/** Thrown inside the reader when the text leaves the subset; never escapes `readYamlSubset`. */
class OutsideSubset extends Error {}

interface Line {
  readonly indent: number;
  /** The line without its indentation and trailing spaces. */
  readonly text: string;
  /** A blank or comment line came between this line and the one before. */
  readonly afterGap: boolean;
}

// Nesting deeper than this is left to the full parser (no kubeconfig comes close).
const MAX_DEPTH = 32;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
// Keys the core schema (or YAML 1.1 readers) would not read as plain strings, and the one key a JS
// object cannot hold as data.
const RESERVED_KEY = /^(?:true|false|null|yes|no|on|off|y|n|__proto__)$/i;
// Plain scalars may not start with an indicator; "-" is allowed when a non-space follows (`--flag`).
const INDICATOR = new Set("-?:,[]{}#&*!|>'\"%@`");
const NULL_WORDS = new Set(["~", "null", "Null", "NULL"]);
const BOOLEANS = new Map([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);
const SMALL_INTEGER = /^(?:0|[1-9][0-9]{0,14})$/;
// Any other scalar the core schema might read as a number (signed, octal, hex, floats, .inf, .nan).
const NUMBER_LIKE = /^[-+]?[.0-9]/;
const ESCAPES = new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["n", "\n"],
  ["t", "\t"],
  ["r", "\r"],
  ["b", "\b"],
  ["f", "\f"],
]);

/**
 * The document `text` holds when it is a block mapping within the subset described above, else
 * `undefined` (the text may still be valid YAML: the full parser decides).
 */
export function readYamlSubset(text: string): Record<string, unknown> | undefined {
  if (hasUnusualCharacter(text)) return undefined;
  const lines: Line[] = [];
  let gap = false;
  for (const raw of text.split("\n")) {
    const indent = leadingSpaces(raw);
    const content = trimSpacesEnd(raw.slice(indent));
    if (content === "" || content.startsWith("#")) {
      gap = true;
      continue;
    }
    if (indent === 0 && /^(?:---|\.\.\.|%)/.test(content)) {
      // A leading `---` starts the one document; anything else at this place is the full parser's.
      if (content === "---" && lines.length === 0) continue;
      return undefined;
    }
    lines.push({ indent, text: content, afterGap: gap });
    gap = false;
  }
  try {
    return new Reader(lines).document();
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}

/**
 * C0 controls but LF, DEL, C1 controls, the byte-order mark and the Unicode line separators: the
 * full parser gives each its own meaning (or error).
 */
function hasUnusualCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (
      (c < 0x20 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || c === 0xfeff
    ) {
      return true;
    }
  }
  return false;
}

class Reader {
  readonly #lines: Line[];
  #pos = 0;
  #depth = 0;

  constructor(lines: Line[]) {
    this.#lines = lines;
  }

  document(): Record<string, unknown> {
    const first = this.#lines[0];
    if (first === undefined || first.indent !== 0 || isSequenceItem(first.text)) throw new OutsideSubset();
    const root = this.#mapping(0);
    if (this.#pos !== this.#lines.length) throw new OutsideSubset();
    return root;
  }

  /** The block mapping whose keys sit at `indent`, starting at the current line. */
  #mapping(indent: number): Record<string, unknown> {
    this.#enter();
    const map: Record<string, unknown> = {};
    for (let line = this.#lines[this.#pos]; line !== undefined; line = this.#lines[this.#pos]) {
      if (line.indent < indent) break;
      if (line.indent > indent || isSequenceItem(line.text)) throw new OutsideSubset();
      const entry = splitEntry(line.text);
      if (entry === undefined || Object.hasOwn(map, entry.key)) throw new OutsideSubset();
      this.#pos++;
      map[entry.key] = entry.rest === "" || entry.rest.startsWith("#")
        ? this.#blockValue(indent, true)
        : this.#inline(entry.rest, indent);
    }
    this.#depth--;
    return map;
  }

  /** The block sequence whose `-` sit at `indent`, starting at the current line. */
  #sequence(indent: number): unknown[] {
    this.#enter();
    const list: unknown[] = [];
    for (let line = this.#lines[this.#pos]; line !== undefined; line = this.#lines[this.#pos]) {
      if (line.indent < indent || (line.indent === indent && !isSequenceItem(line.text))) break;
      if (line.indent > indent) throw new OutsideSubset();
      const after = line.text.slice(1);
      const content = after.slice(leadingSpaces(after));
      if (content === "" || content.startsWith("#")) {
        this.#pos++;
        list.push(this.#blockValue(indent, false));
      } else if (isSequenceItem(content)) {
        throw new OutsideSubset();
      } else if (splitEntry(content) !== undefined) {
        // `- key: value` opens a mapping whose keys sit where `key` starts.
        const column = indent + 1 + after.length - content.length;
        this.#lines[this.#pos] = { indent: column, text: content, afterGap: line.afterGap };
        list.push(this.#mapping(column));
      } else {
        this.#pos++;
        list.push(this.#inline(content, indent));
      }
    }
    this.#depth--;
    return list;
  }

  /**
   * A value on the line of its key or `-` (already consumed), with the lines that continue it when it is
   * a plain scalar: more indented than `parentIndent`, folded into one line with single spaces, as
   * go-yaml writes long strings (`installHint` of cloud credential plugins).
   */
  #inline(text: string, parentIndent: number): unknown {
    const value = inlineValue(text);
    let next = this.#lines[this.#pos];
    if (next === undefined || next.indent <= parentIndent) return value;
    // Only a plain scalar without a comment continues, and only with lines that cannot mean anything
    // else: no gap (a blank line folds to a line break, a comment ends the scalar), no indicator first,
    // no ": " or " #".
    if (typeof value !== "string" || /^["'{[]/.test(text) || text.includes(" #")) throw new OutsideSubset();
    let folded = value;
    for (; next !== undefined && next.indent > parentIndent; next = this.#lines[this.#pos]) {
      const part = next.text;
      if (
        next.afterGap || INDICATOR.has(part[0]!) || part.includes(": ") || part.endsWith(":") ||
        part.includes(" #")
      ) {
        throw new OutsideSubset();
      }
      folded += " " + part;
      this.#pos++;
    }
    return folded;
  }

  /**
   * What follows a `key:` or `-` with nothing after it: a more indented block, a sequence at the same
   * indentation (kubectl writes `clusters:` and its `- ` in one column), or null.
   */
  #blockValue(indent: number, sequenceHere: boolean): unknown {
    const next = this.#lines[this.#pos];
    if (next === undefined || next.indent < indent) return null;
    if (next.indent === indent) {
      return sequenceHere && isSequenceItem(next.text) ? this.#sequence(indent) : null;
    }
    if (isSequenceItem(next.text)) return this.#sequence(next.indent);
    if (splitEntry(next.text) === undefined) throw new OutsideSubset();
    return this.#mapping(next.indent);
  }

  #enter(): void {
    if (++this.#depth > MAX_DEPTH) throw new OutsideSubset();
  }
}

// YAML separates with spaces only: String#trim would also take no-break and other Unicode spaces,
// which YAML reads as content.
function leadingSpaces(text: string): number {
  let n = 0;
  while (text.charCodeAt(n) === 32) n++;
  return n;
}

function trimSpacesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return text.slice(0, end);
}

function isSequenceItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

/** `key: rest` split at the colon, with `rest` trimmed; undefined when `text` is not such an entry. */
function splitEntry(text: string): { key: string; rest: string } | undefined {
  let key: string;
  let end: number;
  if (text.startsWith('"') || text.startsWith("'")) {
    const quoted = readQuoted(text);
    if (quoted === undefined) return undefined;
    [key, end] = quoted;
  } else {
    end = text.indexOf(":");
    if (end < 0) return undefined;
    key = text.slice(0, end);
    if (!PLAIN_KEY.test(key) || RESERVED_KEY.test(key)) return undefined;
  }
  if (key === "__proto__" || text[end] !== ":" || (end + 1 < text.length && text[end + 1] !== " ")) {
    return undefined;
  }
  const rest = text.slice(end + 1);
  return { key, rest: rest.slice(leadingSpaces(rest)) };
}

/** A value written on the line of its key or `-`: a scalar, `{}` or `[]`, maybe with a comment. */
function inlineValue(text: string): unknown {
  if (text.startsWith('"') || text.startsWith("'")) {
    const quoted = readQuoted(text);
    if (quoted === undefined || !isCommentOrNothing(text.slice(quoted[1]))) throw new OutsideSubset();
    return quoted[0];
  }
  if (text.startsWith("{}") || text.startsWith("[]")) {
    if (!isCommentOrNothing(text.slice(2))) throw new OutsideSubset();
    return text[0] === "{" ? {} : [];
  }
  const comment = text.indexOf(" #");
  const plain = comment < 0 ? text : trimSpacesEnd(text.slice(0, comment));
  return plainScalar(plain);
}

function isCommentOrNothing(rest: string): boolean {
  return rest === "" || /^ +#/.test(rest) || /^ +$/.test(rest);
}

/** A one-line plain scalar, resolved as the core schema does (within the subset). */
function plainScalar(text: string): unknown {
  const first = text[0]!;
  if (INDICATOR.has(first) && !(first === "-" && text.length > 1 && text[1] !== " ")) {
    throw new OutsideSubset();
  }
  if (text.includes(": ") || text.endsWith(":") || /^(?:---|\.\.\.)/.test(text)) throw new OutsideSubset();
  if (NULL_WORDS.has(text)) return null;
  const bool = BOOLEANS.get(text);
  if (bool !== undefined) return bool;
  if (SMALL_INTEGER.test(text)) return Number(text);
  if (NUMBER_LIKE.test(text)) throw new OutsideSubset();
  return text;
}

/**
 * A single- or double-quoted scalar that ends on its line: its value and the index after the closing
 * quote. Undefined when it does not end there or uses an escape outside the subset.
 */
function readQuoted(text: string): [string, number] | undefined {
  const quote = text[0];
  let out = "";
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c !== "'") out += c;
      else if (text[i + 1] === "'") out += text[i++];
      else return [out, i + 1];
    } else if (c === '"') {
      return [out, i + 1];
    } else if (c !== "\\") {
      out += c;
    } else {
      const e = text[++i];
      const simple = e === undefined ? undefined : ESCAPES.get(e);
      if (simple !== undefined) {
        out += simple;
      } else if (e === "u" && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 1, i + 5))) {
        out += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
        i += 4;
      } else {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * One header (or trailer) field line of a response, checked as Go's net/textproto checks it, minus obs-fold.
 * Shared by the head parser and the chunked decoder's trailers.
 */

/** A field line split into name and value, or why it is invalid. */
export type FieldLine =
  | { readonly name: string; readonly value: string }
  | { readonly error: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field value bytes (RFC 9110 section 5.5): HTAB, SP, VCHAR and obs-text; no other control byte.
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Parses `line`: one line without its line end, one byte a character. A line starting with SP or HTAB
 * continues the previous one (obs-fold, RFC 9112 section 5.2), which is refused. The value loses the
 * spaces and tabs around it; the name is case-preserved.
 */
export function parseFieldLine(line: string): FieldLine {
  if (line.startsWith(" ") || line.startsWith("\t")) return { error: "is folded (obsolete line folding)" };
  const colon = line.indexOf(":");
  if (colon <= 0) return { error: "has no field name and colon" };
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) return { error: `has an invalid field name ${JSON.stringify(name.slice(0, 100))}` };
  const value = line.slice(colon + 1);
  if (!VALUE.test(value)) return { error: `has a control character in the value of "${name}"` };
  return { name, value: trimSpaces(value) };
}

function trimSpaces(text: string): string {
  let start = 0, end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(start, end);
}

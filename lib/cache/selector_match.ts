/**
 * Label and field selector strings, as the API server reads them (a subset): label `k=v`, `k==v`, `k!=v`,
 * `k`, `!k`, `k in (a,b)`, `k notin (a,b)`; field `metadata.name` and `metadata.namespace` with `=`, `==`,
 * `!=`. An informer uses them to tell whether an object a write returned is in its scope; lib/testing's
 * FakeApi to filter its lists and watches.
 * @module
 */
import type { KubeObject } from "../resources/object.ts";

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

/** A selector the API server would reject as malformed (FakeApi answers 400 BadRequest). */
export class InvalidSelectorError extends Error {
  override name = "InvalidSelectorError";
}

/** A predicate for a label selector string; "" matches everything. Throws InvalidSelectorError for bad syntax. */
export function labelSelectorMatcher(selector: string): Requirement {
  const requirements = splitTop(selector).map(parseRequirement);
  return (labels) => requirements.every((r) => r(labels));
}

/**
 * A predicate for a field selector string over `metadata.name` and `metadata.namespace`. Throws
 * InvalidSelectorError for bad syntax, and a TypeError for any other field (the server may support it:
 * many kinds have fields of their own, such as a Pod's `spec.nodeName`).
 */
export function fieldSelectorMatcher(selector: string): (obj: KubeObject) => boolean {
  const terms = selector.split(",").map((t) => t.trim()).filter((t) => t !== "").map((term) => {
    const m = /^([a-zA-Z.]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw new InvalidSelectorError(`Invalid field selector "${selector}"`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    const read = field === "metadata.name"
      ? (o: KubeObject) => o.metadata.name ?? ""
      : field === "metadata.namespace"
      ? (o: KubeObject) => o.metadata.namespace ?? ""
      : undefined;
    if (!read) throw new TypeError(`Field selector on "${field}" is not supported here`);
    return (o: KubeObject) => (op === "!=" ? read(o) !== value : read(o) === value);
  });
  return (obj) => terms.every((t) => t(obj));
}

/** Splits on commas outside parentheses. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

function parseRequirement(text: string): Requirement {
  let m = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(text);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = list.split(",").map((v) => v.trim());
    return op === "in"
      ? (labels) => Object.hasOwn(labels, key) && values.includes(labels[key]!)
      : (labels) => !Object.hasOwn(labels, key) || !values.includes(labels[key]!);
  }
  m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s=!(),]*)$/.exec(text);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === "!="
      ? (labels) => labels[key] !== value
      : (labels) => Object.hasOwn(labels, key) && labels[key] === value;
  }
  m = /^(!?)([^\s!=(),]+)$/.exec(text);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (labels) => !Object.hasOwn(labels, key) : (labels) => Object.hasOwn(labels, key);
  }
  throw new InvalidSelectorError(`Invalid label selector requirement "${text}"`);
}

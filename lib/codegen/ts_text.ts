/** Small text helpers for emitting TypeScript source. */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `name` as a property key: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** "replicaSet" / "replica-set" / "replica_set" → "ReplicaSet". */
export function pascalCase(text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter((part) => part !== "").map((part) =>
    part[0]!.toUpperCase() + part.slice(1)
  ).join("");
}

/**
 * A JSDoc block for `text` at `indent`: the first paragraph only (Kubernetes descriptions carry
 * long notes after it), lines wrapped at about 110 columns, and `*\/` defused. Empty text gives "".
 */
export function docComment(text: string | undefined, indent: string, extra: readonly string[] = []): string {
  const first = (text ?? "").trim().split(/\n\s*\n/)[0]?.replace(/\s+/g, " ").trim() ?? "";
  const lines = [...wrap(first.replaceAll("*/", "*\\/"), 110 - indent.length - 3), ...extra];
  if (lines.length === 0) return "";
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

function wrap(text: string, width: number): string[] {
  if (text === "") return [];
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") out.push(line);
  return out;
}

/** A string literal type for `value`. */
export function literal(value: unknown): string {
  return JSON.stringify(value);
}

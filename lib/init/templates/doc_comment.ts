/**
 * Doc comments of generated code, wrapped to the project's line width: `deno fmt` leaves comments alone,
 * and a kind's name can be any length.
 * @module
 */

/** The generated project's `fmt.lineWidth`. */
export const LINE_WIDTH = 110;

/**
 * `text` as a JSDoc block indented by `indent`, each paragraph (a line of `text`) wrapped to
 * {@linkcode LINE_WIDTH}; a paragraph starting with "- " is a list item whose continuation lines are
 * indented by two spaces, and one starting with "@" (a tag) is kept as it is.
 */
export function docComment(text: string, indent = ""): string {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    if (paragraph.startsWith("@")) {
      lines.push(paragraph);
      continue;
    }
    const hanging = paragraph.startsWith("- ") ? "  " : "";
    const room = LINE_WIDTH - indent.length - 3;
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line !== "" && line.length + 1 + word.length > room) {
        lines.push(line);
        line = hanging + word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    lines.push(line);
  }
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */`;
}

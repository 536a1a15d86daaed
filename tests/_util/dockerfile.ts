/** Reading the project's Dockerfile structurally (tests compare it with deno.json and the manifests). */

/** One Dockerfile instruction: its upper-cased keyword and the rest of the line. */
export interface DockerInstruction {
  readonly op: string;
  readonly args: string;
}

/** Dockerfile instructions with continuation lines joined and comments dropped. */
export function dockerInstructions(text: string): DockerInstruction[] {
  const joined = text.split("\n").filter((l) => !l.trimStart().startsWith("#")).join("\n").replace(
    /\\\n/g,
    " ",
  );
  return joined.split("\n").map((l) => l.trim()).filter((l) => l !== "").map((l) => {
    const [op = "", ...rest] = l.split(/\s+/);
    return { op: op.toUpperCase(), args: rest.join(" ") };
  });
}

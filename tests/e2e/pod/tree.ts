/** Snapshots of a file tree, compared to show what a run wrote. */
import { join } from "node:path";

/** What is recorded per path: any write, chmod, chown, create or delete changes it. */
export interface TreeEntry {
  readonly kind: "file" | "dir" | "symlink" | "other";
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly mtime: number;
  readonly ctime: number;
  readonly target?: string;
}

/** Every path below `dir` (relative, with a leading "/"), with its metadata. */
export async function snapshotTree(dir: string): Promise<Map<string, TreeEntry>> {
  const out = new Map<string, TreeEntry>();
  const visit = async (rel: string) => {
    const path = join(dir, rel);
    const info = await Deno.lstat(path);
    const kind = info.isFile ? "file" : info.isDirectory ? "dir" : info.isSymlink ? "symlink" : "other";
    out.set(rel || "/", {
      kind,
      mode: info.mode ?? 0,
      uid: info.uid ?? -1,
      gid: info.gid ?? -1,
      size: kind === "dir" ? 0 : info.size,
      mtime: info.mtime?.getTime() ?? 0,
      ctime: info.ctime?.getTime() ?? 0,
      ...(kind === "symlink" ? { target: await Deno.readLink(path) } : {}),
    });
    if (kind === "dir") {
      for await (const e of Deno.readDir(path)) await visit(`${rel}/${e.name}`);
    }
  };
  await visit("");
  return out;
}

/** Differences as lines: "+ path" (new), "- path" (gone), "~ path (fields)" (changed). */
export function diffTrees(before: Map<string, TreeEntry>, after: Map<string, TreeEntry>): string[] {
  const out: string[] = [];
  for (const [path, a] of after) {
    const b = before.get(path);
    if (!b) {
      out.push(`+ ${path}`);
      continue;
    }
    const changed = (Object.keys(a) as (keyof TreeEntry)[]).filter((k) => a[k] !== b[k]);
    if (changed.length > 0) out.push(`~ ${path} (${changed.join(", ")})`);
  }
  for (const path of before.keys()) if (!after.has(path)) out.push(`- ${path}`);
  return out.sort();
}

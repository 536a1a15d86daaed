import type { ClusterEntry, ContextEntry, KubeconfigFile, UserEntry } from "./kubeconfig_file.ts";

/** Several kubeconfig files merged by client-go's rules. */
export interface MergedKubeconfig {
  /** The files merged, in priority order. */
  readonly files: readonly string[];
  /** Clusters by name. */
  readonly clusters: ReadonlyMap<string, ClusterEntry>;
  /** Users by name. */
  readonly users: ReadonlyMap<string, UserEntry>;
  /** Contexts by name. */
  readonly contexts: ReadonlyMap<string, ContextEntry>;
  /** The first non-empty `current-context`, with the file that set it. */
  readonly currentContext?: { readonly name: string; readonly file: string };
}

/**
 * Merges kubeconfig files in priority order (the $KUBECONFIG order): the first file to define a
 * cluster, user or context name wins and later definitions of that name are ignored, not errors;
 * the first non-empty `current-context` wins. Each entry keeps the file it came from.
 */
export function mergeKubeconfigs(files: readonly KubeconfigFile[]): MergedKubeconfig {
  const clusters = new Map<string, ClusterEntry>();
  const users = new Map<string, UserEntry>();
  const contexts = new Map<string, ContextEntry>();
  let currentContext: { name: string; file: string } | undefined;
  for (const file of files) {
    addFirst(clusters, file.clusters);
    addFirst(users, file.users);
    addFirst(contexts, file.contexts);
    if (currentContext === undefined && file.currentContext) {
      currentContext = { name: file.currentContext, file: file.path };
    }
  }
  const merged = { files: files.map((f) => f.path), clusters, users, contexts };
  return currentContext === undefined ? merged : { ...merged, currentContext };
}

function addFirst<T extends { readonly name: string }>(into: Map<string, T>, items: readonly T[]): void {
  for (const item of items) if (!into.has(item.name)) into.set(item.name, item);
}

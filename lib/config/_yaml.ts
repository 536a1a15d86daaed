/**
 * The YAML parser, loaded on first use. Only a kubeconfig file needs it; a controller in a pod
 * (in-cluster configuration) never parses one, and loading `npm:yaml` up front cost ~5 MB of
 * resident memory on top of the node compatibility layer (bench/RESULTS.md, goal 1).
 * @module
 */
export type YamlModule = typeof import("npm:yaml@^2.9.1");

let loading: Promise<YamlModule> | undefined;

/** The `yaml` module; the first call loads it, later calls share that load. */
export function loadYaml(): Promise<YamlModule> {
  return loading ??= import("npm:yaml@^2.9.1");
}

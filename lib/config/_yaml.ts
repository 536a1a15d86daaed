/**
 * The YAML parser, loaded on first use. Only a kubeconfig file needs it; a controller in a pod
 * (in-cluster configuration) never parses one. Loading `npm:yaml` up front cost the reference
 * controller 3.9 MB of RSS at start-up and ~1 MB once idle (bench/RESULTS.md, goal 1).
 * @module
 */
export type YamlModule = typeof import("npm:yaml@^2.9.1");

let loading: Promise<YamlModule> | undefined;

/** The `yaml` module; the first call loads it, later calls share that load. */
export function loadYaml(): Promise<YamlModule> {
  return loading ??= import("npm:yaml@^2.9.1");
}

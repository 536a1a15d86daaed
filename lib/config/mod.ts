/**
 * Cluster configuration: kubeconfig loading and merging by client-go's rules, in-cluster
 * service accounts, and credential sources (static, rotating token file, exec plugin).
 * @module
 */
export type { ClusterConfig, Credentials, CredentialSource } from "./types.ts";
// Re-exported because the options and results below mention them.
export type { TlsOptions } from "../http/types.ts";
export { ConfigError, type ConfigErrorOptions, type ConfigErrorReason } from "./config_error.ts";
export { loadConfig, type LoadConfigOptions } from "./load_config.ts";
export { DEFAULT_IN_CLUSTER_DIR, inClusterConfig, type InClusterOptions, isInCluster } from "./in_cluster.ts";
export {
  type ClusterEntry,
  type ContextEntry,
  type EntryOrigin,
  type KubeconfigFile,
  parseKubeconfig,
  type UserEntry,
} from "./kubeconfig_file.ts";
export { type MergedKubeconfig, mergeKubeconfigs } from "./merge.ts";
export { resolveContext, type ResolveContextOptions } from "./resolve_context.ts";
export { staticCredentials } from "./static_credentials.ts";
export { TokenFileSource, type TokenFileSourceOptions } from "./token_file.ts";
export {
  EXEC_API_VERSIONS,
  type ExecClusterInfo,
  ExecCredentialSource,
  type ExecCredentialSourceOptions,
} from "./exec_credential.ts";
export { type ExecConfig, type ExecEnvVar, type InteractiveMode } from "./exec_config.ts";
export { defaultExecRunner, type ExecResult, type ExecRunner, type ExecRunOptions } from "./exec_runner.ts";

import { ConfigError } from "./config_error.ts";
import { loadYaml, type YamlModule } from "./_yaml.ts";
import { readYamlSubset } from "./_yaml_subset.ts";
import { type ExecConfig, parseExecConfig } from "./exec_config.ts";
import { decodeBase64Text, dirname, resolvePath } from "./_private.ts";
import {
  type At,
  child,
  listAt,
  type Mapping,
  mappingAt,
  missing,
  optBool,
  optString,
  present,
  reqString,
} from "./_fields.ts";

/** Where an entry was defined, so errors and relative paths refer to its own file. */
export interface EntryOrigin {
  /** Entry name. */
  readonly name: string;
  /** The kubeconfig file that defined it. */
  readonly file: string;
  /** Field path of the entry's body, e.g. `users[2].user`. */
  readonly field: string;
}

/** A `clusters[]` entry. Paths are already resolved against the defining file's directory. */
export interface ClusterEntry extends EntryOrigin {
  /** API server URL as written. */
  readonly server?: string;
  /** Path of a PEM CA bundle. */
  readonly certificateAuthority?: string;
  /** Decoded PEM from `certificate-authority-data`. */
  readonly certificateAuthorityData?: string;
  /** `insecure-skip-tls-verify`. */
  readonly insecureSkipTlsVerify: boolean;
  /** `tls-server-name`. */
  readonly tlsServerName?: string;
  /** Recorded so that using this cluster fails clearly instead of silently bypassing the proxy. */
  readonly proxyUrl?: string;
  /** `disable-compression`: ask the server for uncompressed responses. */
  readonly disableCompression: boolean;
}

/** A `users[]` entry. Paths are already resolved against the defining file's directory. */
export interface UserEntry extends EntryOrigin {
  /** Path of the PEM client certificate. */
  readonly clientCertificate?: string;
  /** Decoded PEM from `client-certificate-data`. */
  readonly clientCertificateData?: string;
  /** Path of the PEM client key. */
  readonly clientKey?: string;
  /** Decoded PEM from `client-key-data`. */
  readonly clientKeyData?: string;
  /** Static bearer token. */
  readonly token?: string;
  /** Path of a (rotating) bearer token file. */
  readonly tokenFile?: string;
  /** Exec credential plugin. */
  readonly exec?: ExecConfig;
  /** Keys present that kubeloop does not implement (auth-provider, username, ...), rejected on use. */
  readonly unsupported: readonly string[];
}

/** A `contexts[]` entry. */
export interface ContextEntry extends EntryOrigin {
  /** Cluster name. */
  readonly cluster?: string;
  /** User name; absent means anonymous. */
  readonly user?: string;
  /** Default namespace. */
  readonly namespace?: string;
}

/** One parsed and validated kubeconfig file. */
export interface KubeconfigFile {
  /** The file's path, as given. */
  readonly path: string;
  /** `clusters[]`, in file order. */
  readonly clusters: readonly ClusterEntry[];
  /** `users[]`, in file order. */
  readonly users: readonly UserEntry[];
  /** `contexts[]`, in file order. */
  readonly contexts: readonly ContextEntry[];
  /** `current-context`. */
  readonly currentContext?: string;
}

const UNSUPPORTED_USER_KEYS = [
  "auth-provider",
  "username",
  "password",
  "as",
  "as-uid",
  "as-groups",
  "as-user-extra",
];

/**
 * Parses and validates one kubeconfig (YAML or JSON). Every entry is checked for types and
 * base64, as client-go's decoder does for the whole file; features kubeloop does not support
 * are only recorded, and rejected when the selected context uses them. The block-style YAML that
 * kubectl writes is read without the full YAML parser; anything else is handed to it, loaded on
 * first use (hence asynchronous; a controller running in a pod never needs it).
 * @throws {ConfigError} `Parse`, `InvalidField` or `MissingField`, naming `path` and the field.
 */
export async function parseKubeconfig(text: string, path: string): Promise<KubeconfigFile> {
  const doc = readYamlSubset(text) ?? await parseYaml(text, path);
  const root: At = { file: path, field: "" };
  const top = mappingAt(doc, { file: path, field: "(document)" });
  const dir = dirname(path);
  const clusters = entries(
    top,
    "clusters",
    "cluster",
    root,
    (body, at, name) => parseCluster(body, at, name, dir),
  );
  const users = entries(top, "users", "user", root, (body, at, name) => parseUser(body, at, name, dir));
  const contexts = entries(top, "contexts", "context", root, (body, at, name) => ({
    name,
    file: path,
    field: at.field,
    ...opt("cluster", optString(body, "cluster", at)),
    ...opt("user", optString(body, "user", at)),
    ...opt("namespace", optString(body, "namespace", at)),
  }));
  return {
    path,
    clusters,
    users,
    contexts,
    ...opt("currentContext", optString(top, "current-context", root)),
  };
}

/**
 * Text outside the subset goes to the full YAML parser, loaded on first use. Its errors become a
 * `Parse` (or `Permission`) ConfigError naming the file.
 */
async function parseYaml(text: string, path: string): Promise<unknown> {
  const yaml = await loadYaml();
  try {
    // logLevel "error": warnings (e.g. an unknown tag, which quotes it) are not printed to the console.
    return yaml.parse(text, { logLevel: "error" });
  } catch (error) {
    const permission = permissionProblem(error);
    if (permission) {
      throw new ConfigError(`Cannot parse kubeconfig "${path}": ${permission}`, {
        reason: "Permission",
        file: path,
      });
    }
    // The yaml library's message quotes the offending source line, which may hold a token or key,
    // so neither it nor the error itself (as a cause) leaves here: only its code and position.
    throw new ConfigError(`Cannot parse kubeconfig "${path}": ${yamlErrorSummary(error, yaml)}`, {
      reason: "Parse",
      file: path,
    });
  }
}

/**
 * The YAML parser (npm:yaml) reads the environment variables LOG_TOKENS and LOG_STREAM while parsing; without
 * a permission decision for them Deno throws NotCapable (or PermissionDenied when a prompt was refused). That is
 * a permission problem, not bad YAML: name the variable and the flags that fix it. Deno's message holds only
 * the variable name, never kubeconfig content.
 */
function permissionProblem(error: unknown): string | undefined {
  if (!(error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied)) {
    return undefined;
  }
  const variable = /env access to "([A-Za-z0-9_]+)"/.exec(error.message)?.[1];
  if (!variable) return `the YAML parser was denied a permission (${error.name})`;
  return `the YAML parser reads the environment variable ${variable} and was denied access to it ` +
    `(${error.name}); run with --ignore-env=LOG_TOKENS,LOG_STREAM (or --allow-env=LOG_TOKENS,LOG_STREAM)`;
}

/** What went wrong and where, without any of the source text: e.g. `invalid YAML (BAD_INDENT) at line 3, column 5`. */
function yamlErrorSummary(error: unknown, yaml: YamlModule): string {
  if (!(error instanceof yaml.YAMLError)) {
    return `invalid YAML (${error instanceof Error ? error.name : "unknown error"})`;
  }
  const at = error.linePos?.[0];
  return `invalid YAML (${error.code})${at ? ` at line ${at.line}, column ${at.col}` : ""}`;
}

/** `{ [key]: value }` when value is defined, else `{}` (exactOptionalPropertyTypes-friendly). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function entries<T>(
  top: Mapping,
  listKey: string,
  bodyKey: string,
  root: At,
  build: (body: Mapping, at: At, name: string) => T,
): T[] {
  const listAtField = child(root, listKey);
  const seen = new Set<string>();
  return listAt(top[listKey], listAtField).map((item, i) => {
    const itemAt = child(listAtField, i);
    const obj = mappingAt(item, itemAt);
    const name = reqString(obj, "name", itemAt);
    if (seen.has(name)) {
      // client-go refuses duplicate names inside one file (across files the first wins).
      throw new ConfigError(
        `Cannot read kubeconfig "${root.file}": field "${itemAt.field}.name" repeats the name "${name}"`,
        { reason: "InvalidField", file: root.file, field: `${itemAt.field}.name` },
      );
    }
    seen.add(name);
    const bodyAt = child(itemAt, bodyKey);
    if (obj[bodyKey] === undefined) throw missing(bodyAt);
    return build(mappingAt(obj[bodyKey], bodyAt), bodyAt, name);
  });
}

function base64Field(obj: Mapping, key: string, at: At): string | undefined {
  const value = optString(obj, key, at);
  return value === undefined ? undefined : decodeBase64Text(value, at.file, child(at, key).field);
}

function pathField(obj: Mapping, key: string, at: At, dir: string): string | undefined {
  const value = optString(obj, key, at);
  return value === undefined ? undefined : resolvePath(dir, value);
}

function parseCluster(body: Mapping, at: At, name: string, dir: string): ClusterEntry {
  return {
    name,
    file: at.file,
    field: at.field,
    ...opt("server", optString(body, "server", at)),
    ...opt("certificateAuthority", pathField(body, "certificate-authority", at, dir)),
    ...opt("certificateAuthorityData", base64Field(body, "certificate-authority-data", at)),
    insecureSkipTlsVerify: optBool(body, "insecure-skip-tls-verify", at) ?? false,
    ...opt("tlsServerName", optString(body, "tls-server-name", at)),
    ...opt("proxyUrl", optString(body, "proxy-url", at)),
    disableCompression: optBool(body, "disable-compression", at) ?? false,
  };
}

function parseUser(body: Mapping, at: At, name: string, dir: string): UserEntry {
  const execAt = child(at, "exec");
  const exec = body["exec"] === undefined || body["exec"] === null
    ? undefined
    : parseExecConfig(mappingAt(body["exec"], execAt), execAt, dir);
  return {
    name,
    file: at.file,
    field: at.field,
    ...opt("clientCertificate", pathField(body, "client-certificate", at, dir)),
    ...opt("clientCertificateData", base64Field(body, "client-certificate-data", at)),
    ...opt("clientKey", pathField(body, "client-key", at, dir)),
    ...opt("clientKeyData", base64Field(body, "client-key-data", at)),
    ...opt("token", optString(body, "token", at)),
    ...opt("tokenFile", pathField(body, "tokenFile", at, dir)),
    ...opt("exec", exec),
    unsupported: UNSUPPORTED_USER_KEYS.filter((key) => present(body, key)),
  };
}

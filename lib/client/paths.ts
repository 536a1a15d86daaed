import type { WriteOptions } from "./client_options.ts";
import type { ListOptions, RawWatchOptions } from "./types.ts";
import type { ResourceRef } from "../resources/object.ts";

/** Where in a resource's URL space a request goes. */
export interface PathParts {
  /** The namespace segment (namespaced resources only). */
  readonly namespace?: string | undefined;
  /** The object name segment. */
  readonly name?: string | undefined;
  /** A subresource such as "status" (needs a name). */
  readonly subresource?: string | undefined;
}

/**
 * The API path of a resource, e.g. `/api/v1/namespaces/ns/configmaps/x` or
 * `/apis/apps/v1/deployments`. A namespace on a cluster-scoped resource is a TypeError,
 * because silently dropping it would list across the whole cluster; so is a ResourceRef whose
 * group, version or plural could change the path's shape (see `validateResourceRef`).
 */
export function resourcePath(ref: ResourceRef, parts: PathParts = {}): string {
  validateResourceRef(ref);
  const { namespace, name, subresource } = parts;
  if (namespace !== undefined && !ref.namespaced) {
    throw new TypeError(`Resource "${ref.plural}" is cluster-scoped: a namespace was given ("${namespace}")`);
  }
  if (subresource !== undefined && name === undefined) {
    throw new TypeError(`Subresource "${subresource}" needs an object name`);
  }
  let path = ref.group === "" ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (namespace !== undefined) path += `/namespaces/${segment(namespace, "namespace")}`;
  path += `/${ref.plural}`;
  if (name !== undefined) path += `/${segment(name, "name")}`;
  if (subresource !== undefined) path += `/${segment(subresource, "subresource")}`;
  return path;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const validated = new WeakSet<ResourceRef>();

/**
 * Checks that `ref` can go into a URL path as it is: `group` empty (the core group) or a DNS
 * subdomain (RFC 1123: dot-separated labels of lowercase letters, digits and "-", at most 253
 * characters), `version` and `plural` DNS labels (at most 63 characters), as the API server
 * requires of them. So "../", "%2F", "a/b", "?" or upper case never reach a request. Each ref
 * object is checked once.
 * @throws {TypeError} naming the field at fault.
 */
export function validateResourceRef(ref: ResourceRef): void {
  if (validated.has(ref)) return;
  const { group, version, plural } = ref as { group: unknown; version: unknown; plural: unknown };
  if (typeof group !== "string" || (group !== "" && !isDnsSubdomain(group))) {
    throw invalidRef(
      "group",
      group,
      'empty (the core group) or a DNS subdomain such as "apps" or "example.com"',
    );
  }
  if (typeof version !== "string" || version.length > 63 || !DNS_LABEL.test(version)) {
    throw invalidRef("version", version, 'a DNS label such as "v1" or "v1beta1"');
  }
  if (typeof plural !== "string" || plural.length > 63 || !DNS_LABEL.test(plural)) {
    throw invalidRef("plural", plural, 'a DNS label such as "deployments"');
  }
  validated.add(ref);
}

function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 &&
    value.split(".").every((label) => label.length <= 63 && DNS_LABEL.test(label));
}

function invalidRef(field: string, value: unknown, rule: string): TypeError {
  const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 100)) : String(value);
  return new TypeError(
    `Invalid ResourceRef: field "${field}" is ${shown}; it must be ${rule} (lowercase letters, digits, "-"` +
      `${field === "group" ? ' and "."' : ""})`,
  );
}

function segment(value: string, what: string): string {
  if (value === "" || value === "." || value === ".." || value.includes("/")) {
    throw new TypeError(`Invalid ${what} "${value}"`);
  }
  return encodeURIComponent(value);
}

/** Query parameters for list and watch requests, in the server's spelling. */
export function selectorQuery(options: ListOptions & RawWatchOptions, watch: boolean): URLSearchParams {
  const q = new URLSearchParams();
  if (watch) q.set("watch", "true");
  if (options.labelSelector) q.set("labelSelector", options.labelSelector);
  if (options.fieldSelector) q.set("fieldSelector", options.fieldSelector);
  if (options.shardSelector) q.set("shardSelector", options.shardSelector);
  if (options.resourceVersion !== undefined) q.set("resourceVersion", options.resourceVersion);
  if (options.resourceVersionMatch) q.set("resourceVersionMatch", options.resourceVersionMatch);
  if (options.timeoutSeconds !== undefined) q.set("timeoutSeconds", String(options.timeoutSeconds));
  if (options.limit !== undefined) q.set("limit", String(options.limit));
  if (options.continue) q.set("continue", options.continue);
  if (options.allowWatchBookmarks) q.set("allowWatchBookmarks", "true");
  if (options.sendInitialEvents !== undefined) q.set("sendInitialEvents", String(options.sendInitialEvents));
  return q;
}

/** The query of a write: `fieldManager` and `dryRun=All` when set. */
export function writeQuery(options: WriteOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (options.fieldManager) q.set("fieldManager", options.fieldManager);
  if (options.dryRun) q.set("dryRun", "All");
  return q;
}

/** The cache key of an object: "namespace/name", or "name" for cluster-scoped objects. */
export function objectKey(obj: { metadata: { name?: string; namespace?: string } }): string {
  const { name, namespace } = obj.metadata;
  if (!name) throw new TypeError("Object has no metadata.name");
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by `objectKey` back into namespace and name. */
export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf("/");
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

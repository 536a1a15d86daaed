/**
 * Orders two `metadata.resourceVersion`s of objects of the same resource: -1 when `a` is older, 0 when
 * equal, 1 when newer; undefined when either is not a canonical decimal integer (digits, no leading zero,
 * not "0"), so the two cannot be ordered and only equality means anything.
 *
 * Kubernetes documents resourceVersions as comparable since v1.35 (KEP-5504, stable there, with
 * conformance tests): for one resource, a later write has a greater integer. Before that they were
 * opaque strings; every kube-apiserver has used etcd revisions all along, but an aggregated API server
 * may use anything, hence the undefined. Compared as strings (length, then digits), so any length works.
 */
export function compareResourceVersions(
  a: string | undefined,
  b: string | undefined,
): -1 | 0 | 1 | undefined {
  if (!isCanonical(a) || !isCanonical(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

function isCanonical(rv: string | undefined): rv is string {
  return rv !== undefined && /^[1-9][0-9]*$/.test(rv);
}

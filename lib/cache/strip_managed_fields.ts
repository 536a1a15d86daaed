import type { KubeObject } from "../resources/object.ts";

/**
 * Returns `object` without `metadata.managedFields` (20–30 % of a typical object's bytes), rebuilding
 * `metadata` instead of using `delete`: `delete` drops V8 objects into slow dictionary mode, which
 * measured larger than keeping the field. Objects without the field are returned as they are.
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  const metadata = object.metadata;
  if (metadata.managedFields === undefined) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}

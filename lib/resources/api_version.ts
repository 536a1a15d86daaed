import type { ResourceRef } from "./object.ts";

/** The apiVersion string of a resource ref ("v1", "apps/v1"). */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group === "" ? ref.version : `${ref.group}/${ref.version}`;
}

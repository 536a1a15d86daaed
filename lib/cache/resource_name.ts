import type { ResourceRef } from "../resources/object.ts";

/** "group/version/plural", or "version/plural" for the core group. */
export function resourceName(ref: ResourceRef): string {
  return `${ref.group ? `${ref.group}/` : ""}${ref.version}/${ref.plural}`;
}
